package progress

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// progConfiguration decodes the configuration: the first YAML (or JSON)
// fenced block of the configuration section, else its "- key: value" items.
func progConfiguration(c *workflow.Candidate, f *source.Fields, doc *progDoc) {
	for _, b := range doc.Blocks {
		if b.Section != progConfig || b.Owned || !progDataInfo(b.Info) {
			continue
		}
		if strings.TrimSpace(b.Body) == "" {
			return
		}
		m, err := tolerant.DecodeYAMLMap([]byte(b.Body))
		if err != nil {
			f.Findings = append(f.Findings, progBlockFinding(f.Path, b, "configuration", err))
			return
		}
		c.Context[ProgressCtxConfiguration] = m
		return
	}
	if len(doc.ConfigItems) > 0 {
		m := map[string]any{}
		for _, it := range doc.ConfigItems {
			if _, dup := m[it.Key]; dup {
				continue
			}
			if it.Value == "" && len(it.Kids) > 0 {
				m[it.Key] = append([]any(nil), it.Kids...)
			} else {
				m[it.Key] = it.Value
			}
		}
		c.Context[ProgressCtxConfiguration] = m
	}
}

// progConversationList renders the conversation history as a list of
// {n, role, content} mappings.
func progConversationList(doc *progDoc) []any {
	var out []any
	if text := strings.TrimSpace(strings.Join(doc.ConvText, "\n")); text != "" {
		out = append(out, map[string]any{"n": 0, "role": "", "content": text})
	}
	for i, m := range doc.Messages {
		n := m.N
		if n == 0 {
			n = i + 1
		}
		out = append(out, map[string]any{"n": n, "role": m.Role, "content": strings.TrimSpace(strings.Join(m.Content, "\n"))})
	}
	return out
}

// progSteps builds the phases (completed steps, the current one, pending
// ones, in that order) and the position.
func progSteps(c *workflow.Candidate, f *source.Fields, exec map[string]any, items map[string]*progItem) {
	var completed, pending []string
	if v, k := progLookup(exec, progCompletedKeys...); k != "" {
		completed = progList(f, k, v)
	}
	if v, k := progLookup(exec, progPendingKeys...); k != "" {
		pending = progList(f, k, v)
	}
	current := ""
	if v, k := progLookup(exec, progCurrentKeys...); k != "" {
		if s, ok := tolerant.ScalarString(v); ok {
			current = progCleanName(s)
			switch strings.ToLower(current) {
			case "none", "n/a", "-", "—":
				current = ""
			}
		} else {
			f.Wrong(k, "a step name", v)
		}
	}
	index, total, stepName := 0, 0, ""
	if v, k := progLookup(exec, progStepKeys...); k != "" {
		s, ok := tolerant.ScalarString(v)
		if !ok {
			f.Wrong(k, "a step number (\"3 of 5\")", v)
		} else if m := progStepRe().FindStringSubmatch(strings.TrimSpace(s)); m != nil {
			index, _ = strconv.Atoi(m[1])
			if m[2] != "" {
				total, _ = strconv.Atoi(m[2])
			}
			stepName = progCleanName(m[3])
		} else if s != "" && current == "" && !strings.ContainsAny(s, "0123456789") {
			current = progCleanName(s) // "Current step: code-generation"
		} else if s != "" {
			f.Findings = append(f.Findings, workflow.Finding{
				Check: workflow.CheckParse, Severity: workflow.Warning, Code: "bad-step", Path: f.Path,
				Line:    progItemLine(items, k),
				Message: fmt.Sprintf("%s: %q is not a step number like \"3 of 5\"; ignored", k, workflow.Truncate(s, 80)),
			})
		}
	}
	if current == "" && stepName != "" {
		current = stepName
	}

	seen := map[string]int{}
	var dups []string
	add := func(name, status string) {
		k := strings.ToLower(name)
		if _, ok := seen[k]; ok {
			dups = append(dups, name)
			return
		}
		if len(c.Phases) >= progMaxSteps {
			return
		}
		seen[k] = len(c.Phases)
		c.Phases = append(c.Phases, workflow.Phase{ID: name, Name: name, Status: status})
	}
	curKey := strings.ToLower(current)
	for _, n := range completed {
		if curKey != "" && strings.ToLower(n) == curKey {
			dups = append(dups, n)
			continue
		}
		add(n, workflow.PhaseCompleted)
	}
	if current != "" {
		add(current, workflow.PhaseCurrent)
	}
	for _, n := range pending {
		add(n, workflow.PhasePending)
	}
	if len(dups) > 0 {
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: workflow.Warning, Code: "step-listed-twice", Path: f.Path,
			Message: fmt.Sprintf("steps listed more than once (the first listing is kept): %s", workflow.Truncate(strings.Join(dups, ", "), 200)),
		})
	}
	if n := len(completed) + len(pending) + 1; n > progMaxSteps && len(c.Phases) >= progMaxSteps {
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: workflow.Warning, Code: "too-many-steps", Path: f.Path,
			Message: fmt.Sprintf("only the first %d steps are kept", progMaxSteps),
		})
	}
	if len(c.Phases) == 0 && index == 0 {
		if len(exec) == 0 {
			c.Findings = append(c.Findings, workflow.Finding{
				Check: workflow.CheckParse, Severity: workflow.Info, Code: "no-execution-state", Path: f.Path,
				Message: "the progress file has no execution state: the orchestrator continues from the saved conversation",
			})
		}
		return
	}

	nDone := 0
	curIdx := -1
	for i, p := range c.Phases {
		switch p.Status {
		case workflow.PhaseCompleted:
			nDone++
		case workflow.PhaseCurrent:
			curIdx = i
		}
	}
	name, done := "", -1
	switch {
	case index > 0:
		switch {
		case curIdx >= 0:
			name = c.Phases[curIdx].Name
		case index == nDone+1 && index <= len(c.Phases):
			name = c.Phases[index-1].Name
		}
	case curIdx >= 0:
		index, name = curIdx+1, c.Phases[curIdx].Name
	case nDone < len(c.Phases):
		index, name = nDone+1, c.Phases[nDone].Name
	default:
		index, name, done = len(c.Phases), c.Phases[len(c.Phases)-1].Name, len(c.Phases)
	}
	if total > 0 && total < index {
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: workflow.Warning, Code: "bad-step", Path: f.Path,
			Line:    progLine(nil, items, progStepKeys),
			Message: fmt.Sprintf("step %d of %d: the step is past the total", index, total),
		})
		total = index
	}
	if total < len(c.Phases) {
		total = len(c.Phases)
	}
	if total < index {
		total = 0 // more steps than the file names, and no total: unknown
	}
	c.Position = workflow.Position{Kind: workflow.PosStep, Index: index, Done: index - 1, Total: total, Name: name, At: name}
	if done >= 0 { // every step done: nothing to resume
		c.Position.Done, c.Position.At = done, ""
	} else if name == "" {
		c.Position.At = fmt.Sprintf("step %d", index)
	}
}
