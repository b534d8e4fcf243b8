package iostreams

import (
	"errors"

	"github.com/orchestrate-dev/orchestrate/internal/prompt"
	"github.com/orchestrate-dev/orchestrate/modes"
)

// NewTerminalPrompter returns the Prompter that asks on the terminal of io
// (internal/prompt, the one home of terminal prompts), with colour on or off
// as told (the command layer decides it from the injected environment and
// --no-color).
func NewTerminalPrompter(io IOStreams, color bool) modes.Prompter {
	return terminalPrompter{prompt.NewTerminal(io.In, io.ErrOut, color)}
}

// terminalPrompter adapts the leaf prompt.Terminal to modes.Prompter: the
// same questions, a cancelled one reported as modes.ErrInterrupted.
type terminalPrompter struct{ t *prompt.Terminal }

// Select asks to choose one of options; it returns the index chosen.
func (p terminalPrompter) Select(message string, options []string, def int) (int, error) {
	i, err := p.t.Select(message, options, def)
	return i, interrupted(err)
}

// Confirm asks a yes/no question.
func (p terminalPrompter) Confirm(message string, def bool) (bool, error) {
	ok, err := p.t.Confirm(message, def)
	return ok, interrupted(err)
}

// Input asks for a line of text.
func (p terminalPrompter) Input(message string, def string) (string, error) {
	s, err := p.t.Input(message, def)
	return s, interrupted(err)
}

// interrupted is err with prompt.ErrInterrupted reported as
// modes.ErrInterrupted, the cancel every caller checks for.
func interrupted(err error) error {
	if errors.Is(err, prompt.ErrInterrupted) {
		return modes.ErrInterrupted
	}
	return err
}
