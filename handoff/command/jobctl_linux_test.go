//go:build linux

package command

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	ossignal "os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// jobRole names what this test binary plays when a test starts it again:
// "shell" (a job-control shell on a terminal: it starts "orch" as a job in
// the foreground, reports when the job stops, and continues it in the
// foreground, as fg does) or "orch" (orchestrate running an interactive
// agent with Run).
const jobRole = "ORCHESTRATE_TEST_JOB_ROLE"

func init() {
	switch os.Getenv(jobRole) {
	case "shell":
		os.Exit(playShell())
	case "orch":
		status, err := Run(context.Background(), `printf 'agent ready\n'; read line; printf 'agent got %s\n' "$line"`, Data{}, Options{Root: os.TempDir(), Env: os.Environ(), Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Grace: time.Second})
		if err != nil {
			fmt.Printf("orch: %v\n", err)
		}
		os.Exit(status)
	}
}

// playShell runs the "orch" job in the foreground of its terminal (stdin)
// and waits for it, as a shell with job control does.
func playShell() int {
	signal := func(s string) { fmt.Printf("SHELL: %s\n", s) }
	self, err := os.Executable()
	if err != nil {
		signal(err.Error())
		return 1
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), jobRole+"=orch")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Foreground: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		signal(err.Error())
		return 1
	}
	pid := cmd.Process.Pid
	for {
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(pid, &ws, syscall.WUNTRACED, nil); err != nil {
			signal(err.Error())
			return 1
		}
		switch {
		case ws.Stopped():
			signal("job stopped")
			// fg: the job gets the terminal and is continued
			ossignal.Ignore(syscall.SIGTTOU) // the shell is in the background here
			_ = unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, pid)
			_ = syscall.Kill(-pid, syscall.SIGCONT)
		case ws.Exited():
			signal(fmt.Sprintf("job exited %d", ws.ExitStatus()))
			return 0
		case ws.Signaled():
			signal(fmt.Sprintf("job killed by %v", ws.Signal()))
			return 0
		}
	}
}

// Ctrl-Z at an interactive agent stops it and orchestrate, as it would stop
// a job of the user's shell: the shell sees its job stopped (and gets its
// prompt back); fg continues orchestrate, which gives the agent the
// terminal again and continues it, and the agent reads on.
func TestCtrlZStopsTheJob(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), jobRole+"=shell")
	tty, err := pty.Start(cmd) // the shell leads a session on a terminal of its own
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer tty.Close()
	t.Cleanup(func() { killSession(cmd.Process.Pid) })
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(tty)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	waitFor := func(want string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the terminal closed before %q", want)
				}
				if strings.Contains(l, want) {
					return
				}
			case <-deadline:
				t.Fatalf("no %q within 10 s: the job was not stopped", want)
			}
		}
	}
	waitFor("agent ready")
	if _, err := io.WriteString(tty, "\x1a"); err != nil { // Ctrl-Z
		t.Fatal(err)
	}
	waitFor("SHELL: job stopped")
	if _, err := io.WriteString(tty, "hello\n"); err != nil {
		t.Fatal(err)
	}
	waitFor("agent got hello")
	waitFor("SHELL: job exited 0")
	_ = cmd.Wait()
}

// killSession kills every process of session sid (the shell's, on a
// failure: a stopped agent and the orchestrate waiting for it).
func killSession(sid int) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		// state ppid pgrp session ...
		if f := strings.Fields(string(stat[i+1:])); len(f) > 3 && f[3] == fmt.Sprint(sid) {
			var pid int
			if _, err := fmt.Sscan(e.Name(), &pid); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}
