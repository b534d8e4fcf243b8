package rebuild

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/orchestrate-dev/orchestrate/discover/epic"
	"github.com/orchestrate-dev/orchestrate/discover/qaloop"
	"github.com/orchestrate-dev/orchestrate/discover/spec"
	"github.com/orchestrate-dev/orchestrate/discover/wfstate"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/internal/statepatch"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// ParsesAs parses data with the parser of kind and reports whether it
// decoded.
func ParsesAs(kind, clean string, data []byte) bool {
	var c workflow.Candidate
	switch kind {
	case workflow.KindEpicState:
		c, _ = epic.ParseEpicState(clean, data)
	case workflow.KindQALoop:
		c, _ = qaloop.ParseQALoop(clean, data)
	case workflow.KindSpec:
		c, _ = spec.ParseSpecState(clean, data)
	default:
		c, _ = wfstate.ParseWorkflowState(clean, data, nil)
	}
	return c.Status != StatusUnreadable
}

// StillCorrupt reports whether a state file's content is still damaged: it
// holds a NUL byte near the top or does not parse.
func StillCorrupt(kind, clean string, data []byte) bool {
	head := data
	if len(head) > 8192 {
		head = head[:8192]
	}
	return bytes.IndexByte(head, 0) >= 0 || !ParsesAs(kind, clean, data)
}

// maxFreshBak is the largest .bak twin Fresh reads.
const maxFreshBak = 16 << 20

// Fresh is the content that replaces the corrupt state file clean
// (repository-relative, inside root) of c, a candidate Rebuild
// reconstructed, marked resumed at now (statepatch.Patch with the state's
// wrapper keys): the .bak twin's own bytes when it parses and can be
// patched (every field the framework wrote is kept), else c rendered in the
// layout of its kind (Render), which must then check out and parse back.
// It only reads; handoff writes the result, keeping the corrupt file.
func Fresh(root string, c workflow.Candidate, clean string, now time.Time, wrappers []string) ([]byte, error) {
	if bak, err := safefile.ReadConfined(root, clean+".bak", maxFreshBak); err == nil && !StillCorrupt(c.Source.Kind, clean, bak) {
		if out, err := statepatch.Patch(clean, bak, now, wrappers); err == nil {
			return out, nil
		}
	}
	base, err := Render(c, clean, now)
	if err != nil {
		return nil, err
	}
	out, err := statepatch.Patch(clean, base, now, wrappers)
	if err != nil {
		return nil, fmt.Errorf("the rendered state does not check out (nothing written): %w", err)
	}
	if !ParsesAs(c.Source.Kind, clean, out) {
		return nil, errors.New("the rendered state does not parse back (nothing written)")
	}
	return out, nil
}

// Render renders a rebuilt candidate in the layout of its kind,
// before the resume fields are set.
func Render(c workflow.Candidate, clean string, now time.Time) ([]byte, error) {
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
	return nil, fmt.Errorf("%w: a rebuilt %s state", statepatch.ErrNotPatchable, orNone(c.Source.Kind))
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
	out, _ := tolerant.JSONSafe(m, 0).(map[string]any)
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

// orNone is s, or "-" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
