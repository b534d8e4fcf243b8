// Package exitcode is the one home of orchestrate's process exit codes: their
// values, their one-line meanings, and the help table generated from them.
// See docs/ARCHITECTURE.md for how the stages and the command layer use them.
package exitcode

import (
	"fmt"
	"strings"
)

// Code is a process exit code of orchestrate.
type Code int

// The exit codes.
const (
	OK       Code = 0  // resumed, planned (dry run), or nothing to resume
	Error    Code = 1  // unexpected error (I/O, internal)
	Usage    Code = 2  // usage error (unknown command or flag, bad arguments or configuration, bare repository)
	Declined Code = 10 // declined or cancelled by the user
	NotFound Code = 14 // the named workflow does not exist
	Terminal Code = 15 // the workflow is in a terminal state
	Locked   Code = 16 // locked by a live process, or by a stale lock (the message and --json say "stale")
	Cannot   Code = 17 // cannot resume: blocking findings, or autopilot halted
	// Command: the orchestrator command failed, timed out or was
	// interrupted; the resume was rolled back (its own status is in the
	// message and the JSON).
	Command Code = 18
	NoTTY   Code = 19 // input needed but no terminal
	// Shared: the shared lifecycle (lifecycle.remote) could not be used —
	// the remote unreachable, refusing, no such remote, no git; nothing ran.
	Shared Code = 20
)

// entry is one row of the table: a code and its meaning, possibly on
// several lines.
type entry struct {
	code    Code
	meaning []string
}

// table is the one definition of every code's meaning, in order.
var table = []entry{
	{OK, []string{"resumed, planned (dry run), or nothing to resume"}},
	{Error, []string{"unexpected error (I/O, internal)"}},
	{Usage, []string{
		"usage error: unknown command or flag, bad arguments, ambiguous workflow name,",
		"bad configuration value, bare repository (no work tree)",
	}},
	{Declined, []string{"declined or cancelled by the user"}},
	{NotFound, []string{"the named workflow does not exist"}},
	{Terminal, []string{"the workflow is in a terminal state (completed, aborted, cancelled)"}},
	{Locked, []string{
		"locked by a live process; or a stale lock whose process is gone (the message",
		"says stale, --json outcome locked, reason stale_lock: run orchestrate unlock, or --force);",
		"or another runner's live lease on the shared lifecycle (reason held_remotely), or taken",
		"over by one while this runner held it: its command was stopped (reason lease_lost)",
	}},
	{Cannot, []string{"cannot resume: blocking findings, or autopilot halted on conflicts/staleness"}},
	{Command, []string{
		"the orchestrator command failed, timed out or was interrupted; rolled back",
		"(its own exit status is in the message and in --json)",
	}},
	{NoTTY, []string{"input needed but no terminal (the message names the flag to pass)"}},
	{Shared, []string{
		"the shared lifecycle could not be used; nothing ran (lifecycle.remote unreachable,",
		"refusing the update, no such remote, or no git; git's error is in the message)",
	}},
}

// All returns every exit code, in increasing order.
func All() []Code {
	out := make([]Code, len(table))
	for i, e := range table {
		out[i] = e.code
	}
	return out
}

// Meaning is the one-line meaning of c ("" for a code orchestrate never
// returns).
func (c Code) Meaning() string {
	for _, e := range table {
		if e.code == c {
			return strings.Join(e.meaning, " ")
		}
	}
	return ""
}

// Help is the exit-code table of --help and the README, generated from the
// same definitions as the codes.
func Help() string {
	var b strings.Builder
	b.WriteString("Exit codes:")
	for _, e := range table {
		for i, line := range e.meaning {
			if i == 0 {
				fmt.Fprintf(&b, "\n  %2d  %s", int(e.code), line)
				continue
			}
			fmt.Fprintf(&b, "\n      %s", line)
		}
	}
	return b.String()
}
