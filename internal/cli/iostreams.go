package cli

import (
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/orchestrate-dev/orchestrate/modes"
)

// IOStreams are the standard streams a command uses, with whether each is a
// terminal. Commands never touch os.Stdin/Stdout/Stderr directly.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	InTTY  bool
	OutTTY bool
	ErrTTY bool
}

// CanPrompt reports whether the user can be asked a question: stdin and
// stderr are both terminals.
func (s IOStreams) CanPrompt() bool { return s.InTTY && s.ErrTTY }

// System is everything a command takes from the outside world: streams,
// environment, clock and working directory.
type System struct {
	IO     IOStreams
	Getenv func(string) string
	Now    func() time.Time
	Getwd  func() (string, error)
	// Prompter asks questions; nil means the survey-backed one on IO.
	Prompter modes.Prompter
}

// OSSystem returns the System of the running process. ORCHESTRATE_NOW
// (RFC 3339) pins the clock, for reproducible output in tests and demos.
func OSSystem() System {
	now := time.Now
	if v := os.Getenv("ORCHESTRATE_NOW"); v != "" {
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			now = func() time.Time { return t }
		}
	}
	return System{
		IO: IOStreams{
			In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
			InTTY:  term.IsTerminal(int(os.Stdin.Fd())),
			OutTTY: term.IsTerminal(int(os.Stdout.Fd())),
			ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		},
		Getenv: os.Getenv,
		Now:    now,
		Getwd:  os.Getwd,
	}
}
