// Package iostreams is what a command takes from the outside world (the
// role of gh's pkg/iostreams): the standard streams and whether each is a
// terminal (IOStreams), the environment, clock, working directory and
// process identity (System, OSSystem: the one place the real process is
// read), whether output may use colour (ColorEnabled), and the terminal
// prompter as a modes.Prompter (NewTerminalPrompter).
package iostreams

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
	// OutWidth is the width in columns of the terminal stdout is (0 or
	// nil: unknown). app/cli's tables read it (tableWidth).
	OutWidth func() int
}

// CanPrompt reports whether the user can be asked a question: stdin and
// stderr are both terminals.
func (s IOStreams) CanPrompt() bool { return s.InTTY && s.ErrTTY }

// System is everything a command takes from the outside world: streams,
// environment, clock, working directory and process identity. Nothing below
// the command layer reaches past it (os.Stdin, os.Environ, time.Now,
// os.Getpid, os.Args): the values are passed down in the requests.
type System struct {
	IO     IOStreams
	Getenv func(string) string
	Now    func() time.Time
	Getwd  func() (string, error)
	// Environ is the environment handed to the orchestrator command (nil:
	// an empty one).
	Environ func() []string
	// Pid and Args identify this process in the lock file (0 and nil in
	// tests that do not care).
	Pid  int
	Args []string
	// Prompter asks questions; nil means the terminal one (internal/prompt) on IO.
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
			OutWidth: func() int {
				w, _, err := term.GetSize(int(os.Stdout.Fd()))
				if err != nil {
					return 0
				}
				return w
			},
		},
		Getenv:  os.Getenv,
		Now:     now,
		Getwd:   os.Getwd,
		Environ: os.Environ,
		Pid:     os.Getpid(),
		Args:    os.Args,
	}
}
