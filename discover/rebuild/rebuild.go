// Package rebuild reconstructs a corrupt state file from what survives: its
// .bak twin, the text that still reads, the stories it names and the other
// candidates. Rebuild returns the reconstructed candidate with the provenance
// of each part; Render lays a rebuilt candidate out in the format of its kind
// for handoff to write, and StillCorrupt tells whether a file is still
// damaged.
package rebuild

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/epic"
	"github.com/orchestrate-dev/orchestrate/discover/qaloop"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/discover/spec"
	"github.com/orchestrate-dev/orchestrate/discover/wfstate"
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

// qaLoop rebuilds a QA loop from its story.
func (b *rbBuilder) qaLoop() (workflow.Candidate, bool) {
	c := b.c
	known := b.knownStories()
	if len(known) == 0 {
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
		Position:  qaloop.Position(def, "in_progress", qa),
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
		Position:  workflow.Position{Kind: workflow.PosWave, Index: 1, Total: 1, At: "wave 1"},
	}
	if c.Epic != nil && c.Epic.EpicID != "" {
		out.Epic.EpicID = c.Epic.EpicID
	}
	if allDone {
		out.Position.Name, out.Position.At, out.Position.Done = "Final Gate", "Final Gate", 1
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
