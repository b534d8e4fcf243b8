package rebuild

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/epic"
	"github.com/orchestrate-dev/orchestrate/discover/qaloop"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/discover/spec"
	"github.com/orchestrate-dev/orchestrate/discover/story"
	"github.com/orchestrate-dev/orchestrate/discover/wfstate"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Rebuilding a corrupt state file (task "Error Handling: Corrupted state
// file"): the state is reconstructed from, in order, the file's .bak twin,
// the statuses of the stories it names, the phase artifacts on disk and the
// stories' Change Logs. The result is shown to the user for confirmation;
// it is never resumed without one.

// Statuses and finding identifiers of a rebuild.
const (
	// StatusUnreadable is the status of a candidate whose state file cannot
	// be read or decoded.
	StatusUnreadable = "unreadable"
	// StatusRebuilt is the status of a candidate Rebuild reconstructed.
	StatusRebuilt = "rebuilt"
	// CheckRebuild is the check of the findings about a rebuilt state.
	CheckRebuild = "rebuild"
	// CodeRebuiltState (warning) lists the sources a state was rebuilt from.
	CodeRebuiltState = "rebuilt-state"
	// CodeRebuiltNeedsConfirmation (blocking) stops autopilot: a rebuilt
	// state is only resumed after a person confirmed it.
	CodeRebuiltNeedsConfirmation = "rebuilt-needs-confirmation"
)

// Provenance says where one part of a rebuilt state came from: Part is what
// was rebuilt ("state", "story", "phases completed", "last update", …), From
// the source ("<file>.bak", "story 3.2 status", "artifact docs/qa/gates/…",
// "Change Log of story 3.2") and Detail what it said. When Rebuild fails,
// the entries say what was tried and why it was not usable.
type Provenance struct{ Part, From, Detail string }

// rbCorruptCodes are the parse finding codes that mean the file's content
// is damaged (as opposed to a file that cannot be opened: permissions, an
// unsafe path, a folder, or one too large to read, which are reported as
// they are).
var rbCorruptCodes = map[string]bool{
	"syntax": true, "empty": true, "too-deep": true, "alias-bomb": true,
	"not-a-mapping": true, "not-an-object": true, "invalid-utf8": true, "binary": true,
}

// CorruptFinding returns the blocking parse finding of a candidate whose
// state file is corrupt (its content does not decode), and whether there is
// one. A state file that cannot be opened is not corrupt.
func CorruptFinding(c workflow.Candidate) (workflow.Finding, bool) {
	if c.Status != StatusUnreadable {
		return workflow.Finding{}, false
	}
	for _, f := range c.Findings {
		if f.Check == workflow.CheckParse && f.Severity == workflow.Blocking && f.Path == c.Source.Path && rbCorruptCodes[f.Code] {
			return f, true
		}
	}
	return workflow.Finding{}, false
}

// rbMaxSalvage bounds the tokens looked at when salvaging story ids from a
// corrupt file.
const rbMaxSalvage = 200000

// Rebuild reconstructs the state of candidate c, whose state file is
// corrupt (see CorruptFinding), from what else the repository holds; others
// are the other discovered candidates. In order:
//
//  1. the .bak twin, parsed with the parser of c's source kind: when it
//     parses, it is the rebuilt state;
//  2. the stories the broken file still names (ids salvaged from its raw
//     text, or from its path) or that other candidates link to it (a loops
//     index entry naming the file, stories of the epic): their statuses;
//  3. phase artifacts on disk: the story file (created and validated), its
//     File List (implementation under way), a QA gate file
//     docs/qa/gates/<id>*.yml (reviewed);
//  4. the stories' Change Log: the latest row's status or agent.
//
// Steps 2–4 rebuild a story development cycle (a workflow state), a QA loop
// or an epic (one wave of the known stories: the waves themselves cannot be
// rebuilt); a spec pipeline is rebuilt from its artifacts. The rebuilt
// candidate keeps c's id, key and source path; its status is "rebuilt", it
// is resumable, its update time is that of the newest evidence (UpdatedFrom
// "rebuilt"), and its findings are the original parse finding downgraded to
// a warning plus a "rebuilt-state" warning naming the sources. ok is false
// when nothing usable was found; the provenance then says what was tried.
// Rebuild only reads.
func Rebuild(r *source.Repo, c workflow.Candidate, others []workflow.Candidate) (workflow.Candidate, []Provenance, bool) {
	pf, corrupt := CorruptFinding(c)
	if !corrupt {
		why := "the state file is not corrupt"
		if c.Status == StatusUnreadable {
			why = "the state file cannot be opened (not a damaged file): nothing to rebuild"
		}
		return c, []Provenance{{Part: "state", From: c.Source.Path, Detail: why}}, false
	}
	if r == nil {
		return c, []Provenance{{Part: "state", From: c.Source.Path, Detail: "no repository"}}, false
	}
	b := &rbBuilder{r: r, c: c, pf: pf, others: others, newest: c.UpdatedAt, newestFrom: c.Source.Path}
	if out, ok := b.fromBackup(); ok {
		return out, b.prov, true
	}
	var out workflow.Candidate
	ok := false
	switch c.Source.Kind {
	case workflow.KindWorkflowState:
		out, ok = b.sdc()
	case workflow.KindQALoop:
		out, ok = b.qaLoop()
	case workflow.KindEpicState:
		out, ok = b.epic()
	case workflow.KindSpec:
		out, ok = b.spec()
	default:
		b.note("state", c.Source.Path, fmt.Sprintf("a %s cannot be rebuilt from stories or artifacts", rbKindLabel(c.Source.Kind)))
	}
	if !ok {
		return c, b.tried, false
	}
	return out, b.prov, true
}

func rbKindLabel(kind string) string {
	if kind == "" {
		return "state"
	}
	return kind + " state"
}

// rbBuilder carries one rebuild.
type rbBuilder struct {
	r      *source.Repo
	c      workflow.Candidate
	pf     workflow.Finding
	others []workflow.Candidate

	prov  []Provenance // where the parts of the rebuilt state came from
	tried []Provenance // what was looked at and not usable

	evidence   []workflow.SourceRef
	newest     time.Time
	newestFrom string

	raw     []byte
	rawRead bool
	gates   []string
	gatesOK bool
}

func (b *rbBuilder) add(part, from, detail string) {
	b.prov = append(b.prov, Provenance{Part: part, From: from, Detail: detail})
}

func (b *rbBuilder) note(part, from, detail string) {
	b.tried = append(b.tried, Provenance{Part: part, From: from, Detail: detail})
}

// seen records the time of a piece of evidence.
func (b *rbBuilder) seen(t time.Time, from string) {
	if !t.IsZero() && t.After(b.newest) {
		b.newest, b.newestFrom = t.UTC(), from
	}
}

func (b *rbBuilder) evidenceRef(kind, p string, prio int) {
	for _, e := range b.evidence {
		if e.Path == p {
			return
		}
	}
	b.evidence = append(b.evidence, workflow.SourceRef{Kind: kind, Path: p, Priority: prio})
}

// finish turns the state reconstructed into the rebuilt candidate.
func (b *rbBuilder) finish(out workflow.Candidate) workflow.Candidate {
	c := b.c
	out.ID, out.Key = c.ID, c.Key
	out.Source = c.Source
	out.BackupPath = c.BackupPath
	out.Status = StatusRebuilt
	out.Resumable = true
	if out.Stories == nil {
		out.Stories = []string{}
	}
	ev := append([]workflow.SourceRef(nil), c.Evidence...)
	for _, e := range b.evidence {
		dup := false
		for _, x := range ev {
			dup = dup || x.Path == e.Path
		}
		if !dup {
			ev = append(ev, e)
		}
	}
	source.SortEvidence(ev)
	out.Evidence = ev
	out.UpdatedAt, out.UpdatedFrom = b.newest, "rebuilt"
	if !b.newest.IsZero() {
		b.add("last update", b.newestFrom, b.newest.Format(time.RFC3339))
	}

	var sources []string
	for _, p := range b.prov {
		if p.Part == "last update" {
			continue
		}
		dup := false
		for _, s := range sources {
			dup = dup || s == p.From
		}
		if !dup && p.From != "" {
			sources = append(sources, p.From)
		}
	}
	pf := b.pf
	pf.Severity = workflow.Warning
	if pf.Line == 0 && pf.Code == "binary" {
		if i := bytes.IndexByte(b.rawText(), 0); i >= 0 {
			pf.Line = tolerant.LineAt(b.raw, i)
		}
	}
	pf.Message = fmt.Sprintf("the state file %s is corrupt: %s", c.Source.Path, b.pf.Message)
	fs := []workflow.Finding{pf, {
		Check:    CheckRebuild,
		Severity: workflow.Warning,
		Code:     CodeRebuiltState,
		Message:  fmt.Sprintf("the state was rebuilt from %s; confirm it before resuming", strings.Join(sources, "; ")),
		Path:     c.Source.Path,
	}}
	for _, f := range c.Findings {
		if f == b.pf || f.Code == "backup-available" {
			continue
		}
		fs = append(fs, f)
	}
	for _, f := range out.Findings {
		if f.Severity == workflow.Blocking {
			f.Severity = workflow.Warning // a finding of the evidence, not of the state
		}
		fs = append(fs, f)
	}
	out.Findings = fs
	return out
}

// fromBackup is step 1: the .bak twin.
func (b *rbBuilder) fromBackup() (workflow.Candidate, bool) {
	c, r := b.c, b.r
	bak := c.BackupPath
	if bak == "" && r.Exists(c.Source.Path+".bak") {
		bak = c.Source.Path + ".bak"
	}
	if bak == "" {
		b.note("state", c.Source.Path+".bak", "no backup")
		return c, false
	}
	data, err := r.Read(bak)
	if err != nil {
		b.note("state", bak, "the backup cannot be read: "+err.Error())
		return c, false
	}
	var out workflow.Candidate
	ok := false
	lookup := func(id string) string {
		if s := r.Stories[id]; s != nil {
			return s.Path
		}
		return ""
	}
	switch c.Source.Kind {
	case workflow.KindEpicState:
		out, ok = epic.Parse(bak, data, r.Definition(workflow.DefEpic))
		if ok {
			epic.AddStoryFiles(&out, lookup)
		}
	case workflow.KindQALoop:
		out, ok = qaloop.Parse(bak, data, r.Definition(workflow.DefQALoop))
		if ok {
			qaloop.AddStoryFile(&out, lookup)
		}
	case workflow.KindWorkflowState:
		m, derr := tolerant.DecodeYAMLMap(data)
		if derr != nil {
			out, ok = wfstate.Unreadable(bak, source.DecodeFinding(bak, derr)), false
		} else {
			out, ok = wfstate.Build(bak, m, r.Definition), true
			saved, savedFrom := out.UpdatedAt, out.UpdatedFrom
			out.Source.Path = c.Source.Path
			wfstate.FinishScan(r, &out, c.Source.Path) // story files; the backup's own time stays
			out.UpdatedAt, out.UpdatedFrom = saved, savedFrom
		}
	case workflow.KindSpec:
		def := r.Definition(workflow.DefSpec)
		if len(def.Phases) == 0 {
			def = source.BuiltinDefinitions()[workflow.DefSpec]
		}
		info := spec.ParseState(bak, data, def)
		if !info.Unreadable {
			ok = true
			dir := path.Dir(c.Source.Path)
			info.Path, info.Dir = c.Source.Path, dir
			arts := spec.FindArtifacts(r, dir, spec.ListDir(r, dir), def)
			spec.MergeArtifacts(r, &info, arts, info.Recorded)
			spec.StoryFromRepo(r, &info)
			out = spec.Build(info, def)
		} else {
			out = spec.Build(info, def)
		}
	default:
		b.note("state", bak, fmt.Sprintf("a %s backup is not read", rbKindLabel(c.Source.Kind)))
		return c, false
	}
	if !ok {
		why := "the backup does not parse either"
		for _, f := range out.Findings {
			if f.Check == workflow.CheckParse && f.Severity == workflow.Blocking {
				why += ": " + f.Message
				break
			}
		}
		b.note("state", bak, why)
		return c, false
	}
	detail := fmt.Sprintf("the backup parses: %s, status %s", out.Position.String(), rbOrNone(out.StatusRaw))
	if !out.UpdatedAt.IsZero() {
		detail += ", saved " + out.UpdatedAt.UTC().Format(time.RFC3339)
	}
	b.add("state", bak, detail)
	b.evidenceRef(c.Source.Kind, bak, c.Source.Priority)
	b.seen(out.UpdatedAt, bak)
	return b.finish(out), true
}

func rbOrNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(none)"
	}
	return s
}

// rbHit is a story found for a rebuild, and where.
type rbHit struct {
	id, from string
	story    *workflow.Story // nil when the repository has no such story file
}

// rawText reads the corrupt file as it is (binary content included), up to
// the configured size limit.
func (b *rbBuilder) rawText() []byte {
	if b.rawRead {
		return b.raw
	}
	b.rawRead = true
	clean, err := safefile.CheckPath(b.r.Root, b.c.Source.Path)
	if err != nil {
		return nil
	}
	f, err := os.Open(filepath.Join(b.r.Root, filepath.FromSlash(clean)))
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	max := b.r.Config.MaxFileSize
	if max <= 0 {
		max = 8 << 20
	}
	data, err := io.ReadAll(io.LimitReader(f, max))
	if err != nil {
		return nil
	}
	b.raw = data
	return data
}

var (
	// rbTokenRe finds words, ids and paths in a damaged file.
	rbTokenRe = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9._/\-]*[A-Za-z0-9]|[A-Za-z0-9]`)
	// rbStoryKeyRe finds a story id written after a story key (id: "3.5",
	// story: 4.2, storyId=2.1), even for a story without a file.
	rbStoryKeyRe = regexp.MustCompile(`(?i)(?:^|[\s{,\[])["']?(?:id|story|story_id|storyid|current_story|currentstory)["']?\s*[:=]\s*["']?(\d{1,6}(?:\.\d{1,6}){1,3})\b`)
	// rbWorkflowRe salvages the workflow id of a workflow state.
	rbWorkflowRe = regexp.MustCompile(`(?im)^\s*["']?(?:workflow|workflow_id|workflowid)["']?\s*:\s*["']?([A-Za-z0-9_.\-]{1,100})`)
	// rbMentionRe finds an agent mentioned in a Change Log item.
	rbMentionRe = regexp.MustCompile(`@([A-Za-z][\w-]*)`)
)

// storyByPath maps story file paths to stories.
func (b *rbBuilder) storyByPath() map[string]*workflow.Story {
	out := make(map[string]*workflow.Story, len(b.r.Stories))
	for _, st := range b.r.Stories {
		if st != nil && st.Path != "" {
			out[st.Path] = st
		}
	}
	return out
}

// salvage finds the stories a rebuild is about, in the order found: ids and
// story paths in the corrupt file's text and path, stories other candidates
// link to it, and (for an epic) stories whose Epic line names it. unknown
// story ids (no file) are kept only when written after a story key.
func (b *rbBuilder) salvage() []rbHit {
	var hits []rbHit
	seen := map[string]bool{}
	byPath := b.storyByPath()
	add := func(id, from string, needFile bool) {
		if id == "" || seen[id] || len(hits) >= 1000 {
			return
		}
		st := b.r.Stories[id]
		if st == nil && needFile {
			return
		}
		seen[id] = true
		hits = append(hits, rbHit{id: id, from: from, story: st})
	}
	word := func(tok, from string) {
		tok = strings.Trim(tok, "./-")
		if tok == "" {
			return
		}
		if st := b.r.Stories[tok]; st != nil {
			add(tok, from, true)
			return
		}
		if strings.Contains(tok, "/") {
			if st := byPath[path.Clean(tok)]; st != nil {
				add(st.ID, from, true)
				return
			}
		}
		if strings.ContainsAny(tok, "-_") {
			for _, part := range strings.FieldsFunc(tok, func(r rune) bool { return r == '-' || r == '_' || r == '/' }) {
				if b.r.Stories[part] != nil {
					add(part, from, true)
				}
			}
		}
	}

	src := b.c.Source.Path
	fromText := "text of " + src
	raw := b.rawText()
	if len(raw) > 0 {
		text := strings.ToValidUTF8(string(raw), " ")
		for _, tok := range rbTokenRe.FindAllString(text, rbMaxSalvage) {
			word(tok, fromText)
		}
		if b.c.Source.Kind == workflow.KindEpicState {
			for _, m := range rbStoryKeyRe.FindAllStringSubmatch(text, 1000) {
				add(m[1], fromText, false)
			}
		}
	}
	for _, part := range strings.FieldsFunc(src, func(r rune) bool { return r == '/' || r == '-' || r == '_' }) {
		if b.r.Stories[part] != nil {
			add(part, "path "+src, true)
		}
	}
	dir := path.Base(path.Dir(src))
	if b.r.Stories[dir] != nil {
		add(dir, "path "+src, true)
	}

	// a loops index entry folded into this candidate names its story
	for _, e := range b.c.Evidence {
		if e.Kind != workflow.KindQALoopIndex {
			continue
		}
		data, err := b.r.Read(e.Path)
		if err != nil {
			continue
		}
		entries, _ := qaloop.ParseIndex(e.Path, data, b.r.Definition(workflow.DefQALoop))
		for _, en := range entries {
			if en.StatusFile == src || path.Join(path.Dir(e.Path), en.StatusFile) == src {
				for _, id := range en.Cand.Stories {
					add(id, e.Path, true)
				}
			}
		}
	}
	// other candidates that point at this state file
	others := append([]workflow.Candidate(nil), b.others...)
	sort.SliceStable(others, func(i, j int) bool { return others[i].ID < others[j].ID })
	for _, o := range others {
		if o.ID == b.c.ID || !rbLinks(o, src) {
			continue
		}
		for _, id := range o.Stories {
			add(id, o.Source.Path, true)
		}
	}
	// stories of the epic
	if b.c.Source.Kind == workflow.KindEpicState {
		ids := make([]string, 0, len(b.r.Stories))
		for id, st := range b.r.Stories {
			if st != nil && rbSameEpic(st.Epic, b.c.Key) {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		for _, id := range ids {
			add(id, "Epic line of story "+id, true)
		}
	}
	return hits
}

// rbLinks reports whether candidate o refers to the state file p.
func rbLinks(o workflow.Candidate, p string) bool {
	for _, f := range o.Files {
		if f.Path == p {
			return true
		}
	}
	for _, e := range o.Evidence {
		if e.Path == p {
			return true
		}
	}
	return false
}

// rbSameEpic compares a story's Epic line with an epic key: "3", "Epic 3",
// "EPIC-3" and "epic-3: Title" all name epic 3.
func rbSameEpic(line, key string) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		if i := strings.IndexAny(s, ":(—"); i > 0 {
			s = strings.TrimSpace(s[:i])
		}
		s = strings.TrimPrefix(s, "epic")
		return strings.Trim(s, " -_#")
	}
	k := norm(key)
	return k != "" && norm(line) == k
}

// rbKnownStories returns the hits that have a story file.
func rbKnownStories(hits []rbHit) []rbHit {
	var out []rbHit
	for _, h := range hits {
		if h.story != nil {
			out = append(out, h)
		}
	}
	return out
}

// rbStateStatus is the state vocabulary of a story status.
func rbStateStatus(s workflow.Status) string {
	switch s {
	case workflow.StatusDraft, workflow.StatusReady:
		return "pending"
	case workflow.StatusInProgress:
		return "in_progress"
	case workflow.StatusInReview:
		return "in_review"
	case workflow.StatusDone:
		return "done"
	case workflow.StatusBlocked:
		return "blocked"
	}
	return ""
}

// The four roles of a story development cycle, as indexes into rbSDCRoles.
const (
	rbCreate = iota
	rbValidate
	rbImplement
	rbReview
)

// rbSDC is the story development cycle definition a rebuild lays phases on,
// with the definition index of each role.
type rbSDC struct {
	def  workflow.Definition
	role [4]int
}

func (b *rbBuilder) sdcDef() rbSDC {
	for _, def := range []workflow.Definition{b.r.Definition(workflow.DefSDC), source.BuiltinDefinitions()[workflow.DefSDC]} {
		impl := story.PhaseIndex(def, story.ImplementPhases)
		rev := story.PhaseIndex(def, story.ReviewPhases)
		if impl < 1 || rev <= impl {
			continue
		}
		create := def.Index("create")
		if create < 0 || create >= impl {
			create = 0
		}
		val := def.Index("validate")
		if val < 0 || val >= impl || val < create {
			val = impl - 1
		}
		return rbSDC{def: def, role: [4]int{create, val, impl, rev}}
	}
	return rbSDC{} // not reached: the built-in definition has every role
}

// rbStatusRole is the last role a story status says is complete (-1: none
// or unknown) and whether the status decides.
func rbStatusRole(s workflow.Status) (int, bool) {
	switch s {
	case workflow.StatusDraft:
		return rbCreate, true
	case workflow.StatusReady, workflow.StatusInProgress:
		return rbValidate, true
	case workflow.StatusInReview:
		return rbImplement, true
	case workflow.StatusDone:
		return rbReview, true
	}
	return -1, false
}

var rbRoleNames = [4]string{"create", "validate", "implement", "review"}

// rbSdcEvidence is what the evidence of one story says about its cycle.
type rbSdcEvidence struct {
	last     int    // the last completed role, -1 for none
	from     string // the source that decided
	detail   string
	files    []string // File List files present
	fileList int      // File List entries
	gate     rbGateInfo
	log      rbLogRow
	hasLog   bool
}

// storyEvidence collects steps 2–4 for one story.
func (b *rbBuilder) storyEvidence(h rbHit) rbSdcEvidence {
	st := h.story
	ev := rbSdcEvidence{last: -1}
	statusRole, decided := rbStatusRole(st.Status)

	// artifacts
	artRole, artFrom, artDetail := rbValidate, "story file "+st.Path, "the story exists: created and validated"
	ev.fileList = len(st.FileList)
	for _, f := range st.FileList {
		if len(ev.files) < 1000 && b.r.Exists(f) {
			ev.files = append(ev.files, f)
		}
	}
	ev.gate = b.gate(st.ID)
	if ev.gate.path != "" {
		artRole, artFrom = rbReview, "artifact "+ev.gate.path
		artDetail = "a QA gate file: reviewed"
		if ev.gate.verdict != "" {
			artDetail += ", gate " + ev.gate.verdict
		}
		b.seen(ev.gate.updated, ev.gate.path)
		b.evidenceRef("qa-gate", ev.gate.path, workflow.PriorityUnspecified)
	}
	// Change Log
	logRole := -1
	if row, ok := rbLatestLog(st); ok {
		ev.log, ev.hasLog = row, true
		logRole = row.role
		b.seen(row.date, "Change Log of story "+st.ID)
	}

	switch {
	case decided:
		ev.last, ev.from = statusRole, "story "+st.ID+" status"
		ev.detail = string(st.Status)
	case logRole > artRole:
		ev.last, ev.from, ev.detail = logRole, "Change Log of story "+st.ID, ev.log.describe()
	default:
		ev.last, ev.from, ev.detail = artRole, artFrom, artDetail
	}
	return ev
}

// sdc rebuilds a workflow state as a story development cycle.
func (b *rbBuilder) sdc() (workflow.Candidate, bool) {
	c := b.c
	if m := rbWorkflowRe.FindSubmatch(b.rawText()); m != nil {
		id := string(m[1])
		if t := source.TypeOf(id); t != workflow.TypeSDC && t != workflow.TypeWorkflow {
			b.note("workflow", "text of "+c.Source.Path, fmt.Sprintf("workflow %s: only a story development cycle is rebuilt from stories", id))
			return c, false
		}
	}
	hits := b.salvage()
	known := rbKnownStories(hits)
	if len(known) == 0 {
		b.noStories(hits)
		return c, false
	}
	h := known[0]
	st := h.story
	sd := b.sdcDef()
	ev := b.storyEvidence(h)
	b.add("story", h.from, fmt.Sprintf("story %s (%s)", st.ID, st.Path))
	for _, o := range known[1:] {
		b.add("other stories named", o.from, "story "+o.id+" (not the cycle's story: the first one named is)")
	}
	b.evidenceRef(workflow.KindStory, st.Path, workflow.PriorityInProgress)

	n := len(sd.def.Phases)
	lastIdx := -1
	if ev.last >= 0 {
		lastIdx = sd.role[ev.last]
	}
	cur := lastIdx + 1
	if cur >= n {
		cur = -1
	}
	var done []string
	out := workflow.Candidate{
		Type:      workflow.TypeSDC,
		Workflow:  sd.def.ID,
		Stories:   []string{st.ID},
		StoryRefs: []workflow.StoryRef{{ID: st.ID, Status: rbStateStatus(st.Status), Path: st.Path, Executor: st.Executor}},
		StatusRaw: string(st.Status),
	}
	for i, pd := range sd.def.Phases {
		ph := workflow.Phase{ID: pd.ID, Name: pd.Name, Agent: pd.Agent, Status: workflow.PhasePending}
		switch {
		case i <= lastIdx:
			ph.Status = workflow.PhaseCompleted
			done = append(done, pd.Name)
			switch {
			case i <= sd.role[rbValidate]:
				ph.Outputs = []string{st.Path}
			case i == sd.role[rbImplement]:
				ph.Outputs = append([]string(nil), ev.files...)
			case i == sd.role[rbReview] && ev.gate.path != "":
				ph.Outputs = []string{ev.gate.path}
			}
		case i == cur:
			ph.Status = workflow.PhaseCurrent
		}
		out.Phases = append(out.Phases, ph)
	}
	phaseText := "none done"
	if len(done) > 0 {
		phaseText = strings.Join(done, ", ") + " done"
	}
	if cur >= 0 {
		phaseText += "; " + sd.def.Phases[cur].Name + " next"
		if cur == sd.role[rbImplement] && st.Status == workflow.StatusInProgress {
			phaseText = strings.TrimSuffix(phaseText, " next") + " under way"
		}
		out.Position = workflow.Position{Kind: workflow.PosPhase, Index: cur + 1, Total: n, Name: sd.def.Phases[cur].Name}
		out.Agent = sd.def.Phases[cur].Agent
		if cur == sd.role[rbImplement] && st.Executor != "" {
			out.Agent = st.Executor
		}
		if cur == sd.role[rbReview] && st.QualityGate != "" {
			out.Agent = st.QualityGate
		}
	} else {
		out.Position = workflow.Position{Kind: workflow.PosPhase, Index: n, Total: n, Name: sd.def.Phases[n-1].Name}
	}
	b.add("phases completed", ev.from, phaseText+" ("+ev.detail+")")
	b.supporting(st, ev, ev.from)

	curID := ""
	if cur >= 0 {
		curID = sd.def.Phases[cur].ID
	}
	implID, revID := sd.def.Phases[sd.role[rbImplement]].ID, sd.def.Phases[sd.role[rbReview]].ID
	out.Files = append(out.Files, workflow.RefFile{Path: st.Path, Phase: curID, Critical: cur >= 0, From: "story"})
	for _, f := range st.FileList {
		if f != st.Path && len(out.Files) < source.MaxFiles {
			out.Files = source.AddFile(out.Files, workflow.RefFile{Path: f, Phase: implID, Produced: true, From: "file-list"})
		}
	}
	if ev.gate.path != "" {
		out.Files = source.AddFile(out.Files, workflow.RefFile{Path: ev.gate.path, Phase: revID, Produced: true, From: "qa-gate"})
	}
	return b.finish(out), true
}

// supporting records the evidence that did not decide but was looked at.
func (b *rbBuilder) supporting(st *workflow.Story, ev rbSdcEvidence, decided string) {
	if ev.fileList > 0 {
		b.add("implementation", "File List of story "+st.ID, fmt.Sprintf("%d of %d files exist", len(ev.files), ev.fileList))
	}
	if ev.gate.path != "" && decided != "artifact "+ev.gate.path {
		d := "a QA gate file"
		if ev.gate.verdict != "" {
			d += ": gate " + ev.gate.verdict
		}
		b.add("review", "artifact "+ev.gate.path, d+" (not deciding)")
	}
	if ev.hasLog && decided != "Change Log of story "+st.ID {
		b.add("last change", "Change Log of story "+st.ID, ev.log.describe()+" (not deciding)")
	}
}

// noStories explains why no story was usable.
func (b *rbBuilder) noStories(hits []rbHit) {
	if len(hits) == 0 {
		b.note("stories", "text of "+b.c.Source.Path, "names no story the repository has, and no other state links to it")
		return
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.id)
	}
	b.note("stories", "text of "+b.c.Source.Path, "names "+strings.Join(ids, ", ")+", but no such story file exists")
}

// qaLoop rebuilds a QA loop from its story.
func (b *rbBuilder) qaLoop() (workflow.Candidate, bool) {
	c := b.c
	hits := b.salvage()
	known := rbKnownStories(hits)
	if len(known) == 0 {
		b.noStories(hits)
		return c, false
	}
	h := known[0]
	st := h.story
	ev := b.storyEvidence(h)
	b.add("story", h.from, fmt.Sprintf("story %s (%s)", st.ID, st.Path))
	b.evidenceRef(workflow.KindStory, st.Path, workflow.PriorityInReview)

	def := b.r.Definition(workflow.DefQALoop)
	if len(def.Phases) == 0 {
		def = source.BuiltinDefinitions()[workflow.DefQALoop]
	}
	max := def.MaxIterations
	if max <= 0 {
		max = qaloop.DefaultMax
	}
	qa := &workflow.QALoop{MaxIterations: max}
	from, detail := "", ""
	switch st.Status {
	case workflow.StatusDone:
		qa.LastVerdict, from, detail = "APPROVE", "story "+st.ID+" status", "Done: approved"
	case workflow.StatusInProgress:
		qa.LastVerdict, from, detail = "REJECT", "story "+st.ID+" status", "InProgress: fixes under way after a rejection"
	case workflow.StatusInReview:
		from, detail = "story "+st.ID+" status", "InReview: in review"
		if ev.gate.verdict == "REJECT" {
			qa.LastVerdict, qa.FixesApplied = "REJECT", true
			detail += " again after the fixes for the gate's FAIL"
		}
	default:
		switch {
		case ev.gate.path != "":
			qa.LastVerdict, from, detail = ev.gate.verdict, "artifact "+ev.gate.path, "gate "+rbOrNone(ev.gate.verdict)
		case ev.hasLog:
			from, detail = "Change Log of story "+st.ID, ev.log.describe()
			if ev.log.role == rbImplement {
				qa.FixesApplied = true
			}
		default:
			from, detail = "story file "+st.Path, "the story exists: review pending"
		}
	}
	qa.Iteration = 1
	if n := rbCountRole(st, rbReview); n > qa.Iteration {
		qa.Iteration = n
	}
	if qa.Iteration > max+1 {
		qa.Iteration = max + 1
	}
	if qa.LastVerdict != "" {
		qa.History = []workflow.Iteration{{Number: qa.Iteration, Verdict: qa.LastVerdict, Fixed: qa.FixesApplied}}
	}
	out := workflow.Candidate{
		Type:      workflow.TypeQALoop,
		Workflow:  workflow.DefQALoop,
		Stories:   []string{st.ID},
		StoryRefs: []workflow.StoryRef{{ID: st.ID, Status: rbStateStatus(st.Status), Path: st.Path}},
		StatusRaw: string(st.Status),
		QA:        qa,
		Position:  workflow.Position{Kind: workflow.PosIteration, Index: qa.Iteration, Total: max},
	}
	out.Phases = qaloop.Phases(def, "in_progress", qa)
	for _, p := range out.Phases {
		if p.Status == workflow.PhaseCurrent {
			out.Agent = p.Agent
		}
	}
	b.add("verdict", from, fmt.Sprintf("%s (iteration %d of %d)", detail, qa.Iteration, max))
	b.supporting(st, ev, from)
	out.Files = []workflow.RefFile{{Path: st.Path, Phase: "review", Critical: true, From: "story"}}
	if ev.gate.path != "" {
		out.Files = source.AddFile(out.Files, workflow.RefFile{Path: ev.gate.path, Phase: "review", Produced: true, From: "qa-gate"})
	}
	return b.finish(out), true
}

// epic rebuilds an epic execution as one wave of its known stories.
func (b *rbBuilder) epic() (workflow.Candidate, bool) {
	c := b.c
	hits := b.salvage()
	if len(rbKnownStories(hits)) == 0 {
		b.noStories(hits)
		return c, false
	}
	def := b.r.Definition(workflow.DefEpic)
	ids := make([]string, 0, len(hits))
	byID := map[string]rbHit{}
	for _, h := range hits {
		ids = append(ids, h.id)
		byID[h.id] = h
	}
	sort.Strings(ids)
	var refs []workflow.StoryRef
	var parts []string
	froms := map[string][]string{}
	var fromOrder []string
	for _, id := range ids {
		h := byID[id]
		ref := workflow.StoryRef{ID: id}
		if h.story != nil {
			ref.Status, ref.Path, ref.Executor = rbStateStatus(h.story.Status), h.story.Path, h.story.Executor
			if ref.Status == "" {
				ref.Status = "pending"
			}
			parts = append(parts, id+" "+ref.Status)
			b.evidenceRef(workflow.KindStory, h.story.Path, workflow.PriorityInProgress)
			if row, ok := rbLatestLog(h.story); ok {
				b.seen(row.date, "Change Log of story "+id)
			}
		} else {
			ref.Status = "pending"
			parts = append(parts, id+" pending (no story file)")
		}
		refs = append(refs, ref)
		if _, ok := froms[h.from]; !ok {
			fromOrder = append(fromOrder, h.from)
		}
		froms[h.from] = append(froms[h.from], id)
	}
	for _, f := range fromOrder {
		b.add("stories", f, strings.Join(froms[f], ", "))
	}
	wave := workflow.Wave{Number: 1, Stories: refs}
	wave.Status = epic.DeriveWaveStatus(wave)
	allDone := epic.Finished(wave.Status)
	b.add("waves", "story files", "the waves cannot be rebuilt: one wave of the known stories ("+strings.Join(parts, ", ")+")")
	out := workflow.Candidate{
		Type:      workflow.TypeEpic,
		Workflow:  workflow.DefEpic,
		Stories:   ids,
		StoryRefs: refs,
		StatusRaw: wave.Status,
		Epic:      &workflow.Epic{EpicID: c.Key, CurrentWave: 1, Waves: []workflow.Wave{wave}},
		Position:  workflow.Position{Kind: workflow.PosWave, Index: 1, Total: 1},
	}
	if c.Epic != nil && c.Epic.EpicID != "" {
		out.Epic.EpicID = c.Epic.EpicID
	}
	if allDone {
		out.Position.Name = "Final Gate"
	}
	out.Phases = epic.Phases(def, out.Epic.Waves, 1, allDone, "in_progress")
	epic.AddStoryFiles(&out, nil)
	return b.finish(out), true
}

// spec rebuilds a spec pipeline from the artifacts discovery found in its
// folder.
func (b *rbBuilder) spec() (workflow.Candidate, bool) {
	c := b.c
	var outs []workflow.Phase
	for _, p := range c.Phases {
		if len(p.Outputs) > 0 && p.Status == workflow.PhaseCompleted {
			outs = append(outs, p)
		}
	}
	if len(outs) == 0 {
		b.note("phases", path.Dir(c.Source.Path), "no phase artifact in the spec folder")
		return c, false
	}
	out := c
	out.Findings = nil
	for _, p := range outs {
		b.add("phase "+p.Name, "artifact "+p.Outputs[0], "completed")
		b.evidenceRef(workflow.KindSpec, p.Outputs[0], workflow.PrioritySpec)
	}
	out.StatusRaw = ""
	return b.finish(out), true
}

// rbGateInfo is a QA gate file of a story.
type rbGateInfo struct {
	path    string
	verdict string // APPROVE (PASS, CONCERNS, WAIVED), REJECT (FAIL), "" unknown
	raw     string
	updated time.Time
}

// gate finds the QA gate file of story id: docs/qa/gates/<id>.yml or
// <id>-<slug>.yml (also .yaml); the newest by name when several.
func (b *rbBuilder) gate(id string) rbGateInfo {
	if !b.gatesOK {
		b.gatesOK = true
		b.gates = b.r.Glob([]string{"docs/qa/gates/*.yml", "docs/qa/gates/*.yaml"}, false)
	}
	var found string
	for _, g := range b.gates {
		base := path.Base(g)
		base = strings.TrimSuffix(strings.TrimSuffix(base, ".yml"), ".yaml")
		if !strings.HasPrefix(base, id) {
			continue
		}
		rest := base[len(id):]
		if rest == "" || rest[0] == '-' || rest[0] == '_' || (rest[0] == '.' && (len(rest) == 1 || rest[1] < '0' || rest[1] > '9')) {
			found = g // sorted: the last match is kept
		}
	}
	if found == "" {
		return rbGateInfo{}
	}
	info := rbGateInfo{path: found}
	data, err := b.r.Read(found)
	if err != nil {
		return info
	}
	m, err := tolerant.DecodeYAMLMap(data)
	if err != nil {
		return info
	}
	f := &tolerant.Fields{Path: found}
	info.raw = strings.ToUpper(f.Str(m, "gate", "decision", "verdict", "status"))
	switch info.raw {
	case "PASS", "CONCERNS", "WAIVED", "APPROVE", "APPROVED":
		info.verdict = "APPROVE"
	case "FAIL", "REJECT", "REJECTED":
		info.verdict = "REJECT"
	}
	info.updated, _ = f.Time(m, "updated", "updated_at", "updatedAt", "reviewed_at", "date")
	return info
}

// rbLogRow is one Change Log row.
type rbLogRow struct {
	date               time.Time
	dateText           string
	agent, status, msg string
	role               int // the role the row completes, -1 unknown
	order              int
}

func (r rbLogRow) describe() string {
	var parts []string
	if r.dateText != "" {
		parts = append(parts, r.dateText)
	}
	who := r.agent
	if who == "" {
		who = r.status
	}
	if who != "" {
		parts = append(parts, who)
	}
	s := strings.Join(parts, " ")
	if r.msg != "" {
		if s != "" {
			s += ": "
		}
		s += workflow.Truncate(r.msg, 120)
	}
	if r.role >= 0 {
		s += " -> " + rbRoleNames[r.role] + " done"
	}
	return s
}

var rbDateRe = regexp.MustCompile(`\b(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(Z|[+-]\d{2}:?\d{2})?)?\b`)

// rbParseDate reads the first date in s.
func rbParseDate(s string) (time.Time, string) {
	m := rbDateRe.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, ""
	}
	text := m[0]
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, text); err == nil {
			return t.UTC(), text
		}
	}
	if t, err := time.Parse("2006-01-02", m[1]); err == nil {
		return t.UTC(), m[1]
	}
	return time.Time{}, ""
}

// rbAgentRole maps the agent of a Change Log row to the role it completes:
// "@sm", "Bob (SM)", "Sarah (PO)", "James (Dev Agent)", "Quinn (QA)",
// "Claude Code Review".
func rbAgentRole(agent string) int {
	words := strings.FieldsFunc(strings.ToLower(agent), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	has := func(ws ...string) bool {
		for _, w := range words {
			for _, x := range ws {
				if w == x {
					return true
				}
			}
		}
		return false
	}
	switch {
	case has("qa", "test", "tester", "review", "reviewer"):
		return rbReview
	case has("po", "product", "owner"):
		return rbValidate
	case has("sm", "scrum"):
		return rbCreate
	case has("dev", "developer", "engineer"):
		return rbImplement
	}
	return -1
}

// rbChangeLog reads the rows of a story's Change Log: a table (columns
// found by their headers: Date, Agent|Author|By, Status, Change|Description)
// or a list of "date agent: text" items.
func rbChangeLog(st *workflow.Story) []rbLogRow {
	if st == nil {
		return nil
	}
	sec, ok := st.Sections[workflow.SectionChangeLog]
	if !ok {
		return nil
	}
	var rows []rbLogRow
	cols := map[string]int{}
	header := false
	for i, line := range strings.Split(sec.Raw, "\n") {
		if len(rows) >= 2000 {
			break
		}
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "|") {
			cells := story.TableCells(t, story.MaxTableCells)
			if story.IsSeparatorRow(cells) {
				continue
			}
			if !header {
				header = true
				isHeader := false
				for j, cell := range cells {
					n := strings.ToLower(story.Unemphasize(cell))
					switch {
					case strings.Contains(n, "date"):
						cols["date"], isHeader = j, true
					case strings.Contains(n, "agent") || strings.Contains(n, "author") || n == "by" || n == "who":
						cols["agent"], isHeader = j, true
					case strings.Contains(n, "status"):
						cols["status"], isHeader = j, true
					case strings.Contains(n, "change") || strings.Contains(n, "description") || strings.Contains(n, "summary") || strings.Contains(n, "note"):
						cols["msg"], isHeader = j, true
					}
				}
				if isHeader {
					continue
				}
			}
			cell := func(k string) string {
				if j, ok := cols[k]; ok && j < len(cells) {
					return story.Unemphasize(cells[j])
				}
				return ""
			}
			row := rbLogRow{agent: cell("agent"), status: cell("status"), msg: cell("msg"), role: -1, order: i}
			if _, ok := cols["date"]; ok {
				row.date, row.dateText = rbParseDate(cell("date"))
			} else {
				row.date, row.dateText = rbParseDate(t)
			}
			if _, ok := cols["agent"]; !ok && len(cells) > 0 {
				row.agent = story.Unemphasize(cells[len(cells)-1])
			}
			rows = append(rows, rbRole(row))
			continue
		}
		item, ok := story.Bullet(t)
		if !ok {
			continue
		}
		row := rbLogRow{msg: item, role: -1, order: i}
		row.date, row.dateText = rbParseDate(item)
		if m := rbMentionRe.FindStringSubmatch(item); m != nil {
			row.agent = "@" + m[1]
		}
		rows = append(rows, rbRole(row))
	}
	return rows
}

// rbRole fills the role a row completes: its status column, else its agent.
func rbRole(row rbLogRow) rbLogRow {
	if row.status != "" {
		if s, _ := workflow.CanonicalStatus(row.status, nil); s != workflow.StatusUnknown {
			if role, ok := rbStatusRole(s); ok {
				row.role = role
				return row
			}
		}
	}
	row.role = rbAgentRole(row.agent)
	return row
}

// rbLatestLog is the latest Change Log row that tells a phase: the newest
// date, the later row on a tie (rows without a date rank by position, after
// no dated row).
func rbLatestLog(st *workflow.Story) (rbLogRow, bool) {
	var best rbLogRow
	found := false
	for _, row := range rbChangeLog(st) {
		if row.role < 0 {
			continue
		}
		if !found || row.date.After(best.date) || (row.date.Equal(best.date) && row.order > best.order) {
			best, found = row, true
		}
	}
	return best, found
}

// rbCountRole counts the Change Log rows that complete role.
func rbCountRole(st *workflow.Story, role int) int {
	n := 0
	for _, row := range rbChangeLog(st) {
		if row.role == role {
			n++
		}
	}
	return n
}
