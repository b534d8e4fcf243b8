// Package cmdutil holds what every command of app/cli shares and that needs
// none of the command internals (the role of gh's pkg/cmdutil): the exit
// codes and the errors that carry them (ExitErr, usage errors, CodeOf), the
// one way an error's message is printed (SafeErr, LinesError), the rewording
// of cobra's and pflag's errors, and the positional-argument checks and
// command-tree walks.
package cmdutil

import (
	"errors"
	"fmt"

	"github.com/orchestrate-dev/orchestrate/app/loaded"
	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
)

// Exit codes: the command layer's names for the codes of internal/exitcode,
// their one home.
const (
	ExitOK       = int(exitcode.OK)
	ExitError    = int(exitcode.Error)
	ExitUsage    = int(exitcode.Usage)
	ExitDeclined = int(exitcode.Declined)
	ExitNotFound = int(exitcode.NotFound)
	ExitTerminal = int(exitcode.Terminal)
	ExitLocked   = int(exitcode.Locked)
	ExitCannot   = int(exitcode.Cannot)
	// ExitCommand: the orchestrator command failed, timed out or was
	// interrupted; the resume was rolled back.
	ExitCommand = int(exitcode.Command)
	ExitNoTTY   = int(exitcode.NoTTY)
	// ExitShared: the shared lifecycle (lifecycle.remote) could not be used.
	ExitShared = int(exitcode.Shared)
)

// ExitCodesHelp documents the exit codes for --help and the README.
var ExitCodesHelp = exitcode.Help()

// ExitErr carries an exit code out of a command. A nil Err means the
// command already printed what it had to say.
type ExitErr struct {
	Code int
	Err  error
}

// Error is the message of Err, or the bare exit code when there is none.
func (e *ExitErr) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns Err.
func (e *ExitErr) Unwrap() error { return e.Err }

// Exitf returns an ExitErr with a formatted message.
func Exitf(code int, format string, args ...any) error {
	return &ExitErr{Code: code, Err: fmt.Errorf(format, args...)}
}

// Silent returns an ExitErr whose message was already printed.
func Silent(code int) error { return &ExitErr{Code: code} }

// CodeOf maps an error to its exit code.
func CodeOf(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitErr
	if errors.As(err, &ee) {
		return ee.Code
	}
	var ue *UsageError
	var bare *loaded.BareRepoError
	if errors.As(err, &ue) || errors.As(err, &bare) {
		return ExitUsage
	}
	return ExitError
}

// UsageError marks a usage error (exit 2). hint is set for a bad command
// line (unknown command or flag, wrong arguments), where the command's
// --help helps; a bad configuration value is a usage error without it.
type UsageError struct {
	err  error
	hint bool
}

// Error is the message.
func (e *UsageError) Error() string { return e.err.Error() }

// Unwrap returns the error marked.
func (e *UsageError) Unwrap() error { return e.err }

// Hint reports whether the error is a bad command line, to be followed by
// the hint to read the command's --help.
func (e *UsageError) Hint() bool { return e.hint }

// Usagef returns a usage error (exit 2) with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{err: fmt.Errorf(format, args...)}
}

// CmdLineError marks err as a bad command line: exit 2, followed by the
// hint to read the command's --help.
func CmdLineError(err error) error {
	var ue *UsageError
	if errors.As(err, &ue) {
		return &UsageError{err: ue.err, hint: true}
	}
	return &UsageError{err: err, hint: true}
}
