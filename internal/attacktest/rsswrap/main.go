// Command rsswrap runs a command and writes down what that command alone
// used: its peak resident memory and its CPU time. The attack suite starts
// every orchestrate run through it.
//
// Usage: rsswrap REPORT COMMAND [ARG...]
//
// The reason is how Linux counts a child's peak memory. Go starts a child
// with vfork semantics (the child runs in the parent's memory until exec), and
// at exec the kernel keeps the old memory's peak as the child's starting
// maxrss. Started straight from a big test process (the race detector's
// shadow included), every child "peaked" at the test process's size: a 95 ms
// status run showed 522 MiB and failed the 512 MiB bound. Started from this
// small process, a child's starting maxrss is this process's few MiB.
//
// The command inherits the environment, the folder and the three standard
// files. REPORT gets one line, "maxrss_kib user_ns system_ns", once the
// command has ended; rsswrap then exits with the command's exit code, or is
// ended by the signal that ended the command.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: rsswrap REPORT COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintln(os.Stderr, "rsswrap:", err)
		os.Exit(2)
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		fmt.Fprintln(os.Stderr, "rsswrap: no resource usage for the command")
		os.Exit(2)
	}
	line := fmt.Sprintf("%d %d %d\n", ru.Maxrss, ru.Utime.Nano(), ru.Stime.Nano())
	if err := os.WriteFile(os.Args[1], []byte(line), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "rsswrap:", err)
		os.Exit(2)
	}
	if ws.Signaled() {
		signal.Reset(ws.Signal())
		_ = syscall.Kill(os.Getpid(), ws.Signal())
		time.Sleep(time.Second) // the signal ends this process; if not:
		os.Exit(128 + int(ws.Signal()))
	}
	os.Exit(ws.ExitStatus())
}
