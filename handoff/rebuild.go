package handoff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/orchestrate-dev/orchestrate/discover"
	"github.com/orchestrate-dev/orchestrate/internal/atomicfile"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// CorruptSuffix starts the name of the copy WriteRebuilt keeps of a corrupt
// state file: <file>.corrupt-<UTC time, 20060102T150405Z>.
const CorruptSuffix = ".corrupt-"

// WriteRebuilt replaces the corrupt state file of c, a candidate that
// discover.Rebuild reconstructed (status "rebuilt"), with a fresh state
// marked resumed: status "active", resumed_at now, resume_count 1 (the
// backup's count + 1 when the state came from the .bak twin). The corrupt
// bytes are first copied to <file>.corrupt-<time>, which is never deleted;
// then the state file is replaced atomically. The .bak twin is left as it
// is. Restore on the Backup returned puts the corrupt file back.
//
// The fresh state is the .bak twin's own content when it parses (every field
// the framework wrote is kept), else the rebuilt candidate rendered in the
// layout of its kind: our workflow-state YAML for a workflow state, the
// `epic_state:` YAML for an epic, JSON for a QA loop or a spec pipeline
// state. It refuses (and writes nothing) when the file is not corrupt any
// more — someone repaired or replaced it since discovery — or is a symlink,
// a folder or outside root.
func WriteRebuilt(root string, c workflow.Candidate, now time.Time) (Backup, error) {
	if c.Status != discover.StatusRebuilt {
		return Backup{}, fmt.Errorf("write rebuilt state %s: the candidate is %q, not a rebuilt state", c.Source.Path, c.Status)
	}
	if now.IsZero() {
		return Backup{}, fmt.Errorf("write rebuilt state %s: no time of the rebuild (the caller's clock)", c.Source.Path)
	}
	sf, err := openStateFile(root, c.Source.Path, "write rebuilt state")
	if err != nil {
		return Backup{}, err
	}
	defer sf.Close()
	full, clean, fi := sf.full, sf.clean, sf.info
	if !fi.Mode().IsRegular() {
		return Backup{}, fmt.Errorf("write rebuilt state %s: not a regular file; refusing to replace it", clean)
	}
	corrupt, err := sf.d.ReadFile(sf.name, maxStateSize)
	if err != nil {
		return Backup{}, fmt.Errorf("write rebuilt state %s: %w", clean, err)
	}
	if !rbStillCorrupt(c.Source.Kind, clean, corrupt) {
		return Backup{}, fmt.Errorf("write rebuilt state %s: the file parses now (it was changed since it was found corrupt); run orchestrate resume again", clean)
	}
	wrappers := wrappersFor(c.Source.Kind)
	fresh, err := rbRebuiltContent(root, c, clean, now, wrappers)
	if err != nil {
		return Backup{}, fmt.Errorf("write rebuilt state %s: %w", clean, err)
	}

	b := Backup{Path: full, Original: corrupt, written: fresh, perm: fi.Mode().Perm(), root: root, rel: clean}
	old, had, err := sf.readBak()
	if err != nil {
		return Backup{}, fmt.Errorf("write rebuilt state %s: %w", clean, err)
	}
	b.HadBak, b.OldBak = had, old

	keep, err := rbFreeName(full + CorruptSuffix + now.UTC().Format("20060102T150405Z"))
	if err != nil {
		return Backup{}, fmt.Errorf("write rebuilt state %s: %w", clean, err)
	}
	keepName := filepath.Base(keep)
	if err := atomicfile.WriteIn(sf.d, keepName, corrupt, b.perm); err != nil {
		return Backup{}, fmt.Errorf("write rebuilt state %s: keep the corrupt file: %w", clean, err)
	}
	if err := atomicfile.WriteIn(sf.d, sf.name, fresh, b.perm); err != nil {
		// the state file was not replaced: the copy is not needed
		_ = sf.d.Remove(keepName)
		return Backup{}, fmt.Errorf("write rebuilt state %s: %w", clean, err)
	}
	return b, nil
}

// updateOrRebuild is step 2 of Execute for any candidate: a rebuilt state is
// written afresh (WriteRebuilt), any other is patched (updateState).
func updateOrRebuild(root string, c workflow.Candidate, now time.Time, wrappers []string) (Backup, error) {
	if c.Status == discover.StatusRebuilt {
		return WriteRebuilt(root, c, now)
	}
	return updateState(root, c.Source.Path, now, wrappers, true)
}

// rbFreeName returns p, or p-2, p-3, … when p is taken.
func rbFreeName(p string) (string, error) {
	for i := 1; i <= 100; i++ {
		name := p
		if i > 1 {
			name = fmt.Sprintf("%s-%d", p, i)
		}
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return name, nil
		} else if err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("no free name for %s", p)
}

// rbParseAs parses data with the parser of kind and reports whether it
// decoded.
func rbParseAs(kind, clean string, data []byte) bool {
	var c workflow.Candidate
	switch kind {
	case workflow.KindEpicState:
		c, _ = discover.ParseEpicState(clean, data)
	case workflow.KindQALoop:
		c, _ = discover.ParseQALoop(clean, data)
	case workflow.KindSpec:
		c, _ = discover.ParseSpecState(clean, data)
	default:
		c, _ = discover.ParseWorkflowState(clean, data, nil)
	}
	return c.Status != discover.StatusUnreadable
}

// rbStillCorrupt reports whether a state file's content is still damaged: it
// holds a NUL byte near the top or does not parse.
func rbStillCorrupt(kind, clean string, data []byte) bool {
	head := data
	if len(head) > 8192 {
		head = head[:8192]
	}
	return bytes.IndexByte(head, 0) >= 0 || !rbParseAs(kind, clean, data)
}

// rbRebuiltContent is the fresh state file: the .bak twin when it parses (and
// can be patched), else the candidate rendered; marked resumed and checked.
func rbRebuiltContent(root string, c workflow.Candidate, clean string, now time.Time, wrappers []string) ([]byte, error) {
	if bak, err := safefile.ReadConfined(root, clean+".bak", maxStateSize); err == nil && !rbStillCorrupt(c.Source.Kind, clean, bak) {
		if out, err := patchState(clean, bak, now, wrappers); err == nil {
			return out, nil
		}
	}
	base, err := rbRenderRebuilt(c, clean, now)
	if err != nil {
		return nil, err
	}
	out, err := patchState(clean, base, now, wrappers)
	if err != nil {
		return nil, fmt.Errorf("the rendered state does not check out (nothing written): %w", err)
	}
	if !rbParseAs(c.Source.Kind, clean, out) {
		return nil, errors.New("the rendered state does not parse back (nothing written)")
	}
	return out, nil
}

// rbAbs is the absolute path of a clean repository-relative path.
func rbAbs(root, clean string) string {
	f, _, err := resolveState(root, clean)
	if err != nil {
		return ""
	}
	return f
}

// rbRenderRebuilt renders a rebuilt candidate in the layout of its kind,
// before the resume fields are set.
func rbRenderRebuilt(c workflow.Candidate, clean string, now time.Time) ([]byte, error) {
	stamp := now.UTC().Format(time.RFC3339)
	switch c.Source.Kind {
	case workflow.KindEpicState:
		return rbYamlBlock(rbEpicDoc(c, stamp))
	case workflow.KindQALoop:
		return rbJsonDoc(rbQaDoc(c, stamp))
	case workflow.KindSpec:
		return rbJsonDoc(rbSpecDoc(c, stamp))
	case workflow.KindWorkflowState:
		return rbYamlBlock(rbWorkflowDoc(c, stamp))
	}
	return nil, fmt.Errorf("%w: a rebuilt %s state", ErrNotPatchable, orDash(c.Source.Kind))
}

func rbTimeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func rbCurrentPhase(c workflow.Candidate) (id, agent string) {
	for _, p := range c.Phases {
		if p.Status == workflow.PhaseCurrent {
			return p.ID, strings.TrimPrefix(p.Agent, "@")
		}
	}
	return "", strings.TrimPrefix(c.Agent, "@")
}

// rbRefPaths are the candidate's referenced files other than its stories.
func rbRefPaths(c workflow.Candidate) []string {
	stories := map[string]bool{}
	for _, r := range c.StoryRefs {
		stories[r.Path] = true
	}
	var out []string
	for _, f := range c.Files {
		if f.Path != "" && !stories[f.Path] && f.From != "story" {
			out = append(out, f.Path)
		}
	}
	return out
}

type rbPhaseDoc struct {
	Phase  string `yaml:"phase" json:"phase"`
	Agent  string `yaml:"agent,omitempty" json:"agent,omitempty"`
	Status string `yaml:"status,omitempty" json:"status,omitempty"`
	Output any    `yaml:"output,omitempty" json:"output,omitempty"`
}

func rbCompletedPhases(c workflow.Candidate, withStatus bool) []rbPhaseDoc {
	var out []rbPhaseDoc
	for _, p := range c.Phases {
		if p.Status != workflow.PhaseCompleted && p.Status != workflow.PhaseSkipped {
			continue
		}
		d := rbPhaseDoc{Phase: p.ID, Agent: strings.TrimPrefix(p.Agent, "@")}
		if d.Phase == "" {
			d.Phase = p.Name
		}
		if withStatus || p.Status == workflow.PhaseSkipped {
			d.Status = p.Status
		}
		switch len(p.Outputs) {
		case 0:
		case 1:
			d.Output = p.Outputs[0]
		default:
			d.Output = append([]string(nil), p.Outputs...)
		}
		out = append(out, d)
	}
	return out
}

// rbWorkflowDoc is our workflow-state layout (.orchestrate/workflows/<id>.yaml).
func rbWorkflowDoc(c workflow.Candidate, stamp string) any {
	type doc struct {
		ExecutionID     string         `yaml:"execution_id"`
		Workflow        string         `yaml:"workflow,omitempty"`
		Story           string         `yaml:"story,omitempty"`
		Stories         []string       `yaml:"stories,omitempty"`
		StartedAt       string         `yaml:"started_at,omitempty"`
		UpdatedAt       string         `yaml:"updated_at,omitempty"`
		CurrentPhase    string         `yaml:"current_phase,omitempty"`
		CurrentAgent    string         `yaml:"current_agent,omitempty"`
		Status          string         `yaml:"status"`
		Mode            string         `yaml:"mode,omitempty"`
		BaseCommit      string         `yaml:"base_commit,omitempty"`
		AISessionID     string         `yaml:"ai_session_id,omitempty"`
		PhasesCompleted []rbPhaseDoc   `yaml:"phases_completed,omitempty"`
		Files           []string       `yaml:"files,omitempty"`
		Context         map[string]any `yaml:"context,omitempty"`
		RebuiltAt       string         `yaml:"rebuilt_at"`
	}
	d := doc{
		ExecutionID: c.Key, Workflow: c.Workflow,
		StartedAt: rbTimeText(c.StartedAt), UpdatedAt: rbTimeText(c.UpdatedAt),
		Status: "interrupted", Mode: c.Mode, BaseCommit: c.Commit, AISessionID: c.AISessionID,
		PhasesCompleted: rbCompletedPhases(c, false), Files: rbRefPaths(c),
		Context: rbJsonSafeMap(c.Context), RebuiltAt: stamp,
	}
	if d.ExecutionID == "" {
		d.ExecutionID = strings.TrimPrefix(c.ID, "workflow:")
	}
	if len(c.Stories) == 1 {
		d.Story = c.Stories[0]
	} else {
		d.Stories = c.Stories
	}
	d.CurrentPhase, d.CurrentAgent = rbCurrentPhase(c)
	return d
}

// rbEpicDoc is the AIOX epic execution layout under `epic_state:`.
func rbEpicDoc(c workflow.Candidate, stamp string) any {
	type story struct {
		ID       string `yaml:"id"`
		Status   string `yaml:"status,omitempty"`
		Path     string `yaml:"path,omitempty"`
		Executor string `yaml:"executor,omitempty"`
	}
	type wave struct {
		Wave    int     `yaml:"wave"`
		Status  string  `yaml:"status,omitempty"`
		Stories []story `yaml:"stories"`
	}
	type state struct {
		EpicID      string `yaml:"epic_id"`
		Status      string `yaml:"status"`
		CurrentWave int    `yaml:"current_wave,omitempty"`
		StartedAt   string `yaml:"started_at,omitempty"`
		UpdatedAt   string `yaml:"updated_at,omitempty"`
		Plan        string `yaml:"execution_plan,omitempty"`
		Mode        string `yaml:"mode,omitempty"`
		BaseCommit  string `yaml:"base_commit,omitempty"`
		Waves       []wave `yaml:"waves"`
		RebuiltAt   string `yaml:"rebuilt_at"`
	}
	st := state{EpicID: c.Key, Status: "in_progress", StartedAt: rbTimeText(c.StartedAt), UpdatedAt: rbTimeText(c.UpdatedAt),
		Mode: c.Mode, BaseCommit: c.Commit, RebuiltAt: stamp, Waves: []wave{}}
	if c.Epic != nil {
		if c.Epic.EpicID != "" {
			st.EpicID = c.Epic.EpicID
		}
		st.CurrentWave, st.Plan = c.Epic.CurrentWave, c.Epic.PlanPath
		for _, w := range c.Epic.Waves {
			ww := wave{Wave: w.Number, Status: w.Status, Stories: []story{}}
			for _, s := range w.Stories {
				ww.Stories = append(ww.Stories, story{ID: s.ID, Status: s.Status, Path: s.Path, Executor: s.Executor})
			}
			st.Waves = append(st.Waves, ww)
		}
	}
	return struct {
		EpicState state `yaml:"epic_state"`
	}{st}
}

// rbQaDoc is the AIOS QA-loop status layout (camelCase JSON).
func rbQaDoc(c workflow.Candidate, stamp string) any {
	type iteration struct {
		Iteration    int    `json:"iteration"`
		Verdict      string `json:"verdict,omitempty"`
		FixesApplied bool   `json:"fixesApplied,omitempty"`
	}
	type doc struct {
		StoryID          string      `json:"storyId,omitempty"`
		Status           string      `json:"status"`
		CurrentIteration int         `json:"currentIteration"`
		MaxIterations    int         `json:"maxIterations,omitempty"`
		LastVerdict      string      `json:"lastVerdict,omitempty"`
		History          []iteration `json:"history"`
		StartedAt        string      `json:"startedAt,omitempty"`
		UpdatedAt        string      `json:"updatedAt,omitempty"`
		Files            []string    `json:"files,omitempty"`
		RebuiltAt        string      `json:"rebuiltAt"`
	}
	d := doc{Status: "in_progress", History: []iteration{}, StartedAt: rbTimeText(c.StartedAt), UpdatedAt: rbTimeText(c.UpdatedAt),
		Files: rbRefPaths(c), RebuiltAt: stamp}
	if len(c.Stories) > 0 {
		d.StoryID = c.Stories[0]
	}
	if c.QA != nil {
		d.CurrentIteration, d.MaxIterations, d.LastVerdict = c.QA.Iteration, c.QA.MaxIterations, c.QA.LastVerdict
		for _, h := range c.QA.History {
			d.History = append(d.History, iteration{Iteration: h.Number, Verdict: h.Verdict, FixesApplied: h.Fixed})
		}
	}
	return d
}

// rbSpecDoc is a spec pipeline's .pipeline-state.json.
func rbSpecDoc(c workflow.Candidate, stamp string) any {
	type doc struct {
		Name         string       `json:"name,omitempty"`
		Story        string       `json:"story,omitempty"`
		Status       string       `json:"status"`
		CurrentPhase string       `json:"currentPhase,omitempty"`
		Complexity   string       `json:"complexity,omitempty"`
		Verdict      string       `json:"verdict,omitempty"`
		Phases       []rbPhaseDoc `json:"phases"`
		UpdatedAt    string       `json:"updatedAt,omitempty"`
		RebuiltAt    string       `json:"rebuiltAt"`
	}
	d := doc{Status: "in_progress", Phases: rbCompletedPhases(c, true), UpdatedAt: rbTimeText(c.UpdatedAt), RebuiltAt: stamp}
	if d.Phases == nil {
		d.Phases = []rbPhaseDoc{}
	}
	if len(c.Stories) > 0 {
		d.Story = c.Stories[0]
	}
	if c.Spec != nil {
		d.Name, d.Complexity, d.Verdict = c.Spec.Name, c.Spec.Complexity, c.Spec.Verdict
	}
	d.CurrentPhase, _ = rbCurrentPhase(c)
	return d
}

// rbJsonSafeMap makes a saved context encodable, with sorted-key maps.
func rbJsonSafeMap(m map[string]any) map[string]any {
	if len(m) == 0 {
		return nil
	}
	out, _ := jsonSafe(m, 0).(map[string]any)
	return out
}

// rbYamlBlock encodes v as block-style YAML, two-space indented.
func rbYamlBlock(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// rbJsonDoc encodes v as indented JSON with a final newline.
func rbJsonDoc(v any) ([]byte, error) {
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
