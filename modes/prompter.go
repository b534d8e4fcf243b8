// Package modes decides what a resume does in each mode (docs/ARCHITECTURE.md):
// autopilot decides alone, interactive asks, pre-flight reports everything
// and requires an explicit proceed. Questions go through the Prompter
// interface so the decisions are testable without a terminal.
package modes

import "errors"

// ErrInterrupted is returned by a Prompter when the user pressed Ctrl-C.
var ErrInterrupted = errors.New("interrupted")

// Prompter asks the user questions. The terminal implementation is
// internal/prompt (its own raw-terminal prompts), wired by the command layer;
// every test uses modes/prompttest.
type Prompter interface {
	// Select asks to choose one of options; it returns the index chosen.
	Select(message string, options []string, def int) (int, error)
	// Confirm asks a yes/no question.
	Confirm(message string, def bool) (bool, error)
	// Input asks for a line of text.
	Input(message string, def string) (string, error)
}
