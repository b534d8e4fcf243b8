package cli

import (
	"os"
	"strconv"
	"strings"

	"github.com/orchestrate-dev/orchestrate/app/cli/iostreams"
)

// IOStreams are the standard streams a command uses, with whether each is a
// terminal (iostreams.IOStreams). Commands never touch
// os.Stdin/Stdout/Stderr directly.
type IOStreams = iostreams.IOStreams

// System is everything a command takes from the outside world
// (iostreams.System): nothing below the command layer reaches past it.
type System = iostreams.System

// OSSystem returns the System of the running process (iostreams.OSSystem).
func OSSystem() System { return iostreams.OSSystem() }

// defaultTableWidth is the width tables fit when stdout is a terminal of
// unknown size.
const defaultTableWidth = 80

// tableWidth is the width tables are cut to (truncated with "…"): 0, no
// cutting, when stdout is not a terminal (piped output is never cut);
// else COLUMNS when it is a positive number, else the terminal's width,
// else defaultTableWidth.
func (a *app) tableWidth() int {
	if !a.sys.IO.OutTTY {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(a.getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	if a.sys.IO.OutWidth != nil {
		if w := a.sys.IO.OutWidth(); w > 0 {
			return w
		}
	}
	return defaultTableWidth
}

// environ is the injected environment for the orchestrator command (empty
// when the System has none).
func (a *app) environ() []string {
	if a.sys.Environ == nil {
		return []string{}
	}
	return a.sys.Environ()
}

// stdinFile is the injected standard input when it is a file (the
// orchestrator command inherits it), else nil (no input).
func (a *app) stdinFile() *os.File {
	if f, ok := a.sys.IO.In.(*os.File); ok {
		return f
	}
	return nil
}
