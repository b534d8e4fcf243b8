package cli

import (
	"errors"
	"fmt"

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
)

// ExitCodesHelp documents the exit codes for --help and the README.
var ExitCodesHelp = exitcode.Help()

// ExitErr carries an exit code out of a command. A nil Err means the
// command already printed what it had to say.
type ExitErr struct {
	Code int
	Err  error
}

func (e *ExitErr) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitErr) Unwrap() error { return e.Err }

// exitf returns an ExitErr with a formatted message.
func exitf(code int, format string, args ...any) error {
	return &ExitErr{Code: code, Err: fmt.Errorf(format, args...)}
}

// silent returns an ExitErr whose message was already printed.
func silent(code int) error { return &ExitErr{Code: code} }

// codeOf maps an error to its exit code.
func codeOf(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitErr
	if errors.As(err, &ee) {
		return ee.Code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return ExitUsage
	}
	return ExitError
}

// usageError marks a bad command line.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}
