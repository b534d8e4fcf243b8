package source

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TypeOf maps a workflow id to the candidate type.
func TypeOf(id string) workflow.Type {
	switch Norm(id) {
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

// AliasDef is the built-in definition id a workflow id stands for.
func AliasDef(id string) string {
	switch TypeOf(id) {
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

// normSeparators is Norm's replacer (built once: a Replacer is safe for
// concurrent use).
var normSeparators = strings.NewReplacer("-", "_", " ", "_", ".", "_")

// modeSeparators drops the separators of a mode's spelling (Mode), made
// once: a Replacer builds its tables on its first use.
var modeSeparators = strings.NewReplacer("-", "", "_", "", " ", "")

// Norm lower-cases and turns '-', ' ' and '.' into '_' for comparisons.
func Norm(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = normSeparators.Replace(s)
	for strings.Contains(s, "__") {
		s = strings.ReplaceAll(s, "__", "_")
	}
	return s
}

// PhaseRef is a phase as a state file names it: a 1-based number, a name,
// or both ("3_self_healing").
type PhaseRef struct {
	Raw  string
	Num  int
	Name string
}

// ParseRef reads a phase reference: a 1-based number, a name, or both
// ("3_self_healing"); ok is false for a value that is neither.
func ParseRef(v any) (PhaseRef, bool) {
	s, ok := tolerant.ScalarString(v)
	if !ok || s == "" {
		return PhaseRef{}, false
	}
	if len(s) > 200 {
		s = s[:200]
	}
	ref := PhaseRef{Raw: s}
	if m := phaseNumRe().FindStringSubmatch(s); m != nil {
		n, _ := tolerant.ToInt(m[1])
		ref.Num = n
		return ref, true
	}
	if m := phaseNumNameRe().FindStringSubmatch(s); m != nil {
		n, _ := tolerant.ToInt(m[1])
		ref.Num, ref.Name = n, strings.TrimSpace(m[2])
		return ref, true
	}
	ref.Name = s
	return ref, true
}

// Key identifies the ref for de-duplication.
func (p PhaseRef) Key() string {
	if p.Name != "" {
		return "n:" + Norm(p.Name)
	}
	return fmt.Sprintf("#%d", p.Num)
}

// Label is the phase's display name.
func (p PhaseRef) Label() string {
	if p.Name != "" {
		return p.Name
	}
	return p.Raw
}

// DefIndex returns the 0-based index of ref in def, or -1.
func DefIndex(def workflow.Definition, ref PhaseRef) int {
	if ref.Name != "" {
		for _, cand := range []string{ref.Name, ref.Raw} {
			k := Norm(cand)
			for i, p := range def.Phases {
				if Norm(p.ID) == k || Norm(p.Name) == k {
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

// Rec is a phase recorded by the state file.
type Rec struct {
	Ref     PhaseRef
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
	path := func(v any) (string, bool) {
		mm, isMap := v.(map[string]any)
		if !isMap {
			return "", false
		}
		return f.Str(mm, "path", "file"), true
	}
	return f.textList(m, keys, "text or a list of text", path)
}

// wfRecItem reads one recorded phase from a list item or a mapping value.
func wfRecItem(f *Fields, it any, name any, dflt, from string) (Rec, bool) {
	rec := Rec{From: from}
	switch t := it.(type) {
	case map[string]any:
		v := name
		if v == nil {
			v, _, _ = tolerant.Lookup(t, []string{"phase", "id", "name", "step", "phase_id", "phaseId"})
		}
		ref, ok := ParseRef(v)
		if !ok {
			return rec, false
		}
		rec.Ref = ref
		rec.Agent = strings.TrimPrefix(f.Str(t, "agent", "executor"), "@")
		rec.Outputs = wfOutputs(f, t, "output", "outputs", "artifacts", "artifact")
		rec.State = wfPhaseState(f.Str(t, "status", "result", "state"), dflt)
	default:
		if name != nil { // phaseResults: {phase: "completed"}
			ref, ok := ParseRef(name)
			if !ok {
				return rec, false
			}
			rec.Ref = ref
			s, _ := tolerant.ScalarString(it)
			rec.State = wfPhaseState(s, dflt)
			return rec, true
		}
		ref, ok := ParseRef(it)
		if !ok {
			f.Wrong(from+"[]", "a phase name or a mapping", it)
			return rec, false
		}
		rec.Ref = ref
		rec.State = dflt
	}
	return rec, true
}

// RecList is a field that records phases, with the status its items have
// when they give none.
type RecList struct {
	Key, Dflt string
}

// Recorded collects the phases a state records, in a deterministic order
// (list order; mapping keys by phase number, then name). The first record of
// a phase wins.
func Recorded(f *Fields, srcs []map[string]any, lists []RecList) []Rec {
	var out []Rec
	seen := map[string]bool{}
	add := func(r Rec) {
		if seen[r.Ref.Key()] || len(out) >= 1000 {
			return
		}
		seen[r.Ref.Key()] = true
		out = append(out, r)
	}
	for _, m := range srcs {
		for _, l := range lists {
			v, ok := m[l.Key]
			if !ok || v == nil {
				continue
			}
			switch t := v.(type) {
			case []any:
				for _, it := range t {
					if r, ok := wfRecItem(f, it, nil, l.Dflt, l.Key); ok {
						add(r)
					}
				}
			case map[string]any:
				keys := make([]string, 0, len(t))
				for k := range t {
					keys = append(keys, k)
				}
				sort.Slice(keys, func(i, j int) bool { return wfRefLess(keys[i], keys[j]) })
				dflt := l.Dflt
				if dflt == workflow.PhasePending {
					dflt = workflow.PhaseCompleted // a phase with a result ran
				}
				for _, k := range keys {
					if r, ok := wfRecItem(f, t[k], k, dflt, l.Key); ok {
						add(r)
					}
				}
			default:
				f.Wrong(l.Key, "a list or a mapping of phases", v)
			}
		}
	}
	return out
}

// wfRefLess orders phase keys by their number prefix, then by text.
func wfRefLess(a, b string) bool {
	ra, _ := ParseRef(a)
	rb, _ := ParseRef(b)
	if ra.Num != rb.Num {
		if ra.Num == 0 || rb.Num == 0 {
			return ra.Num != 0
		}
		return ra.Num < rb.Num
	}
	return a < b
}

// Str reads text from the first source map holding one of keys, and the
// key it used.
func Str(f *Fields, srcs []map[string]any, keys ...string) (string, string) {
	for _, m := range srcs {
		if s, k := f.StrKey(m, keys...); k != "" {
			return s, k
		}
	}
	return "", ""
}

// Time reads the first of keys present in srcs (in order) as a time, with
// the key it came from.
func Time(f *Fields, srcs []map[string]any, keys ...string) (time.Time, string) {
	for _, m := range srcs {
		if t, k := f.Time(m, keys...); k != "" {
			return t, k
		}
	}
	return time.Time{}, ""
}

// Mode canonicalises the mode a workflow was started in: autopilot,
// interactive or preflight (AIOS "yolo" is autopilot); others are kept
// lower-cased.
func Mode(s string) string {
	m := modeSeparators.Replace(strings.ToLower(strings.TrimSpace(s)))
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

// SkipBefore marks as skipped the pending phases before the current one
// (or, with no current phase, before the last completed one): the state does
// not record them, so they ran before this execution started or were not
// needed.
func SkipBefore(phases []workflow.Phase, curIdx int) {
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

// CurrentPhaseID is the id of the candidate's current phase, or "".
func CurrentPhaseID(c *workflow.Candidate) string {
	for _, p := range c.Phases {
		if p.Status == workflow.PhaseCurrent {
			return p.ID
		}
	}
	return ""
}

// Phase references: "3" or "phase 3", and "3_self_healing".
var (
	phaseNumRe     = lazyre.New(`^(?i:phase[\s_-]*)?(\d{1,4})$`)
	phaseNumNameRe = lazyre.New(`^(\d{1,4})[_\-. ]+(\S.*)$`)
)
