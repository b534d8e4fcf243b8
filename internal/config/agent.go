package config

import (
	"fmt"
	"slices"
	"strings"
)

// AgentPresets are the values handoff.agent takes (the presets of
// handoff/agent, which this leaf cannot import; a test keeps the two lists
// equal).
var AgentPresets = []string{"claude", "codex", "gemini", "cursor", "opencode"}

// checkHandoffAgent refuses a handoff.agent that names no preset (a
// *UsageError naming where it was set) and warns, once, when
// handoff.command is set too: the template wins, the preset is ignored.
func (cl *Loaded) checkHandoffAgent(h Handoff) error {
	name := strings.TrimSpace(h.Agent)
	if name == "" {
		return nil
	}
	where := "handoff.agent"
	if o, ok := cl.Source("handoff.agent"); ok {
		where = o
	}
	if !slices.Contains(AgentPresets, name) {
		return &UsageError{Err: fmt.Errorf("%s: %q is not a preset (%s); use handoff.command for any other program",
			where, name, strings.Join(AgentPresets, ", "))}
	}
	if strings.TrimSpace(h.Command) != "" {
		w := fmt.Sprintf("%s (%s) is ignored: handoff.command is set too, and the command template wins (unset one of them)", where, name)
		if !slices.Contains(cl.Warnings, w) {
			cl.Warnings = append(cl.Warnings, w)
		}
	}
	return nil
}
