package cli

import (
	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// errorDoc is the --json document of a command that failed before it could
// write its own (a usage or configuration error): on stdout, while the
// human message still goes to stderr.
type errorDoc struct {
	Schema   string `json:"schema"`
	Command  string `json:"command"`
	Outcome  string `json:"outcome"` // always "error"
	ExitCode int    `json:"exit_code"`
	Error    string `json:"error"`
}

// newErrorDoc is the error document of err, exiting with code, for cmd
// (the command cobra found; "orchestrate" for the root or none).
func newErrorDoc(cmd *cobra.Command, code int, err error) errorDoc {
	name := "orchestrate"
	if cmd != nil && cmd.HasParent() {
		name = strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	}
	return errorDoc{Schema: Schema, Command: name, Outcome: "error", ExitCode: code, Error: cmdutil.SafeErr(err)}
}

// wantsJSON reports whether --json (or --json=<true>) appears among args
// before a "--".
func wantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" {
			return true
		}
		if v, ok := strings.CutPrefix(a, "--json="); ok {
			if b, err := strconv.ParseBool(v); err == nil && b {
				return true
			}
		}
	}
	return false
}

// countingWriter counts the bytes written through it, so Main knows
// whether a command already wrote its own document on stdout.
type countingWriter struct {
	w io.Writer
	n int64
}

// Write implements io.Writer.
func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
