package discover

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/pathglob"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// WorkflowStateSource finds workflow state files (DESIGN §3, priority 3): our
// own `.orchestrate/workflows/<execution id>.yaml`, nexos checkpoints under
// `.nexos/workflow-state/`, AIOS/AIOX workflow states and the AIOS unified
// session state `docs/stories/.session-state.yaml`. Files that belong to the
// epic source (an epic glob, or a top-level `epic_state`) and `.bak` twins
// are skipped.
type WorkflowStateSource struct{}

// Kind is workflow.KindWorkflowState.
func (WorkflowStateSource) Kind() string { return workflow.KindWorkflowState }

// Priority is workflow.PriorityWorkflow.
func (WorkflowStateSource) Priority() int { return workflow.PriorityWorkflow }

// Scan reads every configured workflow-state file. Each file is one
// candidate; a file that cannot be read or decoded is a candidate with status
// "unreadable" and a blocking parse finding. All findings are attached to
// their candidate.
func (WorkflowStateSource) Scan(r *Repo) ([]workflow.Candidate, []workflow.Finding) {
	var out []workflow.Candidate
	for _, file := range r.Glob(r.Config.Sources.WorkflowState, false) {
		if strings.HasSuffix(file, ".bak") || wfMatchesAny(r.Config.Sources.Epic, file) {
			continue
		}
		var c workflow.Candidate
		data, err := r.Read(file)
		if err != nil {
			c = wfUnreadable(file, ReadFinding(file, err))
		} else if m, derr := DecodeYAMLMap(data); derr != nil {
			c = wfUnreadable(file, DecodeFinding(file, derr))
		} else {
			if _, epic := m["epic_state"]; epic {
				continue // the epic source owns it
			}
			c = wfBuild(file, m, r.Definition)
		}
		wfFinishScan(r, &c, file)
		out = append(out, c)
	}
	return out, nil
}

// wfFinishScan adds what depends on the repository: the file time when the
// state records none, the .bak twin, and the story files of named stories.
func wfFinishScan(r *Repo, c *workflow.Candidate, file string) {
	if c.UpdatedAt.IsZero() {
		if mt := r.ModTime(file); !mt.IsZero() {
			c.UpdatedAt, c.UpdatedFrom = mt, "mtime"
		}
	}
	if r.Exists(file + ".bak") {
		c.BackupPath = file + ".bak"
	}
	if len(r.Stories) == 0 || len(c.StoryRefs) == 0 {
		return
	}
	phase := wfCurrentPhaseID(c)
	set := wfNewFileSet(c.Files)
	for i := range c.StoryRefs {
		ref := &c.StoryRefs[i]
		st, ok := r.Stories[ref.ID]
		if !ok || st == nil || st.Path == "" {
			continue
		}
		if ref.Path == "" {
			ref.Path = st.Path
		}
		done := ref.Status == "done" || ref.Status == "completed"
		set.add(workflow.RefFile{Path: st.Path, Phase: phase, Critical: !done, From: "story"})
	}
	c.Files = set.sorted()
}

func wfMatchesAny(patterns []string, file string) bool {
	for _, p := range patterns {
		if pathglob.Match(strings.TrimPrefix(path.Clean("/"+p), "/"), file) {
			return true
		}
	}
	return false
}

// ParseWorkflowState parses one workflow-state file (any of the layouts of
// DESIGN §3: ours, a nexos story checkpoint, AIOS/AIOX workflow state, the
// AIOS session state) into a candidate. defs looks workflow definitions up by
// id (nil: the built-in ones). It never fails: a file that does not decode is
// a candidate with status "unreadable" and a blocking parse finding. The
// findings returned are the candidate's own (also in Candidate.Findings).
// Parts that need the repository (file time, story files, .bak twin) are
// added by Scan.
func ParseWorkflowState(path string, data []byte, defs func(id string) workflow.Definition) (workflow.Candidate, []workflow.Finding) {
	m, err := DecodeYAMLMap(data)
	if err != nil {
		c := wfUnreadable(path, DecodeFinding(path, err))
		return c, c.Findings
	}
	c := wfBuild(path, m, defs)
	return c, c.Findings
}

// wfUnreadable is the candidate of a state file that cannot be read or decoded.
func wfUnreadable(file string, f workflow.Finding) workflow.Candidate {
	key := wfSanitizeID(wfStem(file))
	return workflow.Candidate{
		ID:        "workflow:" + key,
		Type:      workflow.TypeWorkflow,
		Key:       key,
		Source:    workflow.SourceRef{Kind: workflow.KindWorkflowState, Path: file, Priority: workflow.PriorityWorkflow},
		Stories:   []string{},
		Status:    "unreadable",
		Resumable: true,
		Findings:  []workflow.Finding{f},
	}
}

// wfStem is the file name without its extension (and without a leading dot).
func wfStem(file string) string {
	base := path.Base(strings.ReplaceAll(file, `\`, "/"))
	if i := strings.LastIndex(base, "."); i > 0 {
		base = base[:i]
	}
	base = strings.TrimLeft(base, ".")
	if base == "" {
		base = "state"
	}
	return base
}

// wfSanitizeID keeps an id usable on a command line and in file names:
// letters, digits and ._:@+- are kept, anything else becomes '-'.
func wfSanitizeID(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.TrimSpace(s) {
		ok := r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._:@+-", r))
		if !ok {
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
				dash = true
			}
			continue
		}
		b.WriteRune(r)
		dash = r == '-'
		if b.Len() >= 128 {
			break
		}
	}
	out := strings.Trim(b.String(), "-.")
	if out == "" {
		out = "state"
	}
	return out
}

// wfTypeOf maps a workflow id to the candidate type.
func wfTypeOf(id string) workflow.Type {
	switch wfNorm(id) {
	case "story_development_cycle", "sdc", "development_cycle":
		return workflow.TypeSDC
	case "qa_loop":
		return workflow.TypeQALoop
	case "spec_pipeline":
		return workflow.TypeSpec
	case "epic_orchestration", "execute_epic", "epic_execution", "execute_epic_plan":
		return workflow.TypeEpic
	}
	return workflow.TypeWorkflow
}

// wfAliasDef is the built-in definition id a workflow id stands for.
func wfAliasDef(id string) string {
	switch wfTypeOf(id) {
	case workflow.TypeSDC:
		return workflow.DefSDC
	case workflow.TypeQALoop:
		return workflow.DefQALoop
	case workflow.TypeSpec:
		return workflow.DefSpec
	case workflow.TypeEpic:
		return workflow.DefEpic
	}
	return ""
}

// wfAIOSDevCycle is the AIOS development cycle (workflow id
// "development-cycle", phases 1_validation … 6_checkpoint), used when the
// repository has no definition for it.
var wfAIOSDevCycle = workflow.Definition{
	ID: "development-cycle", Name: "Development Cycle", Source: "builtin",
	Phases: []workflow.PhaseDef{
		{ID: "validation", Name: "validation", Agent: "po", Next: "development"},
		{ID: "development", Name: "development", Agent: "dev", Next: "self_healing"},
		{ID: "self_healing", Name: "self_healing", Agent: "dev", Next: "quality_gate"},
		{ID: "quality_gate", Name: "quality_gate", Agent: "qa", Next: "push"},
		{ID: "push", Name: "push", Agent: "devops", Next: "checkpoint"},
		{ID: "checkpoint", Name: "checkpoint", Agent: "po"},
	},
}

// wfNorm lower-cases and turns '-', ' ' and '.' into '_' for comparisons.
func wfNorm(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer("-", "_", " ", "_", ".", "_").Replace(s)
	for strings.Contains(s, "__") {
		s = strings.ReplaceAll(s, "__", "_")
	}
	return s
}

// wfPhaseRef is a phase as a state file names it: a 1-based number, a name,
// or both ("3_self_healing").
type wfPhaseRef struct {
	Raw  string
	Num  int
	Name string
}

var (
	wfNumRe     = regexp.MustCompile(`^(?i:phase[\s_-]*)?(\d{1,4})$`)
	wfNumNameRe = regexp.MustCompile(`^(\d{1,4})[_\-. ]+(\S.*)$`)
)

func wfParseRef(v any) (wfPhaseRef, bool) {
	s, ok := scalarString(v)
	if !ok || s == "" {
		return wfPhaseRef{}, false
	}
	if len(s) > 200 {
		s = s[:200]
	}
	ref := wfPhaseRef{Raw: s}
	if m := wfNumRe.FindStringSubmatch(s); m != nil {
		n, _ := toInt(m[1])
		ref.Num = n
		return ref, true
	}
	if m := wfNumNameRe.FindStringSubmatch(s); m != nil {
		n, _ := toInt(m[1])
		ref.Num, ref.Name = n, strings.TrimSpace(m[2])
		return ref, true
	}
	ref.Name = s
	return ref, true
}

// key identifies the ref for de-duplication.
func (p wfPhaseRef) key() string {
	if p.Name != "" {
		return "n:" + wfNorm(p.Name)
	}
	return fmt.Sprintf("#%d", p.Num)
}

// label is the phase's display name.
func (p wfPhaseRef) label() string {
	if p.Name != "" {
		return p.Name
	}
	return p.Raw
}

// wfDefIndex returns the 0-based index of ref in def, or -1.
func wfDefIndex(def workflow.Definition, ref wfPhaseRef) int {
	if ref.Name != "" {
		for _, cand := range []string{ref.Name, ref.Raw} {
			k := wfNorm(cand)
			for i, p := range def.Phases {
				if wfNorm(p.ID) == k || wfNorm(p.Name) == k {
					return i
				}
			}
		}
		return -1
	}
	if ref.Num >= 1 && ref.Num <= len(def.Phases) {
		return ref.Num - 1
	}
	return -1
}

// wfRec is a phase recorded by the state file.
type wfRec struct {
	Ref     wfPhaseRef
	Agent   string
	Outputs []string
	State   string // completed, skipped, active (running/failed), pending
	From    string // the field it came from
}

// wfPhaseState maps a recorded phase status to completed/skipped/active/pending.
func wfPhaseState(raw, dflt string) string {
	switch workflow.NormalizeStateStatus(raw) {
	case "":
		return dflt
	case "completed", "complete", "done", "passed", "pass", "success", "succeeded", "ok", "approved", "go", "finished":
		return workflow.PhaseCompleted
	case "skipped", "skip", "n/a", "na", "not_applicable":
		return workflow.PhaseSkipped
	case "running", "in_progress", "active", "current", "started", "failed", "fail", "error", "retrying", "blocked", "paused", "interrupted":
		return "active"
	}
	return workflow.PhasePending
}

// wfOutputs reads a phase output: text, a list of text, or a list of
// {path} mappings.
func wfOutputs(f *Fields, m map[string]any, keys ...string) []string {
	v, k, ok := lookup(m, keys)
	if !ok {
		return nil
	}
	if s, ok := scalarString(v); ok {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	l, ok := v.([]any)
	if !ok {
		if mm, isMap := v.(map[string]any); isMap {
			if p := f.Str(mm, "path", "file"); p != "" {
				return []string{p}
			}
		}
		f.wrong(k, "text or a list of text", v)
		return nil
	}
	var out []string
	for _, it := range l {
		if s, ok := scalarString(it); ok {
			if s != "" {
				out = append(out, s)
			}
			continue
		}
		if mm, isMap := it.(map[string]any); isMap {
			if p := f.Str(mm, "path", "file"); p != "" {
				out = append(out, p)
			}
			continue
		}
		f.wrong(k+"[]", "text", it)
	}
	return out
}

// wfRecItem reads one recorded phase from a list item or a mapping value.
func wfRecItem(f *Fields, it any, name any, dflt, from string) (wfRec, bool) {
	rec := wfRec{From: from}
	switch t := it.(type) {
	case map[string]any:
		v := name
		if v == nil {
			v, _, _ = lookup(t, []string{"phase", "id", "name", "step", "phase_id", "phaseId"})
		}
		ref, ok := wfParseRef(v)
		if !ok {
			return rec, false
		}
		rec.Ref = ref
		rec.Agent = strings.TrimPrefix(f.Str(t, "agent", "executor"), "@")
		rec.Outputs = wfOutputs(f, t, "output", "outputs", "artifacts", "artifact")
		rec.State = wfPhaseState(f.Str(t, "status", "result", "state"), dflt)
	default:
		if name != nil { // phaseResults: {phase: "completed"}
			ref, ok := wfParseRef(name)
			if !ok {
				return rec, false
			}
			rec.Ref = ref
			s, _ := scalarString(it)
			rec.State = wfPhaseState(s, dflt)
			return rec, true
		}
		ref, ok := wfParseRef(it)
		if !ok {
			f.wrong(from+"[]", "a phase name or a mapping", it)
			return rec, false
		}
		rec.Ref = ref
		rec.State = dflt
	}
	return rec, true
}

// wfRecList is a field that records phases, with the status its items have
// when they give none.
type wfRecList struct {
	key, dflt string
}

// wfStateLists are the phase-recording fields of workflow states.
var wfStateLists = []wfRecList{
	{"phases_completed", workflow.PhaseCompleted},
	{"phasesCompleted", workflow.PhaseCompleted},
	{"completed_phases", workflow.PhaseCompleted},
	{"completedPhases", workflow.PhaseCompleted},
	{"phaseResults", workflow.PhasePending},
	{"phase_results", workflow.PhasePending},
	{"steps", workflow.PhasePending},
}

// wfRecorded collects the phases a state records, in a deterministic order
// (list order; mapping keys by phase number, then name). The first record of
// a phase wins.
func wfRecorded(f *Fields, srcs []map[string]any, lists []wfRecList) []wfRec {
	var out []wfRec
	seen := map[string]bool{}
	add := func(r wfRec) {
		if seen[r.Ref.key()] || len(out) >= 1000 {
			return
		}
		seen[r.Ref.key()] = true
		out = append(out, r)
	}
	for _, m := range srcs {
		for _, l := range lists {
			v, ok := m[l.key]
			if !ok || v == nil {
				continue
			}
			switch t := v.(type) {
			case []any:
				for _, it := range t {
					if r, ok := wfRecItem(f, it, nil, l.dflt, l.key); ok {
						add(r)
					}
				}
			case map[string]any:
				keys := make([]string, 0, len(t))
				for k := range t {
					keys = append(keys, k)
				}
				sort.Slice(keys, func(i, j int) bool { return wfRefLess(keys[i], keys[j]) })
				dflt := l.dflt
				if dflt == workflow.PhasePending {
					dflt = workflow.PhaseCompleted // a phase with a result ran
				}
				for _, k := range keys {
					if r, ok := wfRecItem(f, t[k], k, dflt, l.key); ok {
						add(r)
					}
				}
			default:
				f.wrong(l.key, "a list or a mapping of phases", v)
			}
		}
	}
	return out
}

// wfRefLess orders phase keys by their number prefix, then by text.
func wfRefLess(a, b string) bool {
	ra, _ := wfParseRef(a)
	rb, _ := wfParseRef(b)
	if ra.Num != rb.Num {
		if ra.Num == 0 || rb.Num == 0 {
			return ra.Num != 0
		}
		return ra.Num < rb.Num
	}
	return a < b
}

// wfStr reads text from the first source map holding one of keys, and the
// key it used.
func wfStr(f *Fields, srcs []map[string]any, keys ...string) (string, string) {
	for _, m := range srcs {
		if s, k := f.StrKey(m, keys...); k != "" {
			return s, k
		}
	}
	return "", ""
}

func wfTime(f *Fields, srcs []map[string]any, keys ...string) (time.Time, string) {
	for _, m := range srcs {
		if t, k := f.Time(m, keys...); k != "" {
			return t, k
		}
	}
	return time.Time{}, ""
}

// wfStoryRefs accumulates the stories a state names.
type wfStoryRefs struct {
	refs  []workflow.StoryRef
	index map[string]int
}

var wfStoryNumRe = regexp.MustCompile(`^(\d+(?:\.\d+)+)`)

// wfStoryID turns a story reference (an id, or a story file path) into an id
// and the path when it was one.
func wfStoryID(s string) (id, file string) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 512 || strings.ContainsAny(s, "\n\r\x00") {
		return "", ""
	}
	if strings.Contains(s, "/") || strings.HasSuffix(strings.ToLower(s), ".md") {
		file = wfCleanPath(s)
		base := path.Base(file)
		base = strings.TrimSuffix(base, path.Ext(base))
		base = strings.TrimSuffix(base, ".story")
		if m := wfStoryNumRe.FindStringSubmatch(base); m != nil {
			return m[1], file
		}
		return base, file
	}
	return s, ""
}

func (w *wfStoryRefs) add(raw, status, file string) {
	id, p := wfStoryID(raw)
	if id == "" {
		return
	}
	if file == "" {
		file = p
	}
	if w.index == nil {
		w.index = map[string]int{}
	}
	status = workflow.NormalizeStateStatus(status)
	if i, ok := w.index[id]; ok {
		r := &w.refs[i]
		if r.Status == "" {
			r.Status = status
		}
		if r.Path == "" {
			r.Path = file
		}
		return
	}
	w.index[id] = len(w.refs)
	w.refs = append(w.refs, workflow.StoryRef{ID: id, Status: status, Path: file})
}

// addValue adds a story field holding an id, a path, a {id,status,path}
// mapping or a list of those.
func (w *wfStoryRefs) addValue(f *Fields, key string, v any, status string) {
	switch t := v.(type) {
	case nil:
	case []any:
		for _, it := range t {
			if _, nestedList := it.([]any); nestedList {
				f.wrong(key+"[]", "a story id", it)
				continue
			}
			w.addValue(f, key+"[]", it, status)
		}
	case map[string]any:
		id := f.Str(t, "id", "story_id", "storyId", "story", "key")
		p := f.Str(t, "path", "file", "story_file", "storyFile")
		if id == "" {
			id = p
		}
		st := f.Str(t, "status")
		if st == "" {
			st = status
		}
		w.add(id, st, wfCleanPath(p))
	default:
		s, ok := scalarString(v)
		if !ok {
			f.wrong(key, "a story id", v)
			return
		}
		w.add(s, status, "")
	}
}

// wfCleanPath trims and cleans a referenced path without judging it: an
// unsafe path stays unsafe for validation to report.
func wfCleanPath(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	p = strings.ReplaceAll(p, `\`, "/")
	for { // cleaning can expose spaces ("a /" -> "a "): repeat until stable
		next := strings.TrimSpace(path.Clean(p))
		if next == p {
			break
		}
		p = next
	}
	if p == "." || p == "" {
		return ""
	}
	return p
}

// wfLooksLikePath tells a file path from a description ("validated story",
// a URL): it must name a folder or have an extension, on one line.
func wfLooksLikePath(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 1024 || strings.ContainsAny(s, "\n\r") || strings.Contains(s, "://") {
		return false
	}
	if strings.ContainsAny(s, "/\\") {
		return !strings.Contains(s, ": ")
	}
	ext := path.Ext(s)
	if len(ext) < 2 || len(ext) > 9 || strings.Contains(s, " ") {
		return false
	}
	for _, r := range ext[1:] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// wfOutputPath reads a phase output as a path, dropping trailing
// commentary ("docs/stories/4.2.md (Draft)", "spec.md - revised"); ok is
// false for a description or a URL.
func wfOutputPath(s string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, sep := range []string{" (", " - ", " — ", " # "} {
		if i := strings.Index(s, sep); i > 0 {
			s = strings.TrimSpace(s[:i])
		}
	}
	s = strings.Trim(s, "`'\"")
	return s, wfLooksLikePath(s)
}

// wfMode canonicalises the mode a workflow was started in: autopilot,
// interactive or preflight (AIOS "yolo" is autopilot); others are kept
// lower-cased.
func wfMode(s string) string {
	m := strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(strings.TrimSpace(s)))
	switch m {
	case "autopilot", "yolo", "auto":
		return "autopilot"
	case "interactive":
		return "interactive"
	case "preflight":
		return "preflight"
	}
	return strings.ToLower(strings.TrimSpace(s))
}

// wfMaxFiles bounds the referenced files one state file contributes.
const wfMaxFiles = 20000

// wfFileSet collects referenced files, one entry per cleaned path: a path
// seen twice stays critical / produced if either reference says so. It holds
// at most wfMaxFiles entries and counts the ones it drops.
type wfFileSet struct {
	files   []workflow.RefFile
	index   map[string]int
	dropped int
}

func wfNewFileSet(files []workflow.RefFile) *wfFileSet {
	s := &wfFileSet{index: map[string]int{}}
	for _, f := range files {
		s.add(f)
	}
	return s
}

func (s *wfFileSet) add(f workflow.RefFile) {
	f.Path = wfCleanPath(f.Path)
	if f.Path == "" {
		return
	}
	if i, ok := s.index[f.Path]; ok {
		e := &s.files[i]
		e.Critical = e.Critical || f.Critical
		e.Produced = e.Produced || f.Produced
		if e.Hash == "" {
			e.Hash = f.Hash
		}
		if e.Phase == "" {
			e.Phase = f.Phase
		}
		return
	}
	if len(s.files) >= wfMaxFiles {
		s.dropped++
		return
	}
	s.index[f.Path] = len(s.files)
	s.files = append(s.files, f)
}

// sorted returns the files sorted by path.
func (s *wfFileSet) sorted() []workflow.RefFile {
	wfSortFiles(s.files)
	return s.files
}

func wfSortFiles(files []workflow.RefFile) {
	sort.SliceStable(files, func(i, j int) bool { return files[i].Path < files[j].Path })
}

// wfFileList reads a list of referenced files into set: paths, {path,
// hash|blob} mappings, or a mapping of lists (created/modified; deleted ones
// skipped).
func wfFileList(f *Fields, set *wfFileSet, key string, v any, phase string) {
	add := func(p, hash string) {
		set.add(workflow.RefFile{Path: p, Phase: phase, Hash: hash, From: key})
	}
	switch t := v.(type) {
	case nil:
	case []any:
		for _, it := range t {
			switch x := it.(type) {
			case map[string]any:
				p := f.Str(x, "path", "file", "name")
				if p == "" {
					f.wrong(key+"[]", "a mapping with a path", x)
					continue
				}
				add(p, f.Str(x, "hash", "blob", "sha", "blob_hash", "git_hash"))
			default:
				s, ok := scalarString(x)
				if !ok {
					f.wrong(key+"[]", "a path", x)
					continue
				}
				add(s, "")
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch wfNorm(k) {
			case "deleted", "removed":
				continue
			}
			switch x := t[k].(type) {
			case []any:
				wfFileList(f, set, key+"."+k, x, phase)
			case string:
				if wfLooksLikePath(x) {
					add(x, "")
				} else {
					f.wrong(key+"."+k, "a list of paths", x)
				}
			default:
				f.wrong(key+"."+k, "a list of paths", x)
			}
		}
	default:
		if s, ok := scalarString(t); ok && wfLooksLikePath(s) {
			add(s, "")
			return
		}
		f.wrong(key, "a list of paths", v)
	}
}

// wfBuild turns a decoded state file into a candidate.
func wfBuild(file string, m map[string]any, defs func(string) workflow.Definition) workflow.Candidate {
	if defs == nil {
		builtin := BuiltinDefinitions()
		defs = func(id string) workflow.Definition { return builtin[id] }
	}
	f := &Fields{Path: file}
	// unwrap a top-level session_state / workflow_state mapping
	session := false
	for _, k := range []string{"session_state", "workflow_state"} {
		if inner, ok := m[k].(map[string]any); ok {
			session = k == "session_state"
			m = inner
			break
		}
	}
	srcs := []map[string]any{m}
	nested, _ := m["workflow"].(map[string]any)
	if nested != nil {
		srcs = append(srcs, nested)
	}
	progress, _ := m["progress"].(map[string]any)
	lastAction, _ := m["last_action"].(map[string]any)
	epicProgress, _ := m["epic_progress"].(map[string]any)

	c := workflow.Candidate{
		Type:    workflow.TypeWorkflow,
		Source:  workflow.SourceRef{Kind: workflow.KindWorkflowState, Path: file, Priority: workflow.PriorityWorkflow},
		Stories: []string{},
	}

	// workflow id
	wfID := ""
	if nested != nil {
		wfID = f.Str(m, "workflowId", "workflow_id")
		if wfID == "" {
			wfID = f.Str(nested, "id", "workflow_id", "workflowId", "name")
		}
	} else {
		wfID = f.Str(m, "workflowId", "workflow_id", "workflow")
	}
	if len(wfID) > 200 {
		wfID = wfID[:200]
	}

	// stories
	var stories wfStoryRefs
	for _, k := range []string{"stories", "story", "storyId", "story_id", "current_story", "currentStory"} {
		if v, ok := m[k]; ok {
			stories.addValue(f, k, v, "")
		}
	}
	if epicProgress != nil {
		stories.addValue(f, "epic_progress.completed_stories", epicProgress["completed_stories"], "done")
		stories.addValue(f, "epic_progress.next_story", epicProgress["next_story"], "pending")
		stories.addValue(f, "epic_progress.remaining_stories", epicProgress["remaining_stories"], "pending")
		stories.addValue(f, "epic_progress.aborted_at_story", epicProgress["aborted_at_story"], "")
	}
	if progress != nil {
		stories.addValue(f, "progress.current_story", progress["current_story"], "")
		stories.addValue(f, "progress.stories_done", progress["stories_done"], "done")
		stories.addValue(f, "progress.stories_pending", progress["stories_pending"], "pending")
	}
	if lastAction != nil {
		stories.addValue(f, "last_action.story", lastAction["story"], "")
	}
	c.StoryRefs = stories.refs
	for _, r := range stories.refs {
		c.Stories = append(c.Stories, r.ID)
	}
	sort.Strings(c.Stories)
	firstStory := ""
	if len(stories.refs) > 0 {
		firstStory = stories.refs[0].ID
	}
	// the story the workflow is on: the single story, else the current one
	for _, k := range []string{"story", "storyId", "story_id", "current_story", "currentStory"} {
		if s, ok := scalarString(m[k]); ok && s != "" {
			if id, _ := wfStoryID(s); id != "" {
				firstStory = id
				break
			}
		}
	}
	if session && wfID == "" {
		wfID = wfAIOSDevCycle.ID // the unified session state tracks the development cycle
	}

	// id
	key := f.Str(m, "execution_id", "executionId", "id")
	if key == "" && wfID != "" && firstStory != "" {
		key = wfID + "-" + firstStory
	}
	if key == "" {
		key = wfStem(file)
	}
	c.Key = wfSanitizeID(key)
	c.ID = "workflow:" + c.Key
	c.Type = wfTypeOf(wfID)

	// status
	raw, _ := wfStr(f, srcs, "status", "state")
	c.StatusRaw = raw
	status := workflow.NormalizeStateStatus(raw)
	pausedAt := f.Has(m, "paused_at", "pausedAt")
	abortedAt := f.Has(m, "aborted_at", "abortedAt")
	switch {
	case abortedAt:
		status = "aborted"
	case status != "":
	case pausedAt:
		status = "paused"
	}
	if status == "" && lastAction != nil {
		switch strings.ToUpper(f.Str(lastAction, "type")) {
		case "PAUSE":
			status = "paused"
		case "ABORT":
			status = "aborted"
		}
	}

	// times and plain fields
	c.UpdatedAt, c.UpdatedFrom = wfTime(f, srcs, "updated_at", "updatedAt", "lastUpdated", "last_updated", "paused_at", "pausedAt", "aborted_at", "abortedAt")
	if c.UpdatedFrom != "" {
		c.UpdatedFrom = "field:" + c.UpdatedFrom
	}
	c.StartedAt, _ = wfTime(f, srcs, "started_at", "startedAt", "created_at", "createdAt")
	c.Mode, _ = wfStr(f, srcs, "mode", "execution_mode", "executionMode")
	c.Mode = wfMode(c.Mode)
	c.Commit, _ = wfStr(f, srcs, "base_commit", "baseCommit", "commit", "git_commit", "gitCommit", "head_commit")
	c.Agent, _ = wfStr(f, srcs, "current_agent", "currentAgent")
	c.Agent = strings.TrimPrefix(c.Agent, "@")
	c.AISessionID, _ = wfStr(f, srcs, "ai_session_id", "aiSessionId")
	for _, k := range []string{"context", "accumulatedContext", "accumulated_context", "context_snapshot"} {
		if ctx := f.Map(m, k); ctx != nil {
			c.Context = ctx
			break
		}
	}

	// phases
	var cur wfPhaseRef
	hasCur := false
	for _, src := range srcs {
		if v, k, ok := lookup(src, []string{"current_phase", "currentPhase"}); ok {
			if ref, ok := wfParseRef(v); ok {
				cur, hasCur = ref, true
			} else {
				f.wrong(k, "a phase number or name", v)
			}
			break
		}
	}
	if !hasCur && lastAction != nil {
		cur, hasCur = wfParseRef(lastAction["phase"])
	}
	if hasCur {
		switch wfNorm(cur.Raw) {
		case "workflow_paused":
			hasCur = false
			if status == "" {
				status = "paused"
			}
		case "workflow_aborted":
			hasCur = false
			if status == "" {
				status = "aborted"
			}
		case "workflow_completed", "done", "completed":
			hasCur = false
			if status == "" {
				status = "completed"
			}
		}
	}
	recs := wfRecorded(f, srcs, wfStateLists)
	def := wfResolveDef(wfID, defs, recs, cur, hasCur)
	c.Workflow = wfID
	if def.ID != "" && len(def.Phases) > 0 {
		c.Workflow = def.ID
	}
	if c.Type == workflow.TypeWorkflow && def.ID != "" {
		if t := wfTypeOf(def.ID); t != workflow.TypeWorkflow {
			c.Type = t
		}
	}
	lastOut := wfPhases(&c, def, recs, cur, hasCur)

	if status == "" {
		status = "unknown"
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: workflow.Info, Code: "no-status", Path: file,
			Message: "the state records no status (nor paused_at); treated as interrupted",
		})
	}
	c.Status = status
	c.Resumable = !workflow.IsTerminalStatus(status)
	if c.Agent == "" {
		for _, p := range c.Phases {
			if p.Status == workflow.PhaseCurrent {
				c.Agent = p.Agent
			}
		}
	}

	// files: phase outputs, then the lists of referenced files
	set := wfNewFileSet(nil)
	for _, p := range c.Phases {
		for _, o := range p.Outputs {
			if op, ok := wfOutputPath(o); ok {
				set.add(workflow.RefFile{Path: op, Phase: p.ID, Critical: p.ID == lastOut, Produced: true, From: "phases_completed"})
			}
		}
	}
	phase := wfCurrentPhaseID(&c)
	for _, k := range []string{"files", "files_changed", "filesChanged", "changed_files"} {
		if v, ok := m[k]; ok {
			wfFileList(f, set, k, v, phase)
		}
	}
	if ctx, ok := m["context"].(map[string]any); ok {
		if v, ok := ctx["files"]; ok {
			wfFileList(f, set, "context.files", v, phase)
		}
	}
	if v, ok := m["artifacts"]; ok {
		wfFileList(f, set, "artifacts", v, phase)
	}
	for _, r := range c.StoryRefs {
		if r.Path != "" {
			done := r.Status == "done" || r.Status == "completed"
			set.add(workflow.RefFile{Path: r.Path, Phase: phase, Critical: !done, From: "story"})
		}
	}
	if set.dropped > 0 {
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: workflow.Warning, Code: "too-many-files", Path: file,
			Message: fmt.Sprintf("%d referenced files beyond the first %d were ignored", set.dropped, wfMaxFiles),
		})
	}
	c.Files = set.sorted()
	c.Findings = append(c.Findings, f.Findings...)
	return c
}

// wfResolveDef picks the definition the recorded phases belong to: the one
// named, else the built-in one its id stands for; a definition that does not
// know a recorded phase is not used (the phases are then built from the
// record).
func wfResolveDef(id string, defs func(string) workflow.Definition, recs []wfRec, cur wfPhaseRef, hasCur bool) workflow.Definition {
	var cands []workflow.Definition
	if id != "" {
		d := defs(id)
		if d.ID == "" {
			d.ID = id
		}
		cands = append(cands, d)
		if alias := wfAliasDef(id); alias != "" && alias != id {
			cands = append(cands, defs(alias))
		}
		if wfNorm(id) == "development_cycle" {
			cands = append(cands, wfAIOSDevCycle)
		}
	}
	for _, d := range cands {
		if len(d.Phases) == 0 {
			continue
		}
		fits := true
		for _, r := range recs {
			if wfDefIndex(d, r.Ref) < 0 {
				fits = false
				break
			}
		}
		if fits && hasCur && wfDefIndex(d, cur) < 0 && wfNorm(cur.label()) != "checkpoint" {
			fits = false
		}
		if fits {
			return d
		}
	}
	return workflow.Definition{}
}

// wfPhases fills c.Phases and c.Position and returns the id of the last
// completed phase (whose outputs the next phase consumes).
func wfPhases(c *workflow.Candidate, def workflow.Definition, recs []wfRec, cur wfPhaseRef, hasCur bool) string {
	if len(def.Phases) > 0 {
		return wfPhasesFromDef(c, def, recs, cur, hasCur)
	}
	return wfPhasesFromRecord(c, recs, cur, hasCur)
}

// wfPhasesFromRecord builds the phases of a workflow without a usable
// definition from what the state records; the current phase comes last
// unless phase numbers say otherwise.
func wfPhasesFromRecord(c *workflow.Candidate, recs []wfRec, cur wfPhaseRef, hasCur bool) string {
	type item struct {
		p   workflow.Phase
		num int
	}
	var items []item
	listsFuture := false
	curIdx := -1
	for i, r := range recs {
		st := r.State
		if st == workflow.PhasePending {
			listsFuture = true
		}
		items = append(items, item{workflow.Phase{ID: r.Ref.Raw, Name: r.Ref.label(), Agent: r.Agent, Status: st, Outputs: r.Outputs}, r.Ref.Num})
		if hasCur && (r.Ref.key() == cur.key() || (cur.Name == "" && cur.Num > 0 && r.Ref.Num == cur.Num)) {
			curIdx = i
		}
	}
	if hasCur && curIdx < 0 {
		items = append(items, item{workflow.Phase{ID: cur.Raw, Name: cur.label()}, cur.Num})
		curIdx = len(items) - 1
	}
	if !hasCur { // the first running (or failed) phase, else the first pending one
		for _, want := range []string{"active", workflow.PhasePending} {
			for i := range items {
				if curIdx < 0 && items[i].p.Status == want {
					curIdx = i
				}
			}
		}
	}
	for i := range items {
		if items[i].p.Status == "active" {
			items[i].p.Status = workflow.PhasePending
		}
	}
	if curIdx >= 0 {
		items[curIdx].p.Status = workflow.PhaseCurrent
	}
	if len(items) == 0 {
		return ""
	}
	numbered := true
	for _, it := range items {
		if it.num <= 0 {
			numbered = false
		}
	}
	if numbered {
		var curID string
		if curIdx >= 0 {
			curID = items[curIdx].p.ID
		}
		sort.SliceStable(items, func(a, b int) bool { return items[a].num < items[b].num })
		for i := range items {
			if curIdx >= 0 && items[i].p.ID == curID {
				curIdx = i
			}
		}
	}
	last := ""
	for i, it := range items {
		c.Phases = append(c.Phases, it.p)
		if it.p.Status == workflow.PhaseCompleted && (curIdx < 0 || i < curIdx) {
			last = it.p.ID
		}
	}
	total := 0
	if listsFuture {
		total = len(items)
	}
	at := curIdx
	if at < 0 {
		at = len(items) - 1
	}
	index := at + 1
	if numbered || (at == curIdx && hasCur && cur.Num > 0) {
		index = items[at].num
	}
	if total > 0 {
		for _, it := range items {
			if it.num > total { // numbered phases: at least as many as the highest number
				total = it.num
			}
		}
		if index > total {
			total = index
		}
	}
	c.Position = workflow.Position{Kind: workflow.PosPhase, Index: index, Total: total, Name: items[at].p.Name}
	return last
}

func wfPhasesFromDef(c *workflow.Candidate, def workflow.Definition, recs []wfRec, cur wfPhaseRef, hasCur bool) string {
	n := len(def.Phases)
	phases := make([]workflow.Phase, n)
	for i, p := range def.Phases {
		phases[i] = workflow.Phase{ID: p.ID, Name: p.Name, Agent: p.Agent, Status: workflow.PhasePending}
	}
	active := -1
	for _, r := range recs {
		i := wfDefIndex(def, r.Ref)
		if i < 0 {
			continue
		}
		if r.Agent != "" {
			phases[i].Agent = r.Agent
		}
		phases[i].Outputs = append(phases[i].Outputs, r.Outputs...)
		switch r.State {
		case workflow.PhaseCompleted, workflow.PhaseSkipped:
			phases[i].Status = r.State
		case "active":
			if active < 0 {
				active = i
			}
		}
	}
	curIdx := -1
	checkpoint := false
	if hasCur {
		curIdx = wfDefIndex(def, cur)
		if curIdx < 0 && wfNorm(cur.label()) == "checkpoint" {
			// a nexos story checkpoint: the story went through every phase
			checkpoint = true
			for i := range phases {
				if phases[i].Status == workflow.PhasePending {
					phases[i].Status = workflow.PhaseCompleted
				}
			}
			phases = append(phases, workflow.Phase{ID: "checkpoint", Name: "Story Checkpoint", Agent: "po", Status: workflow.PhaseCurrent})
			curIdx = n
			n++
		}
	}
	if curIdx < 0 && active >= 0 {
		curIdx = active
	}
	if curIdx < 0 {
		lastDone := -1
		for i, p := range phases {
			if p.Status == workflow.PhaseCompleted {
				lastDone = i
			}
		}
		for i := lastDone + 1; i < n; i++ {
			if phases[i].Status == workflow.PhasePending {
				curIdx = i
				break
			}
		}
	}
	if !checkpoint {
		wfSkipBefore(phases, curIdx)
	}
	if curIdx >= 0 {
		phases[curIdx].Status = workflow.PhaseCurrent
	}
	c.Phases = phases
	last := ""
	for i, p := range phases {
		if p.Status == workflow.PhaseCompleted && (curIdx < 0 || i < curIdx) {
			last = p.ID
		}
	}
	if curIdx >= 0 {
		c.Position = workflow.Position{Kind: workflow.PosPhase, Index: curIdx + 1, Total: n, Name: phases[curIdx].Name}
	} else {
		c.Position = workflow.Position{Kind: workflow.PosPhase, Index: n, Total: n, Name: phases[n-1].Name}
	}
	return last
}

// wfSkipBefore marks as skipped the pending phases before the current one
// (or, with no current phase, before the last completed one): the state does
// not record them, so they ran before this execution started or were not
// needed.
func wfSkipBefore(phases []workflow.Phase, curIdx int) {
	end := curIdx
	if end < 0 {
		for i, p := range phases {
			if p.Status == workflow.PhaseCompleted {
				end = i
			}
		}
	}
	for i := 0; i < end && i < len(phases); i++ {
		if phases[i].Status == workflow.PhasePending {
			phases[i].Status = workflow.PhaseSkipped
		}
	}
}

// wfCurrentPhaseID is the id of the candidate's current phase, or "".
func wfCurrentPhaseID(c *workflow.Candidate) string {
	for _, p := range c.Phases {
		if p.Status == workflow.PhaseCurrent {
			return p.ID
		}
	}
	return ""
}
