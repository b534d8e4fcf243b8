//go:build !unix

package pathglob

import "errors"

// mkfifo fails: no FIFOs here.
func mkfifo(string) error { return errors.New("no FIFOs on this system") }
