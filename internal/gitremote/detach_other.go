//go:build !unix

package gitremote

import "os/exec"

// detach does nothing where there are no sessions; the timeout still ends git.
func detach(*exec.Cmd) {}
