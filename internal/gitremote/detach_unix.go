//go:build unix

package gitremote

import (
	"os/exec"
	"syscall"
)

// detach runs cmd in a session of its own, without a controlling terminal
// (ssh cannot ask for a passphrase on /dev/tty), and makes the timeout
// kill its whole process group (ssh, git-remote-https), not git alone.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
