//go:build !unix

package prompt

import "os"

// run has no raw terminal to ask on outside Unix systems.
func run(_, _ *os.File, _ model, _ style) error { return ErrNoTerminal }
