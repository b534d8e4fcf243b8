package source

import (
	"path"
	"strconv"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// BuiltinDefinitions returns the built-in workflow definitions,
// used when the repository has no framework workflows folder. The map is
// new on every call, but the definitions are built once and their phases
// (and decision maps) are shared: read them, never modify them.
func BuiltinDefinitions() map[string]workflow.Definition {
	out := make(map[string]workflow.Definition, len(builtinDefinitions))
	for id, d := range builtinDefinitions {
		out[id] = d
	}
	return out
}

// BuiltinDefinition returns the built-in definition id without building a
// map (shared, read-only like BuiltinDefinitions' values); ok is false when
// there is none.
func BuiltinDefinition(id string) (workflow.Definition, bool) {
	d, ok := builtinDefinitions[id]
	return d, ok
}

// builtinDefinitions is built once: rebuilding it per story was a large
// share of a big scan's allocations.
var builtinDefinitions = map[string]workflow.Definition{
	workflow.DefSDC: {
		ID: workflow.DefSDC, Name: "Story Development Cycle", Source: "builtin",
		Phases: []workflow.PhaseDef{
			{ID: "create", Name: "Story Creation", Agent: "sm", Task: "create-next-story.md", Next: "validate"},
			{ID: "validate", Name: "Story Validation", Agent: "po", Task: "validate-next-story.md", Next: "implement", Decision: map[string]string{"GO": "implement", "NO-GO": "create"}},
			{ID: "implement", Name: "Implementation", Agent: "dev", Task: "dev-develop-story.md", Next: "review"},
			{ID: "review", Name: "QA Gate", Agent: "qa", Task: "qa-gate.md", Decision: map[string]string{"PASS": "done", "CONCERNS": "done", "FAIL": "implement", "WAIVED": "done"}},
		},
	},
	workflow.DefQALoop: {
		ID: workflow.DefQALoop, Name: "QA Loop", Source: "builtin", MaxIterations: 5,
		Phases: []workflow.PhaseDef{
			{ID: "review", Name: "QA Review", Agent: "qa", Task: "qa-review-story.md", Next: "fix", Decision: map[string]string{"APPROVE": "done", "REJECT": "fix", "BLOCKED": "escalate"}},
			{ID: "fix", Name: "Apply Fixes", Agent: "dev", Task: "dev-apply-qa-fixes.md", Next: "review"},
			{ID: "escalate", Name: "Escalation", Agent: "master", Task: "orchestrate.md", Next: "done"},
		},
	},
	workflow.DefSpec: {
		ID: workflow.DefSpec, Name: "Spec Pipeline", Source: "builtin",
		Phases: []workflow.PhaseDef{
			{ID: "gather", Name: "Requirements Gathering", Agent: "pm", Task: "spec-gather-requirements.md", Next: "assess"},
			{ID: "assess", Name: "Complexity Assessment", Agent: "architect", Task: "spec-assess-complexity.md", Next: "research", SkipIf: "complexity class is SIMPLE"},
			{ID: "research", Name: "Dependency Research", Agent: "analyst", Task: "spec-research-dependencies.md", Next: "spec", SkipIf: "complexity class is SIMPLE"},
			{ID: "spec", Name: "Write Specification", Agent: "pm", Task: "spec-write-spec.md", Next: "critique"},
			{ID: "critique", Name: "Spec Critique", Agent: "qa", Task: "spec-critique.md", Decision: map[string]string{"APPROVED": "done", "NEEDS_REVISION": "spec", "BLOCKED": "done"}},
		},
	},
	workflow.DefEpic: {
		ID: workflow.DefEpic, Name: "Epic Execution", Source: "builtin",
		Phases: []workflow.PhaseDef{
			{ID: "waves", Name: "Wave Execution", Agent: "pm", Task: "execute-epic-plan.md", Next: "final-gate"},
			{ID: "final-gate", Name: "Final Gate", Agent: "qa", Task: "execute-epic-plan.md", Next: "done"},
		},
	},
}

// LoadDefinitions reads workflows/*.yaml from the configured workflow
// folders. A file that does not parse is a finding and the built-in
// definition stays in force. The first folder that defines an id wins.
func LoadDefinitions(r *Repo) (map[string]workflow.Definition, []workflow.Finding) {
	defs := map[string]workflow.Definition{}
	var findings []workflow.Finding
	var patterns []string
	for _, d := range r.Config.WorkflowDirs {
		patterns = append(patterns, path.Join(d, "*.yaml"), path.Join(d, "*.yml"))
	}
	// keep the configured folder order: Glob sorts, so expand one folder at a time
	for _, p := range patterns {
		for _, file := range r.Glob([]string{p}, false) {
			data, err := r.Read(file)
			if err != nil {
				findings = append(findings, downgrade(ReadFinding(file, err)))
				continue
			}
			def, err := ParseDefinition(data)
			if err != nil {
				findings = append(findings, downgrade(DecodeFinding(file, err)))
				continue
			}
			if def.ID == "" {
				def.ID = strings.TrimSuffix(strings.TrimSuffix(path.Base(file), ".yaml"), ".yml")
			}
			def.Source = file
			if _, dup := defs[def.ID]; !dup {
				defs[def.ID] = def
			}
		}
	}
	return defs, findings
}

// downgrade makes a finding about a definition a warning: a bad definition
// does not block a resume, the built-in one is used.
func downgrade(f workflow.Finding) workflow.Finding {
	f.Severity = workflow.Warning
	f.Message += " (using the built-in definition)"
	return f
}

// ParseDefinition parses a workflow definition in the format of the nexos
// pack: a top-level "workflow" mapping (id, name, config.max_iterations) and a
// top-level "phases" list (id, name, agent, task, next, decision, skip_if);
// or in the format of BMAD v4 (.bmad-core/workflows/*.yaml): a "workflow"
// mapping whose "sequence" lists the steps (agent, creates, requires,
// action, step, condition …).
func ParseDefinition(data []byte) (workflow.Definition, error) {
	m, err := tolerant.DecodeYAMLMap(data)
	if err != nil {
		return workflow.Definition{}, err
	}
	f := &Fields{}
	var def workflow.Definition
	head := f.Map(m, "workflow")
	if head == nil {
		head = m
	}
	def.ID = f.Str(head, "id")
	def.Name = f.Str(head, "name")
	if cfg := f.Map(head, "config"); cfg != nil {
		def.MaxIterations, _ = f.Int(cfg, "max_iterations", "maxIterations")
	}
	phases := f.List(m, "phases")
	if phases == nil {
		phases = f.List(head, "phases")
	}
	if len(phases) == 0 {
		if seq := f.List(head, "sequence"); len(seq) > 0 {
			return parseSequence(f, def, seq)
		}
	}
	if len(phases) == 0 {
		return def, &tolerant.DecodeError{Code: "no-phases", Msg: "workflow definition has no phases list"}
	}
	for _, it := range phases {
		pm, ok := it.(map[string]any)
		if !ok {
			continue
		}
		p := workflow.PhaseDef{
			ID:     f.Str(pm, "id"),
			Name:   f.Str(pm, "name"),
			Agent:  strings.TrimPrefix(f.Str(pm, "agent"), "@"),
			Task:   f.Str(pm, "task"),
			Next:   f.Str(pm, "next"),
			SkipIf: f.Str(pm, "skip_if"),
		}
		if dm := f.Map(pm, "decision"); dm != nil {
			p.Decision = map[string]string{}
			keys := SortedKeys(dm)
			for _, k := range keys {
				if s, ok := tolerant.ScalarString(dm[k]); ok {
					p.Decision[k] = s
				}
			}
		}
		if p.ID == "" {
			p.ID = strings.ToLower(strings.ReplaceAll(p.Name, " ", "-"))
		}
		if p.Name == "" {
			p.Name = p.ID
		}
		if p.ID != "" {
			def.Phases = append(def.Phases, p)
		}
	}
	if len(def.Phases) == 0 {
		return def, &tolerant.DecodeError{Code: "no-phases", Msg: "workflow definition has no usable phases"}
	}
	return def, nil
}

// parseSequence reads the steps of a BMAD v4 workflow.sequence: each step
// with an agent, a named step or an action is a phase (id from step, else
// action, else agent and what it creates; repeated ids get a suffix), in
// order, each one's next the following one. Markers without either
// (`workflow_end:`, `repeat_development_cycle:`) are not phases.
func parseSequence(f *Fields, def workflow.Definition, seq []any) (workflow.Definition, error) {
	seen := map[string]int{}
	for _, it := range seq {
		sm, ok := it.(map[string]any)
		if !ok {
			continue
		}
		who := strings.TrimPrefix(f.Str(sm, "agent"), "@")
		agent := who
		if i := strings.IndexAny(agent, "/,|"); i >= 0 {
			agent = strings.TrimSpace(agent[:i]) // "analyst/pm": the first one leads
		}
		if strings.EqualFold(agent, "various") || strings.EqualFold(agent, "any") {
			agent = "" // whichever agent the step concerns: no agent to check
		}
		step, action := f.Str(sm, "step"), f.Str(sm, "action")
		creates, _ := tolerant.ScalarString(sm["creates"])
		if step == "" && action == "" && who == "" {
			continue
		}
		if isEndMarker(sm) {
			continue
		}
		id := step
		if id == "" {
			id = action
		}
		name := strings.ReplaceAll(id, "_", " ")
		if id == "" {
			what := creates
			if what == "" {
				what, _ = tolerant.ScalarString(sm["updates"])
			}
			if what == "" {
				what, _ = tolerant.ScalarString(sm["validates"])
			}
			id, name = who, who
			if what != "" && agent != "" {
				id += "-" + what
				name = who + ": " + what
			}
		}
		id = sequenceID(id)
		if id == "" {
			continue
		}
		seen[id]++
		if n := seen[id]; n > 1 {
			id = id + "-" + strconv.Itoa(n)
		}
		p := workflow.PhaseDef{ID: id, Name: name, Agent: agent, Task: f.Str(sm, "uses"), SkipIf: f.Str(sm, "condition")}
		if len(def.Phases) > 0 {
			def.Phases[len(def.Phases)-1].Next = id
		}
		def.Phases = append(def.Phases, p)
		if len(def.Phases) >= 1000 {
			break
		}
	}
	if len(def.Phases) == 0 {
		return def, &tolerant.DecodeError{Code: "no-phases", Msg: "workflow sequence has no usable steps"}
	}
	return def, nil
}

// isEndMarker reports whether a sequence entry is only a marker such as
// `workflow_end:` (its own key with no value besides action and notes).
func isEndMarker(sm map[string]any) bool {
	for k, v := range sm {
		if v == nil && (k == "workflow_end" || strings.HasPrefix(k, "repeat_")) {
			return true
		}
	}
	return false
}

// sequenceID turns a step label into a phase id: lower case, spaces and
// underscores to hyphens, other punctuation dropped, at most 80 bytes.
func sequenceID(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-':
			b.WriteRune(r)
		case r == ' ' || r == '_' || r == '/':
			b.WriteByte('-')
		}
		if b.Len() >= 80 {
			break
		}
	}
	return strings.Trim(b.String(), "-.")
}
