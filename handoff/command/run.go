package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
)

// Options is how a handoff command runs.
type Options struct {
	// Root is the folder it runs in.
	Root string
	// Env is its base environment, injected by the caller (nil: an empty
	// one; this package never reads the process's own); the placeholder
	// variables are set on top.
	Env []string
	// Stdin is its standard input, injected by the caller (nil: none, the
	// null device).
	Stdin *os.File
	// Stdout and Stderr receive its output (nil: discarded).
	Stdout, Stderr io.Writer
	// Timeout ends it (TERM, Grace, KILL to its process group) when it
	// runs longer; 0 means no limit.
	Timeout time.Duration
	// Grace is how long it has to end after being told to stop; 0 is
	// DefaultGrace.
	Grace time.Duration
	// OnStart, when set, is called once the command's process has started
	// (before Run waits for it): the handoff records the start there.
	OnStart func()
}

// terminal is the controlling terminal a command is given the foreground
// of, and the process group to give it back to.
type terminal struct {
	fd   int
	pgrp int
}

// foregroundTerminal returns the terminal on f when f is one and this
// process's group is its foreground group.
func foregroundTerminal(f *os.File) (terminal, bool) {
	if f == nil {
		return terminal{}, false
	}
	fd := int(f.Fd())
	pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	if err != nil || pgrp != unix.Getpgrp() {
		return terminal{}, false
	}
	return terminal{fd: fd, pgrp: pgrp}, true
}

// restore gives the terminal's foreground back. This process is in a
// background group at that point, so SIGTTOU is ignored for the call.
func (t terminal) restore() { t.give(t.pgrp) }

// give makes process group pgrp the terminal's foreground, SIGTTOU ignored
// for the call.
func (t terminal) give(pgrp int) {
	ignored := signal.Ignored(syscall.SIGTTOU)
	signal.Ignore(syscall.SIGTTOU)
	_ = unix.IoctlSetPointerInt(t.fd, unix.TIOCSPGRP, pgrp)
	if !ignored {
		signal.Reset(syscall.SIGTTOU)
	}
}

// suspend is what a shell's job does when the command it waits for stops
// (Ctrl-Z at the agent, which has the terminal's foreground): the
// terminal is taken back and orchestrate's own group (the user shell's job)
// is stopped as Ctrl-Z would have stopped it, so the shell gets its prompt
// back. Once continued (fg), the command's group gets the foreground again
// when orchestrate has it, and is continued (bg: continued in the
// background, where an agent reading the terminal stops again). In a group
// no shell controls (orphaned), the kernel drops the stop and the command
// goes on at once.
func (t terminal) suspend(pgid int) {
	t.restore()
	_ = syscall.Kill(0, syscall.SIGTSTP)
	if pg, err := unix.IoctlGetInt(t.fd, unix.TIOCGPGRP); err == nil && pg == t.pgrp {
		t.give(pgid)
	}
	_ = syscall.Kill(-pgid, syscall.SIGCONT)
}

// Run renders tmpl with data (Render) and runs it with
// /bin/sh -c in opts.Root, with the placeholder variables (among them
// ORCHESTRATE_HANDOFF=<data.EnvelopePath>) on top of opts.Env. It returns
// the command's exit status (128+n when it ended by signal n); a non-zero
// status alone is not an error. err is a *TemplateError or *ValueError when
// the template or a value is refused (nothing run), a *Error when
// the command timed out or was interrupted, or another error when it could
// not start.
//
// The command runs in a process group of its own, so a stop reaches every
// process it started (the agent, not just sh): SIGINT, SIGTERM and SIGHUP
// received by orchestrate are forwarded to the group; the timeout sends
// SIGTERM. Either way the group gets opts.Grace to end, then SIGKILL, and
// Run returns only once the group is gone (bounded), so the caller
// rolls back and releases the lock after the agent ended. When stdin is the
// terminal and orchestrate is in its foreground, the command's group is
// given the foreground (and it is taken back afterwards): Ctrl-C at an
// interactive agent then reaches the agent's group once, as if it had been
// started by the shell, and not orchestrate. Ctrl-Z stops the agent's group,
// then orchestrate's as a shell's job stops (terminal.suspend; Linux), and
// fg continues both.
func Run(ctx context.Context, tmpl string, data Data, opts Options) (int, error) {
	return RunNamed(ctx, "handoff.command", tmpl, data, opts)
}

// RunNamed is Run for the template called name (handoff.command or
// handoff.fallback_command), the name its errors carry.
func RunNamed(ctx context.Context, name, tmpl string, data Data, opts Options) (int, error) {
	rendered, err := RenderNamed(name, tmpl, data)
	if err != nil {
		return -1, err
	}
	return runRendered(ctx, name, rendered, opts)
}

// runRendered runs a rendered command (RunNamed, RunArgv).
func runRendered(ctx context.Context, name string, rendered Rendered, opts Options) (int, error) {
	if strings.TrimSpace(rendered.Script) == "" {
		return -1, fmt.Errorf("%s renders to an empty command", name)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return -1, fmt.Errorf("the orchestrator command was not started: %w", context.Cause(ctx))
	}
	env := opts.Env
	cmdEnv := make([]string, 0, len(env)+len(rendered.Env))
	for _, kv := range env {
		keep := true
		for _, p := range placeholders {
			if strings.HasPrefix(kv, p.env+"=") {
				keep = false
			}
		}
		if keep {
			cmdEnv = append(cmdEnv, kv)
		}
	}
	cmdEnv = append(cmdEnv, rendered.Env...)
	stdout, stderr := opts.Stdout, opts.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	stdin := opts.Stdin
	grace := opts.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}

	shArgs := []string{"-c", rendered.Script}
	if len(rendered.Args) > 0 {
		shArgs = append(append(shArgs, argvZero), rendered.Args...)
	}
	cmd := exec.Command("/bin/sh", shArgs...)
	cmd.Dir = opts.Root
	cmd.Env = cmdEnv
	if stdin != nil {
		cmd.Stdin = stdin // a nil *os.File must not become a non-nil io.Reader
	}
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.WaitDelay = grace // a process left holding an output pipe cannot hold us
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	term, fg := foregroundTerminal(stdin)
	if fg {
		cmd.SysProcAttr.Foreground = true
		cmd.SysProcAttr.Ctty = term.fd
	}

	// listen before starting: a signal in between must not kill orchestrate
	// and leave the command running
	defer fastsys.Hold()() // the handler must run while a file-system call waits
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	var chld chan os.Signal // the command's stops, when it has the terminal
	if fg && jobControl {
		chld = make(chan os.Signal, 4)
		signal.Notify(chld, syscall.SIGCHLD)
		defer signal.Stop(chld)
	}
	if err := cmd.Start(); err != nil {
		if fg {
			term.restore()
		}
		return -1, fmt.Errorf("start the orchestrator command: %w", err)
	}
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if opts.OnStart != nil {
		opts.OnStart()
	}

	var timeoutC <-chan time.Time
	if opts.Timeout > 0 {
		t := time.NewTimer(opts.Timeout)
		defer t.Stop()
		timeoutC = t.C
	}
	var (
		reason   string
		sigName  string
		graceC   <-chan time.Time
		deadline time.Time
		killed   bool
		werr     error
		cause    error
	)
	ctxDone := ctx.Done()
	stop := func(r string, s syscall.Signal) {
		if reason == "" {
			reason = r
		}
		_ = syscall.Kill(-pgid, s)
		_ = syscall.Kill(-pgid, syscall.SIGCONT) // a stopped group takes it now
		if graceC == nil && !killed {
			deadline = time.Now().Add(grace)
			graceC = time.After(grace)
		}
	}
wait:
	for {
		select {
		case werr = <-done:
			break wait
		case <-chld:
			if reason == "" && childStopped(pgid) {
				term.suspend(pgid)
			}
		case s := <-sigs:
			ss, _ := s.(syscall.Signal)
			if sigName == "" {
				sigName = signalName(ss)
			}
			stop(ReasonInterrupted, ss)
		case <-timeoutC:
			timeoutC = nil
			stop(ReasonTimeout, syscall.SIGTERM)
		case <-ctxDone:
			ctxDone = nil
			if reason == "" {
				cause = context.Cause(ctx)
			}
			stop(ReasonInterrupted, syscall.SIGTERM)
		case <-graceC:
			graceC, killed = nil, true
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	}
	if fg {
		term.restore()
	}
	if reason != "" {
		// the leader ended; the rest of its group gets what is left of the
		// grace period, then SIGKILL
		if deadline.IsZero() || killed {
			deadline = time.Now()
		}
		waitGroupGone(pgid, deadline)
	}
	status := exitStatus(cmd, werr)
	if reason != "" {
		return status, &Error{Reason: reason, Status: status, Signal: sigName, Timeout: opts.Timeout, Command: rendered.Display, Cause: cause}
	}
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) && !errors.Is(werr, exec.ErrWaitDelay) {
		return status, fmt.Errorf("run the orchestrator command: %w", werr)
	}
	return status, nil
}

// waitGroupGone waits until no process of group pgid is left, up to
// deadline, then kills what remains and waits a little more.
func waitGroupGone(pgid int, deadline time.Time) {
	for groupAlive(pgid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !groupAlive(pgid) {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	for end := time.Now().Add(time.Second); groupAlive(pgid) && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
}

// groupAlive reports whether a process of group pgid is still running. A
// zombie does not count: an orphan that ended stays one until init reaps
// it, and a container's init may never do so. Without /proc, any process
// of the group counts.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) == syscall.ESRCH {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	want := strconv.Itoa(pgid)
	for _, e := range entries {
		name := e.Name()
		if name == "" || name[0] < '0' || name[0] > '9' {
			continue
		}
		stat, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold anything, so split
		// after its closing parenthesis
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) >= 3 && f[2] == want && f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}

// exitStatus is the status of a finished command: its exit code, 128+n
// when it ended by signal n, -1 when it did not run.
func exitStatus(cmd *exec.Cmd, werr error) int {
	ps := cmd.ProcessState
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// signalName is "SIGTERM" for syscall.SIGTERM.
func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return s.String()
}
