package command

import (
	"context"
	"errors"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/orchestrate-dev/orchestrate/internal/textfmt"
)

// argvScript is the whole shell text of a command given as an argv (a
// handoff.agent preset): sh runs its positional parameters as they are, so
// no value is ever shell text.
const argvScript = `exec "$@"`

// argvZero is $0 of that shell, for its own messages.
const argvZero = "orchestrate-handoff"

// FromArgv is the Rendered of a command given as an argv rather than a
// template: Script is the constant `exec "$@"`, the argv its positional
// parameters (Args), Display the argv shell-quoted word by word, and Env
// the placeholder variables of data (ORCHESTRATE_HANDOFF and the others),
// as a template's command gets them. An empty argv or program is an error.
func FromArgv(argv []string, data Data) (Rendered, error) {
	if len(argv) == 0 || strings.TrimSpace(argv[0]) == "" {
		return Rendered{}, errors.New("the hand-off command has no program")
	}
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = textfmt.ShellWord(a)
	}
	r := Rendered{Script: argvScript, Display: strings.Join(words, " "), Args: append([]string(nil), argv...)}
	for _, p := range placeholders {
		r.Env = append(r.Env, p.env+"="+p.value(data))
	}
	return r, nil
}

// IsTerminal reports whether f is a terminal (a hand-off preset then starts
// the agent's interactive session).
func IsTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}

// RunArgv runs argv (FromArgv) the way Run runs a template: in opts.Root,
// in a process group of its own, with signal forwarding, the timeout and
// the terminal hand-over, name being what its errors call it.
func RunArgv(ctx context.Context, name string, argv []string, data Data, opts Options) (int, error) {
	rendered, err := FromArgv(argv, data)
	if err != nil {
		return -1, err
	}
	return runRendered(ctx, name, rendered, opts)
}
