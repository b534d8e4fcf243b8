package cli

import (
	"github.com/orchestrate-dev/orchestrate/internal/prompt"
	"github.com/orchestrate-dev/orchestrate/modes"
)

// newTerminalPrompter returns the Prompter that asks on the terminal of io
// (internal/prompt, the one home of terminal prompts), with colour on or off
// as told (the command layer decides it from the injected environment and
// --no-color).
func newTerminalPrompter(io IOStreams, color bool) modes.Prompter {
	return prompt.NewTerminal(io.In, io.ErrOut, color)
}
