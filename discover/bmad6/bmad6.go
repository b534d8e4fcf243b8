// Package bmad6 reads BMAD-METHOD v6 saved state: the sprint-status.yaml
// ledger (found from the module config of any v6 layout generation, or at
// a default place alone) and the story files it names. Each story whose
// ledger or file status is in progress or in review becomes a candidate
// ("sdc:<id>" or "qa-review:<id>", source kind bmad-ledger, framework
// "bmad-v6") with the point inside the story where work stopped; epics and
// retrospectives never do. The ledger is authoritative, the story file is
// evidence: their disagreement is a drift finding. See docs/ARCHITECTURE.md.
package bmad6

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Framework is the framework name v6 candidates carry.
const Framework = "bmad-v6"

// LedgerSource is the BMAD v6 ledger source (priority of stories in
// progress; a ledger candidate wins over the story source's candidate of the
// same id).
var LedgerSource source.Source = source.Format{FormatKind: workflow.KindBMADLedger, FormatPriority: workflow.PriorityInProgress, ScanFunc: scan}

// MaxStoryFiles bounds the markdown files searched for story files.
const MaxStoryFiles = 20000

func scan(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
	cfg := readConfig(r)
	var out []workflow.Candidate
	var findings []workflow.Finding
	ledgers := ledgerPaths(r, cfg)
	var read []readLedger
	for _, lp := range ledgers {
		data, mt, err := r.ReadWithTime(lp)
		if err != nil {
			findings = append(findings, source.ReadFinding(lp, err))
			continue
		}
		l := ParseLedger(data)
		if !l.HasDevStatus {
			continue
		}
		cs, fs := scanLedger(r, cfg, lp, mt.UTC(), l)
		read = append(read, readLedger{path: lp, mtime: mt.UTC(), l: l, cands: cs})
		findings = append(findings, fs...)
	}
	cs, fs := liveLedgers(r, read)
	out = append(out, cs...)
	findings = append(findings, fs...)
	qs, qf := quickSpecs(r, cfg, ledgers, spelling(r, cfg))
	return append(out, qs...), append(findings, qf...)
}

// ledgerScan is one ledger being turned into candidates.
type ledgerScan struct {
	r        *source.Repo
	cfg      Config
	path     string
	mtime    time.Time
	l        *Ledger
	stories  []Entry
	epics    []Entry
	folder   string // effective story folder
	declared string // story_location as written
	files    map[string]string
	spell    Spelling         // how the user types the framework's commands
	next     *frameworkAnswer // BMAD's own answer for this ledger (computed once)
}

func scanLedger(r *source.Repo, cfg Config, lp string, mt time.Time, l *Ledger) ([]workflow.Candidate, []workflow.Finding) {
	s := &ledgerScan{r: r, cfg: cfg, path: lp, mtime: mt, l: l, declared: l.StoryLocation, spell: spelling(r, cfg)}
	kinds, byStructure := Kinds(l.Entries)
	for i, e := range l.Entries {
		switch kinds[i] {
		case KeyStory:
			s.stories = append(s.stories, e)
		case KeyEpic:
			s.epics = append(s.epics, e)
		}
	}
	var findings []workflow.Finding
	folderNote := s.locate()
	if len(byStructure) > 0 {
		shown := byStructure
		if len(shown) > 10 {
			shown = shown[:10]
		}
		folderNote = append(folderNote, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Info, Code: "ledger-epic-by-structure", Path: lp,
			Message: fmt.Sprintf("ledger keys read as epics, not stories (an epic's numbering, or stories beneath them): %s", strings.Join(shown, ", "))})
	}
	var out []workflow.Candidate
	var drifts []pendingDrift
	for _, e := range s.stories {
		if c, d, ok := s.candidate(e); ok {
			if d != nil {
				d.cand = len(out)
				drifts = append(drifts, *d)
			}
			c.Findings = append(c.Findings, folderNote...)
			out = append(out, c)
		}
	}
	s.nameNewer(out, drifts)
	if l.Truncated {
		findings = append(findings, workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Warning, Code: "too-many-entries", Path: lp,
			Message: fmt.Sprintf("only the first %d development_status entries were read", MaxEntries)})
	}
	return out, findings
}

// locate picks the story folder (never trusting story_location blindly:
// the declared folder, then the config's, then the ledger's, the first in
// which ledger keys resolve) and maps story keys to files. It returns the
// findings reporting the folders.
func (s *ledgerScan) locate() []workflow.Finding {
	var folders []string
	var fs []workflow.Finding
	decl, usable := declared(s.declared, s.cfg)
	if s.declared != "" && !usable {
		fs = append(fs, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Warning, Code: "story-location-unusable", Path: s.path,
			Message: fmt.Sprintf("the ledger's story_location %q is not a folder of this repository; looking beside the ledger", s.declared)})
	}
	if usable {
		folders = append(folders, decl)
	}
	folders = append(folders, s.cfg.Stories, path.Dir(s.path))
	seen := map[string]bool{}
	first := ""
	for _, f := range folders {
		if f == "" || seen[f] || (f != "." && !s.r.Exists(f)) {
			continue
		}
		seen[f] = true
		files := resolve(s.r, f, s.stories)
		if first == "" {
			first, s.files = f, files
		}
		if len(files) > 0 {
			s.folder, s.files = f, files
			break
		}
	}
	if s.folder == "" {
		s.folder = first
	}
	msg := fmt.Sprintf("BMAD v6 ledger %s: stories in %s", s.path, orNone(s.folder))
	if s.declared != "" {
		msg += fmt.Sprintf(" (story_location declares %q)", s.declared)
	}
	if s.cfg.Path != "" {
		msg += "; config " + s.cfg.Path
	}
	fs = append(fs, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Info, Code: "bmad-story-folder", Path: s.path, Message: msg})
	return fs
}

func orNone(s string) string {
	if s == "" {
		return "(no folder found)"
	}
	return s
}

// notStory are words in a file name that make it a note, not a story.
var notStory = []string{"review", "audit", "retro", "spike", "decision", "validation", "checklist", "summary", "context"}

// resolve maps story keys to files below folder: <key>.md, then
// story-<key>.md (anywhere below, the shallowest first), then an unclaimed
// <E>-<S>-*.md whose title names story E.S and which is no note.
func resolve(r *source.Repo, folder string, stories []Entry) map[string]string {
	pat := folder + "/**/*.md"
	if folder == "." || folder == "" {
		pat = "**/*.md"
	}
	paths := r.Glob([]string{pat}, false)
	if len(paths) > MaxStoryFiles {
		paths = paths[:MaxStoryFiles]
	}
	sort.SliceStable(paths, func(i, j int) bool {
		di, dj := strings.Count(paths[i], "/"), strings.Count(paths[j], "/")
		if di != dj {
			return di < dj
		}
		return paths[i] < paths[j]
	})
	byBase := map[string]string{}
	for _, p := range paths {
		b := path.Base(p)
		if _, ok := byBase[b]; !ok {
			byBase[b] = p
		}
	}
	out := map[string]string{}
	claimed := map[string]bool{}
	for _, e := range stories {
		for _, b := range []string{e.Key + ".md", "story-" + e.Key + ".md"} {
			if p, ok := byBase[b]; ok {
				out[e.Key] = p
				claimed[p] = true
				break
			}
		}
	}
	byPrefix := map[string][]string{} // "<E>-<S>-" → candidate files, in search order
	for _, p := range paths {
		b := strings.ToLower(path.Base(p))
		if parts := strings.SplitN(b, "-", 3); len(parts) == 3 && !isNote(b) {
			pre := parts[0] + "-" + parts[1] + "-"
			byPrefix[pre] = append(byPrefix[pre], p)
		}
	}
	reads := 0
	for _, e := range stories {
		if _, ok := out[e.Key]; ok {
			continue
		}
		segs := strings.SplitN(e.Key, "-", 3)
		id := StoryID(e.Key)
		if len(segs) < 3 || id == "" || Canonical(e.Raw) == workflow.StatusBacklog {
			continue
		}
		pre := segs[0] + "-" + segs[1] + "-"
		want := segs[0] + "." + segs[1]
		for _, p := range byPrefix[strings.ToLower(pre)] {
			if claimed[p] || reads > 200 {
				continue
			}
			reads++
			data, err := r.Read(p)
			if err != nil {
				continue
			}
			sf := ParseStoryFile(data)
			if sf.HeadingID == want || sf.HeadingID == id {
				out[e.Key] = p
				claimed[p] = true
				break
			}
		}
	}
	return out
}

func isNote(base string) bool {
	for _, w := range notStory {
		if strings.Contains(base, w) {
			return true
		}
	}
	return false
}

var taskNum = lazyre.New(`(?i)^(task\s+\d{1,4}(?:\.\d{1,4})?)\b`)

// holes lists open tasks that stand before a closed one of the same or a
// higher level (a parent open above its done subtasks is no hole).
func holes(ts []Task) []string {
	var out []string
	for i, t := range ts {
		if t.Done || t.Review {
			continue
		}
		for _, later := range ts[i+1:] {
			if later.Done && !later.Review && later.Indent <= t.Indent {
				out = append(out, oneLine(t.Text))
				break
			}
		}
		if len(out) >= 10 {
			break
		}
	}
	return out
}

// register adds a parsed v6 story to the repository's story index (unless
// the story source already holds that id) so validation and the plan see its
// file and canonical status.
func (s *ledgerScan) register(id, file string, sf *StoryFile, st workflow.Status, mt time.Time) {
	if s.r.Stories == nil {
		s.r.Stories = map[string]*workflow.Story{}
	}
	if _, ok := s.r.Stories[id]; ok {
		return
	}
	if st == "" {
		st = workflow.StatusUnknown
	}
	s.r.Stories[id] = &workflow.Story{ID: id, Title: sf.Title, Path: file, Status: st, StatusRaw: sf.Status, StatusLine: sf.StatusLine, FileList: sf.FileList, ModTime: mt}
}

// candidate turns a story entry into a candidate; false for a backlog
// story without a file (normal) and for archive pointers.
func (s *ledgerScan) candidate(e Entry) (workflow.Candidate, *pendingDrift, bool) {
	if e.Archive {
		return workflow.Candidate{}, nil, false
	}
	ledgerSt := Canonical(e.Raw)
	file := s.files[e.Key]
	var sf *StoryFile
	var fileMT time.Time
	var fileFindings []workflow.Finding
	if file != "" {
		data, mt, err := s.r.ReadWithTime(file)
		if err != nil {
			fileFindings = append(fileFindings, source.ReadFinding(file, err))
		} else {
			sf = ParseStoryFile(data)
			fileMT = mt.UTC()
		}
	}
	if sf == nil && ledgerSt == workflow.StatusBacklog && len(fileFindings) == 0 {
		return workflow.Candidate{}, nil, false
	}
	fileSt := workflow.Status("")
	if sf != nil && sf.Status != "" {
		fileSt = FileCanonical(sf.Status, s.r.Config.Statuses)
	}
	id := storyID(e.Key, sf)
	// the file says where work stands only when the ledger lags it with a
	// status of its own; a ledger value that is no v6 status
	// ("deployed-awaiting-user-smoke") is followed, not the file: the ledger
	// counts (the drift finding says so), and BMAD skips such a story too
	eff := ledgerSt
	if !inFlight(ledgerSt) && ledgerSt != workflow.StatusDone && ledgerSt != workflow.StatusUnknown && inFlight(fileSt) {
		eff = fileSt
	}
	c := workflow.Candidate{
		Key:      id,
		Workflow: workflow.DefSDC,
		Stories:  []string{id},
		// no state status: the ledger/file comparison is the drift finding
		// below (validate's story vocabulary is v4's)
		StoryRefs:   []workflow.StoryRef{{ID: id, Path: file}},
		Status:      string(eff),
		StatusRaw:   e.Raw,
		UpdatedAt:   s.mtime,
		UpdatedFrom: "mtime",
		Framework:   Framework,
		Context: map[string]any{
			"bmad_story_key":          e.Key,
			"bmad_ledger":             s.path,
			"story_folder":            s.folder,
			"story_location_declared": s.declared,
		},
		Findings: fileFindings,
	}
	if file != "" {
		c.Context["story_file"] = file
	}
	if s.cfg.Version != "" {
		c.Context["bmad_version"] = s.cfg.Version
	}
	if e.Comment != "" {
		c.Context["ledger_comment"] = e.Comment
	}
	if sf != nil {
		var open []any
		for _, t := range sf.Tasks {
			if t.Review && !t.Done && len(open) < 50 {
				open = append(open, oneLine(t.Text))
			}
		}
		if len(open) > 0 {
			c.Context["open_review_followups"] = open
		}
	}
	switch eff {
	case workflow.StatusInProgress:
		c.Type, c.ID, c.Resumable = workflow.TypeSDC, "sdc:"+id, true
		c.Source = workflow.SourceRef{Kind: workflow.KindBMADLedger, Path: s.path, Priority: workflow.PriorityInProgress}
	case workflow.StatusInReview:
		c.Type, c.ID, c.Resumable = workflow.TypeQAReview, "qa-review:"+id, true
		c.Source = workflow.SourceRef{Kind: workflow.KindBMADLedger, Path: s.path, Priority: workflow.PriorityInReview}
	default:
		c.Type, c.ID = workflow.TypeStory, "story:"+id
		c.Source = workflow.SourceRef{Kind: workflow.KindBMADLedger, Path: s.path, Priority: workflow.PriorityOtherStory}
	}
	line := e.Lines[len(e.Lines)-1]
	if ledgerSt == workflow.StatusUnknown && !e.Archive {
		c.Findings = append(c.Findings, workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Info, Code: "unknown-status", Path: s.path, Line: line,
			Message: fmt.Sprintf("story %s: ledger status %q has no canonical meaning (shown as unknown)", e.Key, e.Raw)})
	}
	if len(e.Values) > 1 {
		var vals []string
		for i, v := range e.Values {
			vals = append(vals, fmt.Sprintf("%q (line %d)", v, e.Lines[i]))
		}
		c.Findings = append(c.Findings, workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Warning, Code: "duplicate-ledger-key", Path: s.path, Line: line,
			Message: fmt.Sprintf("story %s is listed %d times in the ledger: %s; the last one counts", e.Key, len(e.Values), strings.Join(vals, ", "))})
		if c.Resumable {
			c.Findings = append(c.Findings, workflow.Finding{Check: workflow.CheckConflict, Severity: workflow.Blocking, Code: "duplicate-ledger-key", Path: s.path, Line: line,
				Message: fmt.Sprintf("story %s has %d ledger values; autopilot does not resume it (fix the ledger, or --force)", e.Key, len(e.Values))})
		}
	}
	if file == "" {
		sev := workflow.Warning
		if c.Resumable {
			sev = workflow.Blocking
		}
		c.Findings = append(c.Findings, workflow.Finding{Check: workflow.CheckIntegrity, Severity: sev, Code: "no_file_beyond_backlog", Path: s.path, Line: line,
			Message: fmt.Sprintf("story %s is %s in the ledger but has no story file under %s", e.Key, e.Raw, orNone(s.folder))})
	}
	var pd *pendingDrift
	if sf != nil {
		if f, ok := drift(e, ledgerSt, fileSt, sf, file); ok {
			pd = &pendingDrift{finding: len(c.Findings), file: file, fileMT: fileMT}
			c.Findings = append(c.Findings, f)
		}
		if sf.StatusOther != "" {
			c.Findings = append(c.Findings, workflow.Finding{Check: workflow.CheckConsistency, Severity: workflow.Warning, Code: "status-lines-disagree", Path: file,
				Message: fmt.Sprintf("the story file has two status lines: %q (line %d, used) and %q", sf.Status, sf.StatusLine, sf.StatusOther)})
		}
	}
	if sf != nil {
		s.register(id, file, sf, fileSt, fileMT)
	}
	s.files2(&c, file, sf)
	if c.Resumable {
		c.Resume = s.resume(e, id, eff, file, sf)
		c.Position = workflow.StepPosition(c.Resume.Done, c.Resume.Total, c.Resume.Item)
	}
	return c, pd, true
}

// storyID is the candidate id of a key: its numeric segments, settled by
// the file's "# Story X.Y.Z" heading for three-segment keys; the key
// itself when it has no id ("qa-1-smoke").
func storyID(key string, sf *StoryFile) string {
	id := StoryID(key)
	if id == "" {
		return key
	}
	if sf != nil && sf.HeadingID != "" && strings.Count(id, ".") >= 2 {
		if strings.HasPrefix(id+".", sf.HeadingID+".") {
			return sf.HeadingID
		}
	}
	return id
}

// files2 fills the referenced files: ledger, story file, its .context.xml,
// the File List.
func (s *ledgerScan) files2(c *workflow.Candidate, file string, sf *StoryFile) {
	set := source.NewFileSet(nil)
	set.Add(workflow.RefFile{Path: s.path, Critical: true, From: "ledger"})
	if file != "" {
		set.Add(workflow.RefFile{Path: file, Critical: true, From: "story"})
		ctx := strings.TrimSuffix(file, ".md") + ".context.xml"
		if s.r.Exists(ctx) {
			set.Add(workflow.RefFile{Path: ctx, From: "context"})
		}
	}
	if sf != nil {
		for _, p := range sf.FileList {
			set.Add(workflow.RefFile{Path: p, Phase: "implement", Produced: true, From: "file-list"})
		}
	}
	set.Finish(c, s.path)
}

// drift compares the ledger and the file (see docs/ARCHITECTURE.md for the
// table). The message ends with "the ledger counts"; nameNewer adds which
// side is newer once every drift of the ledger is known (one git query).
func drift(e Entry, ledgerSt, fileSt workflow.Status, sf *StoryFile, file string) (workflow.Finding, bool) {
	if sf.Status == "" {
		return workflow.Finding{}, false
	}
	if ledgerSt == fileSt && (ledgerSt != workflow.StatusUnknown || Token(e.Raw) == Token(sf.Status)) {
		return workflow.Finding{}, false
	}
	sev := workflow.Info
	code := "ledger-drift"
	meaning := "the ledger and the story file disagree"
	switch {
	case ledgerSt == workflow.StatusInProgress && (fileSt == workflow.StatusReady || fileSt == workflow.StatusDraft || fileSt == workflow.StatusBacklog):
		return workflow.Finding{}, false // an interrupted dev-story: 6.0 writes the file only at the end
	case ledgerSt == workflow.StatusDone && fileSt == workflow.StatusInReview:
		meaning = "the story file was not updated after the review"
	case ledgerSt == workflow.StatusInProgress && fileSt == workflow.StatusInReview:
		sev, meaning = workflow.Warning, "the review sent the story back"
		if sf.Outcome != "" {
			meaning += " (review outcome: " + sf.Outcome + ")"
		}
		if e.Comment != "" {
			meaning += " (ledger comment: " + e.Comment + ")"
		}
	case fileSt == workflow.StatusDone && ledgerSt != workflow.StatusDone:
		sev, code, meaning = workflow.Warning, "ledger-lags", "the ledger lags the story file"
	}
	return workflow.Finding{Check: workflow.CheckConsistency, Severity: sev, Code: code, Path: file,
		Message: fmt.Sprintf("story %s: ledger says %q, the story file says %q: %s", e.Key, e.Raw, sf.Status, meaning)}, true
}

// pendingDrift is a drift finding whose newer side is not named yet.
type pendingDrift struct {
	cand, finding int // indexes into the ledger's candidates and its findings
	file          string
	fileMT        time.Time
}

// nameNewer completes the drift findings with the side that changed last:
// by git when both the ledger and the story file are as committed (the
// ledger's last commit stands for its line's: a story file last changed at
// or before it is stale, a later one means the ledger lags), else by
// modification time, and the message says which was used.
func (s *ledgerScan) nameNewer(cs []workflow.Candidate, drifts []pendingDrift) {
	if len(drifts) == 0 {
		return
	}
	paths := []string{s.path}
	for _, d := range drifts {
		paths = append(paths, d.file)
	}
	stamps := s.r.CommitTimes(paths)
	ledgerStamp, ledgerOK := stamps[s.path]
	for _, d := range drifts {
		f := &cs[d.cand].Findings[d.finding]
		f.Message += "; " + newerSide(s.path, d.file, ledgerStamp, stamps[d.file], ledgerOK, stamps != nil, s.mtime, d.fileMT) + "; the ledger counts"
	}
}

// newerSide names the side that changed last and how that was decided.
func newerSide(ledger, file string, ls, fs source.Stamp, ledgerOK, git bool, ledgerMT, fileMT time.Time) string {
	if git && ledgerOK && !fs.When.IsZero() {
		basis := fmt.Sprintf("by git: the story file's last commit %s %s, the ledger's %s %s",
			strings.TrimPrefix(fs.From, "git:"), fs.When.UTC().Format(time.RFC3339), strings.TrimPrefix(ls.From, "git:"), ls.When.UTC().Format(time.RFC3339))
		if fs.When.After(ls.When) {
			return "the story file changed after the ledger (" + basis + "): the ledger may lag"
		}
		if fs.From == ls.From && fs.When.Equal(ls.When) {
			return fmt.Sprintf("the ledger and the story file last changed in the same commit %s %s (by git): the file is stale",
				strings.TrimPrefix(fs.From, "git:"), fs.When.UTC().Format(time.RFC3339))
		}
		return "the ledger changed after the story file or with it (" + basis + "): the file is stale"
	}
	why := "no git"
	switch {
	case git && !ledgerOK:
		why = ledger + " differs from its last commit"
	case git:
		why = file + " differs from its last commit"
	}
	basis := "by modification time: " + why
	switch {
	case fileMT.After(ledgerMT):
		return "the story file changed after the ledger (" + basis + "): the ledger may lag"
	case ledgerMT.After(fileMT):
		return "the ledger changed after the story file (" + basis + "): the file is stale"
	}
	return "the ledger and the story file have the same modification time (" + basis + ")"
}

// resume is the point inside the story where work stopped and the
// framework's own next command.
func (s *ledgerScan) resume(e Entry, id string, eff workflow.Status, file string, sf *StoryFile) *workflow.ResumePoint {
	rp := &workflow.ResumePoint{Note: e.Comment}
	target := file
	if target == "" {
		target = e.Key
	}
	if sf != nil {
		rp.Title = sf.Title
		for _, t := range sf.Tasks {
			rp.Total++
			if t.Done {
				rp.Done++
			}
		}
		rp.Holes = holes(sf.Tasks)
		if rp.Note == "" && sf.Outcome != "" {
			rp.Note = "Senior Developer Review: " + sf.Outcome
		}
	}
	switch {
	case eff == workflow.StatusInReview:
		rp.Item = "code review"
		rp.FrameworkCommand = s.spell.Command("code-review") + " " + target
	case sf == nil:
		rp.Item = "create story"
		rp.FrameworkCommand = s.spell.Command("create-story") + " " + e.Key
	default:
		rp.FrameworkCommand = s.spell.Command("dev-story") + " " + target
		var pick *Task
		if sf.Reviewed {
			for i := range sf.Tasks {
				if t := &sf.Tasks[i]; t.Review && !t.Done {
					pick = t
					break
				}
			}
		}
		if pick != nil {
			rp.Item = fmt.Sprintf("AI-Review %d", pick.Followup)
			rp.Section = pick.Section
			if rp.Section == "" {
				rp.Section = "Review Follow-ups (AI)"
			}
		} else {
			for i := range sf.Tasks {
				if t := &sf.Tasks[i]; !t.Done && !t.Review {
					pick = t
					break
				}
			}
			if pick != nil {
				rp.Item = fmt.Sprintf("task %d", pickIndex(sf.Tasks, pick))
				rp.Section = "Tasks / Subtasks"
				if pick.Section != "" {
					rp.Section += " > " + pick.Section
				}
			}
		}
		if pick != nil {
			rp.Title = oneLine(pick.Text)
			rp.Labels = pick.Labels
			if m := taskNum().FindStringSubmatch(pick.Text); m != nil && !pick.Review {
				rp.Item = m[1]
				if rest := oneLine(strings.TrimLeft(pick.Text[len(m[0]):], ":.-– ")); rest != "" {
					rp.Title = rest
				}
			}
		}
		if pick == nil {
			rp.Item = "completion"
			rp.Title = "every task is ticked: finish the story and set it to review"
		}
	}
	s.compare(rp, e, eff)
	return rp
}

func pickIndex(ts []Task, p *Task) int {
	for i := range ts {
		if &ts[i] == p {
			return i + 1
		}
	}
	return 0
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}
