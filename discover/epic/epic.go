// Package epic is the epic execution state format (`epic_state:` YAML or
// JSON): EpicSource finds the state files, ParseEpicState and Parse read
// waves, stories and phases into a candidate. Adding a framework means adding
// one format package like this one and one line to discover.DefaultSources
// (see docs/ARCHITECTURE.md).
package epic

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// EpicSource finds epic execution states (priority 1): the files
// of the configured epic globs, plus workflow-state files whose top-level
// mapping holds an "epic_state" key (AIOX keeps both in .aiox/*-state.yaml).
var EpicSource source.Source = source.Format{FormatKind: workflow.KindEpicState, FormatPriority: workflow.PriorityEpic, ScanFunc: scanEpics}

// maxEpicEntries is the most waves and stories one epic state lists: real
// epics list dozens of waves and some hundreds of stories. Merging a
// wave's stories compares each with those before it, so this bound, not
// tolerant.MaxElements, keeps a file's cost to milliseconds.
const maxEpicEntries = tolerant.MaxElements / 4

// EpicStateKey is the top-level key that wraps an epic execution state and
// tells it apart from a workflow state in a shared folder.
const EpicStateKey = "epic_state"

// scanEpics reads every epic state file. A file that cannot be read or decoded
// still yields a candidate carrying the blocking parse finding.
func scanEpics(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
	def := r.Definition(workflow.DefEpic)
	seen := map[string]bool{}
	var files []string
	for _, p := range r.Glob(r.Config.Sources.Epic, false) {
		if !source.IsBackup(p) && !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	pc := openPeekCache(r)
	defer pc.close()
	for _, p := range r.Glob(r.Config.Sources.WorkflowState, false) {
		if source.IsBackup(p) || seen[p] || pc.skip(p) {
			continue
		}
		data, err := r.Peek(p) // the scan's budget is drawn from only to decode
		if err != nil {
			continue // not known to be an epic: the workflow-state source reports it
		}
		if !mayHoldEpicKey(data) {
			r.Keep(p, data, nil) // the workflow-state source decodes these very bytes
			continue
		}
		if r.Spend(p, data) != nil {
			continue // the workflow-state source reports the spent budget
		}
		m, err := source.DecodeMap(p, data, false)
		if err != nil {
			continue
		}
		if _, ok := m[EpicStateKey]; ok {
			seen[p] = true
			files = append(files, p)
		}
	}
	sort.Strings(files)
	out := make([]workflow.Candidate, 0, len(files))
	budget := tolerant.NewBudget() // the waves and stories of all the files
	for _, p := range files {
		c := epicScanFile(r, p, def)
		if n := epicSize(c); !budget.Take(n) {
			c = epicUnreadable(p, source.DecodeFinding(p, budget.Err(n, "waves and stories")))
			source.StampMTime(r, &c, p)
		}
		out = append(out, c)
	}
	return out, nil
}

// epicSize is the number of waves and stories a candidate holds.
func epicSize(c workflow.Candidate) int {
	if c.Epic == nil {
		return 0
	}
	n := len(c.Epic.Waves)
	for _, w := range c.Epic.Waves {
		n += len(w.Stories)
	}
	return n
}

// mayHoldEpicKey reports whether data can decode to a mapping with an
// EpicStateKey key. A key is the text written, unless it is escaped (a
// backslash in a quoted key or a JSON string) or tagged (!!binary, %TAG), so
// text with none of the three cannot hold the key and need not be decoded.
func mayHoldEpicKey(data []byte) bool {
	return bytes.Contains(data, []byte(EpicStateKey)) || bytes.IndexByte(data, '\\') >= 0 || bytes.IndexByte(data, '!') >= 0
}

// epicScanFile reads and parses one epic state, then adds what needs the
// file system: the modification time, the .bak twin and story paths.
func epicScanFile(r *source.Repo, p string, def workflow.Definition) workflow.Candidate {
	var c workflow.Candidate
	ok := false
	data, err := r.Read(p)
	if err != nil {
		c = epicUnreadable(p, source.ReadFinding(p, err))
	} else {
		c, ok = Parse(p, data, def)
	}
	source.StampMTime(r, &c, p)
	if bak := p + ".bak"; r.Exists(bak) {
		c.BackupPath = bak
		if !ok {
			if bd, err := r.Read(bak); err == nil {
				if _, bok := Parse(bak, bd, def); bok {
					c.Findings = append(c.Findings, workflow.Finding{
						Check:    workflow.CheckParse,
						Severity: workflow.Info,
						Code:     "backup-available",
						Message:  fmt.Sprintf("%s cannot be used but its backup %s parses", p, bak),
						Path:     bak,
					})
				}
			}
		}
	}
	if ok {
		AddStoryFiles(&c, func(id string) string {
			if s := r.Stories[id]; s != nil {
				return s.Path
			}
			return ""
		})
	}
	return c
}

// ParseEpicState parses an epic execution state (YAML, or JSON for a .json
// path) without touching the file system. It always returns one candidate:
// a file that does not decode gives a candidate with status "unreadable"
// carrying the blocking parse finding. The findings returned are the ones
// also attached to the candidate (c.Findings); do not add them twice.
func ParseEpicState(path string, data []byte) (workflow.Candidate, []workflow.Finding) {
	c, _ := Parse(path, data, source.BuiltinDefinitions()[workflow.DefEpic])
	return c, c.Findings
}

// epicStory is a story named by an epic state, with the wave the state puts
// it in (hasWave false when it does not say; waves may be numbered from 0).
type epicStory struct {
	ref     workflow.StoryRef
	wave    int
	hasWave bool
}

// Parse is ParseEpicState with the epic definition in force; ok is false
// when the file did not decode.
func Parse(p string, data []byte, def workflow.Definition) (workflow.Candidate, bool) {
	m, err := source.DecodeMap(p, data, false)
	if err != nil {
		return epicUnreadable(p, source.DecodeFinding(p, err)), false
	}
	f := &source.Fields{Path: p}
	st := m
	if f.Has(m, EpicStateKey) {
		if inner := f.Map(m, EpicStateKey); inner != nil {
			st = source.Overlay(m, inner, EpicStateKey)
		}
	} else {
		st, _ = source.Unwrap(m)
	}

	if n := epicCount(st); n > maxEpicEntries {
		return epicUnreadable(p, source.DecodeFinding(p, tolerant.TooManyElements(n, maxEpicEntries, "waves and stories"))), false
	}

	epicID := epicIDField(f, st)
	if epicID == "" {
		epicID = epicIDFromPath(p)
	}
	c := workflow.Candidate{
		ID:       "epic:" + epicID,
		Type:     workflow.TypeEpic,
		Key:      epicID,
		Source:   workflow.SourceRef{Kind: workflow.KindEpicState, Path: p, Priority: workflow.PriorityEpic},
		Workflow: workflow.DefEpic,
	}
	source.ReadStatus(f, st, p, &c)
	c.Resumable = !workflow.IsTerminalStatus(c.Status)
	source.StateCommon(f, st, &c)

	planPath, planKey := source.PathField(f, st, "executionPlan", "execution_plan", "plan", "plan_path", "planPath")

	// waves, then the stories listed at the top level with a wave each
	waves, waveIdx := epicWaves(f, st)
	var loose []epicStory
	if v, ok := st["stories"]; ok && v != nil {
		for _, s := range epicStories(f, v, "stories") {
			if s.hasWave {
				i, ok := waveIdx[s.wave]
				if !ok {
					waves = append(waves, workflow.Wave{Number: s.wave})
					i = len(waves) - 1
					waveIdx[s.wave] = i
				}
				waves[i].Stories = epicMergeStory(waves[i].Stories, s.ref)
				continue
			}
			if !epicFillInWaves(waves, s.ref) {
				loose = append(loose, s)
			}
		}
	}
	sort.SliceStable(waves, func(i, j int) bool { return waves[i].Number < waves[j].Number })
	for i := range waves {
		if waves[i].Status == "" {
			waves[i].Status = DeriveWaveStatus(waves[i])
		}
	}

	// current wave: the recorded one, else the first wave not completed.
	// Waves keep their own numbers (0-based, gaps); a recorded 0 means "not
	// started" unless the state lists a wave 0.
	cur, curKey, hasCur := epicCurrentWave(f, st)
	if hasCur && cur == 0 {
		if _, ok := epicWaveByNumber(waves, 0); !ok {
			hasCur = false
		}
	}
	allDone := false
	if !hasCur {
		cur = 0
		found := false
		for _, w := range waves {
			if !Finished(w.Status) {
				cur, found = w.Number, true
				break
			}
		}
		if !found && len(waves) > 0 {
			cur = waves[len(waves)-1].Number
			allDone = true
		}
	} else if len(waves) > 0 {
		if _, ok := epicWaveByNumber(waves, cur); !ok {
			c.Findings = append(c.Findings, workflow.Finding{
				Check:    workflow.CheckParse,
				Severity: workflow.Warning,
				Code:     "unknown-wave",
				Message:  fmt.Sprintf("field %s names wave %d, which the state does not list", curKey, cur),
				Path:     p,
			})
		}
	}

	c.Epic = &workflow.Epic{EpicID: epicID, PlanPath: refpath.KeepUnsafe(planPath), CurrentWave: cur, Waves: waves}
	c.Position = WavePosition(waves, cur)
	if allDone {
		c.Position.Done, c.Position.At = c.Position.Total, ""
		if !workflow.IsTerminalStatus(c.Status) {
			c.Position.Name, c.Position.At = "Final Gate", "Final Gate"
		}
	}

	// stories and their refs, sorted unique
	refs := map[string]workflow.StoryRef{}
	var order []string
	add := func(r workflow.StoryRef) {
		old, ok := refs[r.ID]
		if !ok {
			order = append(order, r.ID)
			refs[r.ID] = r
			return
		}
		epicFillRef(&old, r)
		refs[r.ID] = old
	}
	for _, w := range waves {
		for _, s := range w.Stories {
			add(s)
		}
	}
	for _, s := range loose {
		add(s.ref)
	}
	sort.Strings(order)
	for _, id := range order {
		c.Stories = append(c.Stories, id)
		c.StoryRefs = append(c.StoryRefs, refs[id])
	}

	c.Phases = Phases(def, waves, cur, allDone, c.Status)

	if planPath != "" {
		c.Files = source.AddFile(c.Files, workflow.RefFile{Path: refpath.KeepUnsafe(planPath), Phase: "waves", Critical: true, From: planKey})
	}
	AddStoryFiles(&c, nil)
	for _, rf := range source.RefFiles(f, st, "waves", "files") {
		c.Files = source.AddFile(c.Files, rf)
	}

	c.Findings = append(c.Findings, f.Findings...)
	return c, true
}

// epicUnreadable is the candidate of an epic state that cannot be read or
// decoded: named after its file, resumable so the user sees it, position
// unknown.
func epicUnreadable(p string, finding workflow.Finding) workflow.Candidate {
	id := epicIDFromPath(p)
	src := workflow.SourceRef{Kind: workflow.KindEpicState, Path: p, Priority: workflow.PriorityEpic}
	c := source.Unreadable(src, workflow.TypeEpic, "epic", id, workflow.DefEpic, finding)
	c.Stories = nil
	c.Epic = &workflow.Epic{EpicID: id}
	return c
}

// epicIDField reads the epic id: epicId, epic_id, epic (text, or a mapping
// with an id) or id.
func epicIDField(f *source.Fields, st map[string]any) string {
	id, _ := f.TextOrMap(st, []string{"epicId", "epic_id", "epicID", "epic", "id"}, []string{"id", "epicId", "epic_id", "key"}, "text")
	return id
}

// epicIDFromPath derives an epic id from a state file name: the * of
// epic-*-state.yaml, else the file stem without "-state".
func epicIDFromPath(p string) string {
	stem := source.StateStem(p)
	id := strings.TrimSuffix(stem, "-state")
	id = strings.TrimSuffix(id, "_state")
	if s := strings.TrimPrefix(id, "epic-"); s != "" {
		id = s
	}
	if id == "" {
		id = stem
	}
	if id == "" {
		id = "unknown"
	}
	return id
}

var epicDigitsRe = lazyre.New(`\d+`)

// WavePosition is the position of wave number cur among waves: "2/7 done,
// at wave 3" resumes at the 3rd of the 7 waves the state lists; the item is
// the wave's own number ("at wave 2" for the 3rd of waves numbered from 0).
// A wave the state does not list gives its number with no total.
func WavePosition(waves []workflow.Wave, cur int) workflow.Position {
	for i, w := range waves {
		if w.Number == cur {
			p := workflow.Position{Kind: workflow.PosWave, Index: i + 1, Done: i, Total: len(waves), At: fmt.Sprintf("wave %d", w.Number)}
			if w.Number != i+1 {
				p.Name = fmt.Sprintf("Wave %d", w.Number)
			}
			return p
		}
	}
	if cur > 0 {
		return workflow.Position{Kind: workflow.PosWave, Index: cur, Done: doneWaves(waves), Total: len(waves), At: fmt.Sprintf("wave %d", cur)}
	}
	return workflow.Position{Kind: workflow.PosWave, Done: doneWaves(waves), Total: len(waves)}
}

// doneWaves counts the waves the state says are finished.
func doneWaves(waves []workflow.Wave) int {
	n := 0
	for _, w := range waves {
		if Finished(w.Status) {
			n++
		}
	}
	return n
}

// epicNumber reads a wave number (0 or more: waves may be numbered from 0):
// an integer, numeric text, text with a number in it ("wave-2", "W3"), or a
// mapping with number|wave|id.
func epicNumber(v any) (int, bool) {
	if n, ok := tolerant.ToInt(v); ok {
		return n, n >= 0
	}
	switch t := v.(type) {
	case string:
		ds := epicDigitsRe().FindAllString(t, -1)
		if len(ds) == 0 {
			return 0, false
		}
		n, err := strconv.Atoi(ds[len(ds)-1])
		if err != nil || n < 0 || n > 1<<31-1 {
			return 0, false
		}
		return n, true
	case map[string]any:
		for _, k := range []string{"number", "wave", "id"} {
			if x, ok := t[k]; ok && x != nil {
				if _, nested := x.(map[string]any); nested {
					continue
				}
				return epicNumber(x)
			}
		}
	}
	return 0, false
}

// Finished reports whether a normalised wave or story status means the
// work needs nothing more.
func Finished(s string) bool {
	switch s {
	case "completed", "complete", "done", "skipped", "approved", "merged", "closed", "cancelled", "passed", "pass", "waived":
		return true
	}
	return false
}

// DeriveWaveStatus infers the status of a wave that records none from
// its stories: all finished → completed, some started → in_progress, else
// pending ("" without stories).
func DeriveWaveStatus(w workflow.Wave) string {
	if len(w.Stories) == 0 {
		return ""
	}
	done, started := 0, false
	for _, s := range w.Stories {
		switch {
		case Finished(s.Status):
			done++
			started = true
		case s.Status != "" && s.Status != "pending":
			started = true
		}
	}
	switch {
	case done == len(w.Stories):
		return "completed"
	case started:
		return "in_progress"
	}
	return "pending"
}

// Phases renders the waves as phases, followed by the final gate.
func Phases(def workflow.Definition, waves []workflow.Wave, cur int, allDone bool, status string) []workflow.Phase {
	waveAgent, gateAgent, gateName := "pm", "qa", "Final Gate"
	if i := def.Index("waves"); i >= 0 {
		waveAgent = def.Phases[i].Agent
	}
	if i := def.Index("final-gate"); i >= 0 {
		gateAgent, gateName = def.Phases[i].Agent, def.Phases[i].Name
	}
	var out []workflow.Phase
	for _, w := range waves {
		ps := workflow.PhasePending
		switch {
		case w.Status == "skipped":
			ps = workflow.PhaseSkipped
		case Finished(w.Status):
			ps = workflow.PhaseCompleted
		case w.Number == cur:
			ps = workflow.PhaseCurrent
		}
		out = append(out, workflow.Phase{ID: fmt.Sprintf("wave-%d", w.Number), Name: fmt.Sprintf("Wave %d", w.Number), Agent: waveAgent, Status: ps})
	}
	gs := workflow.PhasePending
	switch {
	case status == "completed" || status == "complete" || status == "done":
		gs = workflow.PhaseCompleted
	case allDone:
		gs = workflow.PhaseCurrent
	}
	return append(out, workflow.Phase{ID: "final-gate", Name: gateName, Agent: gateAgent, Status: gs})
}

// AddStoryFiles adds the story files of the current and later waves:
// the recorded path, else lookup(id) when lookup is set. Incomplete stories
// of the current wave are critical.
func AddStoryFiles(c *workflow.Candidate, lookup func(id string) string) {
	if c.Epic == nil {
		return
	}
	cur := c.Epic.CurrentWave
	for _, w := range c.Epic.Waves {
		if w.Number < cur {
			continue
		}
		for _, s := range w.Stories {
			p, from := s.Path, "waves"
			if p == "" && lookup != nil {
				p, from = refpath.KeepUnsafe(lookup(s.ID)), "story"
			}
			if p == "" {
				continue
			}
			c.Files = source.AddFile(c.Files, workflow.RefFile{
				Path:     p,
				Phase:    "waves",
				Critical: w.Number == cur && !Finished(s.Status),
				From:     from,
			})
		}
	}
}
