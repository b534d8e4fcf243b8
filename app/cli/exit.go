package cli

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
	var bare *loaded.BareRepoError
	if errors.As(err, &ue) || errors.As(err, &bare) {
		return ExitUsage
	}
	return ExitError
}

// usageError marks a usage error (exit 2). hint is set for a bad command
// line (unknown command or flag, wrong arguments), where the command's
// --help helps; a bad configuration value is a usage error without it.
type usageError struct {
	err  error
	hint bool
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// cmdLineError marks err as a bad command line: exit 2, followed by the
// hint to read the command's --help.
func cmdLineError(err error) error {
	var ue *usageError
	if errors.As(err, &ue) {
		return &usageError{err: ue.err, hint: true}
	}
	return &usageError{err: err, hint: true}
}
