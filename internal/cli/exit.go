package cli

import (
	"errors"
	"fmt"
)

// Exit codes of DESIGN §9.
const (
	ExitOK       = 0
	ExitError    = 1
	ExitUsage    = 2
	ExitDeclined = 10
	ExitNotFound = 14
	ExitTerminal = 15
	ExitLocked   = 16
	ExitCannot   = 17
	// ExitCommand: the orchestrator command failed, timed out or was
	// interrupted; the resume was rolled back (its own status is in the
	// message and the JSON).
	ExitCommand = 18
	ExitNoTTY   = 19
)

// ExitCodesHelp documents the exit codes for --help and the README.
const ExitCodesHelp = `Exit codes:
   0  resumed, planned (dry run), or nothing to resume
   1  unexpected error (I/O, internal)
   2  usage error (bad flag, ambiguous workflow name)
  10  declined or cancelled by the user
  14  the named workflow does not exist
  15  the workflow is in a terminal state (completed, aborted, cancelled)
  16  locked by a live process
  17  cannot resume: blocking findings, or autopilot halted on conflicts/staleness
  18  the orchestrator command failed, timed out or was interrupted; rolled back
      (its own exit status is in the message and in --json)
  19  input needed but no terminal (the message names the flag to pass)`

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
