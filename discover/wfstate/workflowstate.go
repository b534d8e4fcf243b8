// Package wfstate is the workflow-state format: orchestrate's own workflow
// states, nexos story checkpoints, AIOS/AIOX workflow states and the AIOS
// unified session state. WorkflowStateSource finds them and Build lays the
// recorded phases on the workflow definition they belong to. Adding a
// framework means adding one format package like this one and one line to
// discover.DefaultSources (see docs/ARCHITECTURE.md).
package wfstate

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/par"
	"github.com/orchestrate-dev/orchestrate/internal/pathglob"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// WorkflowStateSource finds workflow state files (priority 3): our
// own `.orchestrate/workflows/<execution id>.yaml`, nexos checkpoints under
// `.nexos/workflow-state/`, AIOS/AIOX workflow states and the AIOS unified
// session state `docs/stories/.session-state.yaml`. Files that belong to the
// epic source (an epic glob, or a top-level `epic_state`) and `.bak` twins
// are skipped.
var WorkflowStateSource source.Source = source.Format{FormatKind: workflow.KindWorkflowState, FormatPriority: workflow.PriorityWorkflow, ScanFunc: scanWorkflowStates}

// scanWorkflowStates reads every configured workflow-state file. Each file is one
// candidate; a file that cannot be read or decoded is a candidate with status
// "unreadable" and a blocking parse finding. All findings are attached to
// their candidate.
func scanWorkflowStates(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
	files := r.Glob(r.Config.Sources.WorkflowState, false)
	out := make([]workflow.Candidate, len(files))
	keep := make([]bool, len(files))
	var sc *stateCache
	if len(files) > 0 {
		sc = openStateCache(r, files)
	}
	epics := epicPatterns(r.Config.Sources.Epic)
	forEach(len(files), func(i int) { out[i], keep[i] = scanWorkflowState(r, sc, epics, files[i]) })
	sc.save()
	n := 0
	for i := range out {
		if keep[i] {
			out[n] = out[i]
			n++
		}
	}
	clear(out[n:])
	if n == 0 {
		return nil, nil
	}
	return out[:n:n], nil
}

// scanWorkflowState reads one workflow-state file into its candidate;
// false when the file is not this source's (a .bak twin, an epic's). sc
// (nil: none) is the scan's state cache; epics the epic source's patterns
// (epicPatterns).
func scanWorkflowState(r *source.Repo, sc *stateCache, epics []string, file string) (workflow.Candidate, bool) {
	if strings.HasSuffix(file, ".bak") || wfMatchesAny(epics, file) {
		return workflow.Candidate{}, false
	}
	var c workflow.Candidate
	var st stateRead
	if sc != nil {
		st = sc.decode(r, file)
	} else {
		st.entries = -1
		st.m, st.readErr, st.decodeErr = decodeState(r, file)
	}
	switch {
	case st.built:
		c = st.cand
		finishScan(r, sc, &c, file, true)
		return c, true
	case st.readErr != nil:
		c = Unreadable(file, source.ReadFinding(file, st.readErr))
	case st.decodeErr != nil:
		c = Unreadable(file, source.DecodeFinding(file, st.decodeErr))
	default:
		if _, epic := st.m["epic_state"]; epic {
			sc.keep(file, &st, nil)
			return workflow.Candidate{}, false // the epic source owns it
		}
		if st.entries < 0 {
			st.entries = tolerant.CountEntries(st.m, maxStateEntries)
		}
		if terr := tooManyEntriesN(st.entries); terr != nil {
			sc.keep(file, &st, nil)
			c = Unreadable(file, source.DecodeFinding(file, terr))
		} else {
			c = Build(file, st.m, r.Definition)
			sc.keep(file, &st, &c) // before the scan adds to it
			finishScan(r, sc, &c, file, true)
			return c, true
		}
	}
	finishScan(r, sc, &c, file, false)
	return c, true
}

// Reading and decoding state files on workers: below minParallelStates
// files one goroutine is as fast; each worker takes stateChunk files at a
// time.
var (
	minParallelStates = 16
	maxStateWorkers   = 4
	stateChunk        = 4
)

// forEach calls fn(0) … fn(n-1), on up to maxStateWorkers goroutines (no
// more than the processors) when n is at least minParallelStates; it
// returns when every call has. Each call writes only its own index's
// results, so the order of the results is the files' order.
func forEach(n int, fn func(i int)) {
	par.For(n, par.Options{Workers: maxStateWorkers, Chunk: stateChunk, Min: minParallelStates}, fn)
}

// FinishScan adds what depends on the repository: the file time when the
// state records none, the .bak twin, and the story files of named stories.
func FinishScan(r *source.Repo, c *workflow.Candidate, file string) {
	finishScan(r, nil, c, file, false)
}

// finishScan is FinishScan; built says c is Build's, just made: its files
// are its set's output, its own (source.AddToSorted). sc (nil: none) is
// the scan's state cache, whose open folder tells a missing .bak twin
// (stateCache.missing).
func finishScan(r *source.Repo, sc *stateCache, c *workflow.Candidate, file string, built bool) {
	if c.UpdatedAt.IsZero() {
		if mt := r.ModTime(file); !mt.IsZero() {
			c.UpdatedAt, c.UpdatedFrom = mt, "mtime"
		}
	}
	if bak := file + ".bak"; !sc.missing(bak) && r.Exists(bak) {
		c.BackupPath = file + ".bak"
	}
	if len(r.Stories) == 0 || len(c.StoryRefs) == 0 {
		return
	}
	phase := source.CurrentPhaseID(c)
	var add []workflow.RefFile
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
		add = append(add, workflow.RefFile{Path: st.Path, Phase: phase, Critical: !done, From: "story"})
	}
	if built {
		c.Files = source.AddToSorted(c.Files, add)
	} else {
		c.Files = source.WithFiles(c.Files, add)
	}
}

// epicPatterns is the epic source's patterns as wfMatchesAny matches them:
// cleaned, without a leading "/" (made once a scan, not once a file).
func epicPatterns(patterns []string) []string {
	out := make([]string, len(patterns))
	for i, p := range patterns {
		out[i] = strings.TrimPrefix(path.Clean("/"+p), "/")
	}
	return out
}

// wfMatchesAny reports whether file matches one of patterns
// (epicPatterns).
func wfMatchesAny(patterns []string, file string) bool {
	for _, p := range patterns {
		if pathglob.Match(p, file) {
			return true
		}
	}
	return false
}

// ParseWorkflowState parses one workflow-state file (any of the layouts of
// the workflow states orchestrate reads: ours, a nexos story checkpoint, AIOS/AIOX workflow state, the
// AIOS session state) into a candidate. defs looks workflow definitions up by
// id (nil: the built-in ones). It never fails: a file that does not decode is
// a candidate with status "unreadable" and a blocking parse finding. The
// findings returned are the candidate's own (also in Candidate.Findings).
// Parts that need the repository (file time, story files, .bak twin) are
// added by Scan.
func ParseWorkflowState(path string, data []byte, defs func(id string) workflow.Definition) (workflow.Candidate, []workflow.Finding) {
	m, err := tolerant.DecodeYAMLMap(data)
	if err == nil {
		err = tooManyEntries(m)
	}
	if err != nil {
		c := Unreadable(path, source.DecodeFinding(path, err))
		return c, c.Findings
	}
	c := Build(path, m, defs)
	return c, c.Findings
}

// maxStateEntries is the most list and mapping entries a state holds in
// all (stories, phases, outputs, fields): real states hold dozens, and a
// files list alone is read up to source.MaxFiles (with a finding past it).
const maxStateEntries = 5 * tolerant.MaxElements

// tooManyEntries refuses a state holding more than maxStateEntries entries.
func tooManyEntries(m map[string]any) error {
	return tooManyEntriesN(tolerant.CountEntries(m, maxStateEntries))
}

// tooManyEntriesN is tooManyEntries for a state that holds n entries
// (tolerant.CountEntries(m, maxStateEntries)).
func tooManyEntriesN(n int) error {
	if n > maxStateEntries {
		return &tolerant.DecodeError{Code: "too-many", Msg: fmt.Sprintf("more than the %s entries (stories, phases, outputs, fields) orchestrate reads in one state; the file is not read",
			workflow.Thousands(maxStateEntries))}
	}
	return nil
}

// Unreadable is the candidate of a state file that cannot be read or decoded.
func Unreadable(file string, f workflow.Finding) workflow.Candidate {
	src := workflow.SourceRef{Kind: workflow.KindWorkflowState, Path: file, Priority: workflow.PriorityWorkflow}
	return source.Unreadable(src, workflow.TypeWorkflow, "workflow", storyid.Sanitize(source.Stem(file)), "", f)
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

// wfStateLists are the phase-recording fields of workflow states.
var wfStateLists = []source.RecList{
	{Key: "phases_completed", Dflt: workflow.PhaseCompleted},
	{Key: "phasesCompleted", Dflt: workflow.PhaseCompleted},
	{Key: "completed_phases", Dflt: workflow.PhaseCompleted},
	{Key: "completedPhases", Dflt: workflow.PhaseCompleted},
	{Key: "phaseResults", Dflt: workflow.PhasePending},
	{Key: "phase_results", Dflt: workflow.PhasePending},
	{Key: "steps", Dflt: workflow.PhasePending},
}

// wfStoryRefs accumulates the stories a state names.
type wfStoryRefs struct {
	refs  []workflow.StoryRef
	index map[string]int
}

func (w *wfStoryRefs) add(raw, status, file string) {
	id, p := storyid.FromRef(raw)
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
func (w *wfStoryRefs) addValue(f *source.Fields, key string, v any, status string) {
	switch t := v.(type) {
	case nil:
	case []any:
		for _, it := range t {
			if _, nestedList := it.([]any); nestedList {
				f.Wrong(key+"[]", "a story id", it)
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
		w.add(id, st, refpath.CleanPath(p))
	default:
		s, ok := tolerant.ScalarString(v)
		if !ok {
			f.Wrong(key, "a story id", v)
			return
		}
		w.add(s, status, "")
	}
}

// wfDoc is a decoded workflow state file with the mappings Build reads
// its fields from.
type wfDoc struct {
	file string
	f    *source.Fields
	m    map[string]any   // the state (a wrapper such as engine_state removed)
	srcs []map[string]any // m, then its nested "workflow" mapping
	// optional sub-mappings
	nested, progress, lastAction, epicProgress map[string]any
	session                                    bool // the AIOS unified session state
	// finished says which field ended the workflow when its status does not
	finished workflow.Finding
}

// wfOpen unwraps a top-level wrapper mapping (session_state, workflow_state,
// engine_state, any single one: see source.Unwrap) and picks out the sub-mappings the fields are read from.
func wfOpen(file string, m map[string]any) *wfDoc {
	d := &wfDoc{file: file, f: &source.Fields{Path: file}}
	var key string
	m, key = source.Unwrap(m)
	d.session = key == "session_state"
	d.m, d.srcs = m, []map[string]any{m}
	d.nested, _ = m["workflow"].(map[string]any)
	if d.nested != nil {
		d.srcs = append(d.srcs, d.nested)
	}
	d.progress, _ = m["progress"].(map[string]any)
	d.lastAction, _ = m["last_action"].(map[string]any)
	d.epicProgress, _ = m["epic_progress"].(map[string]any)
	return d
}

// Build turns a decoded state file into a candidate.
func Build(file string, m map[string]any, defs func(string) workflow.Definition) workflow.Candidate {
	if defs == nil {
		builtin := source.BuiltinDefinitions()
		defs = func(id string) workflow.Definition { return builtin[id] }
	}
	d := wfOpen(file, m)
	c := workflow.Candidate{
		Type:    workflow.TypeWorkflow,
		Source:  workflow.SourceRef{Kind: workflow.KindWorkflowState, Path: file, Priority: workflow.PriorityWorkflow},
		Stories: []string{},
	}
	wfID := d.workflowID()
	firstStory := d.stories(&c)
	if d.session && wfID == "" {
		wfID = wfAIOSDevCycle.ID // the unified session state tracks the development cycle
	}
	d.identify(&c, wfID, firstStory)
	var status string
	c.StatusRaw, status = d.status()
	d.plainFields(&c)

	cur, hasCur := d.currentPhase(&status)
	recs := source.Recorded(d.f, d.srcs, wfStateLists)
	def := wfResolveDef(wfID, defs, recs, cur, hasCur)
	c.Workflow = wfID
	if def.ID != "" && len(def.Phases) > 0 {
		c.Workflow = def.ID
	}
	if c.Type == workflow.TypeWorkflow && def.ID != "" {
		if t := source.TypeOf(def.ID); t != workflow.TypeWorkflow {
			c.Type = t
		}
	}
	lastOut := wfPhases(&c, def, recs, cur, hasCur)
	if status == "" && allPhasesDone(c.Phases) && (c.Position.Total > 0 || enumerates(recs)) {
		status = "completed"
		c.Findings = append(c.Findings, source.FinishedFinding(file, "phases", "all completed"))
	}
	d.setStatus(&c, status)
	d.files(&c, lastOut)
	c.Findings = append(c.Findings, d.f.Findings...)
	return c
}

// workflowID is the workflow id the state names (at most 200 bytes).
func (d *wfDoc) workflowID() string {
	f, m := d.f, d.m
	wfID := ""
	if d.nested != nil {
		wfID = f.Str(m, "workflowId", "workflow_id")
		if wfID == "" {
			wfID = f.Str(d.nested, "id", "workflow_id", "workflowId", "name")
		}
	} else {
		wfID = f.Str(m, "workflowId", "workflow_id", "workflow")
	}
	if len(wfID) > 200 {
		wfID = wfID[:200]
	}
	return wfID
}

// stories fills the candidate's stories and returns the one the workflow
// is on: the single story, else the current one, else the first listed.
func (d *wfDoc) stories(c *workflow.Candidate) string {
	f, m := d.f, d.m
	var stories wfStoryRefs
	for _, k := range []string{"stories", "story", "storyId", "story_id", "current_story", "currentStory"} {
		if v, ok := m[k]; ok {
			stories.addValue(f, k, v, "")
		}
	}
	if ep := d.epicProgress; ep != nil {
		stories.addValue(f, "epic_progress.completed_stories", ep["completed_stories"], "done")
		stories.addValue(f, "epic_progress.next_story", ep["next_story"], "pending")
		stories.addValue(f, "epic_progress.remaining_stories", ep["remaining_stories"], "pending")
		stories.addValue(f, "epic_progress.aborted_at_story", ep["aborted_at_story"], "")
	}
	if pr := d.progress; pr != nil {
		stories.addValue(f, "progress.current_story", pr["current_story"], "")
		stories.addValue(f, "progress.stories_done", pr["stories_done"], "done")
		stories.addValue(f, "progress.stories_pending", pr["stories_pending"], "pending")
	}
	if d.lastAction != nil {
		stories.addValue(f, "last_action.story", d.lastAction["story"], "")
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
	for _, k := range []string{"story", "storyId", "story_id", "current_story", "currentStory"} {
		if s, ok := tolerant.ScalarString(m[k]); ok && s != "" {
			if id, _ := storyid.FromRef(s); id != "" {
				return id
			}
		}
	}
	return firstStory
}

// identify sets the candidate's key, id and type: the execution id, else
// the workflow id and story, else the file name.
func (d *wfDoc) identify(c *workflow.Candidate, wfID, firstStory string) {
	key := d.f.Str(d.m, "execution_id", "executionId", "id")
	if key == "" && wfID != "" && firstStory != "" {
		key = wfID + "-" + firstStory
	}
	if key == "" {
		key = source.Stem(d.file)
	}
	c.Key = storyid.Sanitize(key)
	c.ID = "workflow:" + c.Key
	c.Type = source.TypeOf(wfID)
}

// status is the state's status as written and normalised: the status
// field, else aborted_at / paused_at, else the last action ("" when none
// says).
func (d *wfDoc) status() (raw, status string) {
	f, m := d.f, d.m
	raw, _ = source.Str(f, d.srcs, "status", "state")
	status = workflow.NormalizeStateStatus(raw)
	pausedAt := f.Has(m, "paused_at", "pausedAt")
	abortedAt := f.Has(m, "aborted_at", "abortedAt")
	switch {
	case abortedAt:
		status = "aborted"
	case status != "":
	case pausedAt:
		status = "paused"
	}
	if status == "" {
		if k, v := source.FinishedBy(d.srcs); k != "" {
			status = "completed"
			d.finished = source.FinishedFinding(d.file, k, v)
		}
	}
	if status == "" && d.lastAction != nil {
		switch strings.ToUpper(f.Str(d.lastAction, "type")) {
		case "PAUSE":
			status = "paused"
		case "ABORT":
			status = "aborted"
		}
	}
	return raw, status
}

// plainFields reads the times, mode, commit, agent, AI session and saved
// context.
func (d *wfDoc) plainFields(c *workflow.Candidate) {
	f, srcs := d.f, d.srcs
	c.UpdatedAt, c.UpdatedFrom = source.Time(f, srcs, "updated_at", "updatedAt", "lastUpdated", "last_updated", "paused_at", "pausedAt", "aborted_at", "abortedAt")
	if c.UpdatedFrom != "" {
		c.UpdatedFrom = "field:" + c.UpdatedFrom
	}
	c.StartedAt, _ = source.Time(f, srcs, "started_at", "startedAt", "created_at", "createdAt")
	c.Mode, _ = source.Str(f, srcs, "mode", "execution_mode", "executionMode")
	c.Mode = source.Mode(c.Mode)
	c.Commit, _ = source.Str(f, srcs, "base_commit", "baseCommit", "commit", "git_commit", "gitCommit", "head_commit")
	c.Agent, _ = source.Str(f, srcs, "current_agent", "currentAgent")
	c.Agent = strings.TrimPrefix(c.Agent, "@")
	c.AISessionID, _ = source.Str(f, srcs, "ai_session_id", "aiSessionId")
	for _, k := range []string{"context", "accumulatedContext", "accumulated_context", "context_snapshot"} {
		if ctx := f.Map(d.m, k); ctx != nil {
			c.Context = ctx
			break
		}
	}
}

// currentPhase reads the current phase (current_phase, else the last
// action's phase). A pseudo-phase naming the workflow's end (paused,
// aborted, completed) is no phase: it sets the status when none is set.
func (d *wfDoc) currentPhase(status *string) (source.PhaseRef, bool) {
	var cur source.PhaseRef
	hasCur := false
	for _, src := range d.srcs {
		if v, k, ok := tolerant.Lookup(src, []string{"current_phase", "currentPhase"}); ok {
			if ref, ok := source.ParseRef(v); ok {
				cur, hasCur = ref, true
			} else {
				d.f.Wrong(k, "a phase number or name", v)
			}
			break
		}
	}
	if !hasCur && d.lastAction != nil {
		cur, hasCur = source.ParseRef(d.lastAction["phase"])
	}
	if !hasCur {
		return cur, false
	}
	end := ""
	switch source.Norm(cur.Raw) {
	case "workflow_paused":
		end = "paused"
	case "workflow_aborted":
		end = "aborted"
	default:
		if !source.IsFinishedWord(cur.Raw) {
			return cur, true
		}
		end = "completed"
	}
	if *status == "" {
		*status = end
	}
	return cur, false
}

// setStatus sets the candidate's status (an info finding when the state
// records none) and, when no agent is named, the current phase's agent.
func (d *wfDoc) setStatus(c *workflow.Candidate, status string) {
	if status == "" {
		status = "unknown"
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: workflow.Info, Code: "no-status", Path: d.file,
			Message: "the state records no status (nor paused_at); treated as interrupted",
		})
	}
	if d.finished.Code != "" {
		c.Findings = append(c.Findings, d.finished)
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
}

// files collects the referenced files: phase outputs (the last one
// critical), then the lists of referenced files, then the stories' files.
func (d *wfDoc) files(c *workflow.Candidate, lastOut string) {
	f, m := d.f, d.m
	set := source.NewFileSetFor(fileListsLen(m) + len(c.StoryRefs))
	for _, p := range c.Phases {
		for _, o := range p.Outputs {
			if op, ok := refpath.Output(o); ok {
				set.Add(workflow.RefFile{Path: op, Phase: p.ID, Critical: p.ID == lastOut, Produced: true, From: "phases_completed"})
			}
		}
	}
	phase := source.CurrentPhaseID(c)
	for _, k := range []string{"files", "files_changed", "filesChanged", "changed_files"} {
		if v, ok := m[k]; ok {
			source.FileList(f, set, k, v, phase)
		}
	}
	if ctx, ok := m["context"].(map[string]any); ok {
		if v, ok := ctx["files"]; ok {
			source.FileList(f, set, "context.files", v, phase)
		}
	}
	if v, ok := m["artifacts"]; ok {
		source.FileList(f, set, "artifacts", v, phase)
	}
	for _, r := range c.StoryRefs {
		if r.Path != "" {
			done := r.Status == "done" || r.Status == "completed"
			set.Add(workflow.RefFile{Path: r.Path, Phase: phase, Critical: !done, From: "story"})
		}
	}
	set.Finish(c, d.file)
}

// fileListsLen is how many entries the state's file lists hold (the keys
// files reads), to size its set.
func fileListsLen(m map[string]any) int {
	n := 0
	for _, k := range []string{"files", "files_changed", "filesChanged", "changed_files", "artifacts"} {
		if l, ok := m[k].([]any); ok {
			n += len(l)
		}
	}
	if ctx, ok := m["context"].(map[string]any); ok {
		if l, ok := ctx["files"].([]any); ok {
			n += len(l)
		}
	}
	return n
}

// allPhasesDone reports whether a state lists phases and every one is
// completed or skipped (none current or pending).
func allPhasesDone(ps []workflow.Phase) bool {
	if len(ps) == 0 {
		return false
	}
	for _, p := range ps {
		if p.Status != workflow.PhaseCompleted && p.Status != workflow.PhaseSkipped {
			return false
		}
	}
	return true
}

// enumerates reports whether the recorded phases come from a list that
// names every phase with its status (steps, phaseResults), not only the
// completed ones.
func enumerates(recs []source.Rec) bool {
	for _, r := range recs {
		switch r.From {
		case "steps", "phaseResults", "phase_results":
		default:
			return false
		}
	}
	return len(recs) > 0
}
