package handoff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"text/template"
)

// EnvHandoff is the environment variable that carries the envelope path to
// the orchestrator command.
const EnvHandoff = "ORCHESTRATE_HANDOFF"

// CommandData is what a handoff.command template may use:
// {{.EnvelopePath}} {{.AISessionID}} {{.Agent}} {{.WorkflowID}} {{.Phase}}
// {{.Root}}.
type CommandData struct {
	EnvelopePath string
	AISessionID  string
	Agent        string
	WorkflowID   string
	Phase        string
	Root         string
}

// CommandError is an orchestrator command that exited with a non-zero
// status; the resume failed and was rolled back.
type CommandError struct {
	Status  int
	Command string
}

// Error implements error.
func (e *CommandError) Error() string {
	return fmt.Sprintf("the orchestrator command exited with status %d: %s", e.Status, e.Command)
}

// shellSafe reports whether s can go on a shell command line as it is.
func shellSafe(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("@%+=:,./_-", r):
		default:
			return false
		}
	}
	return true
}

// shellQuote quotes s for sh when it holds anything but plain characters, so
// a value from a state file (a session id, a path with spaces) cannot inject
// shell syntax.
func shellQuote(s string) string {
	if s == "" {
		return ""
	}
	if shellSafe(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// RenderCommand expands a handoff.command template. Values that are not
// plain words (letters, digits and @%+=:,./_-) are single-quoted for the
// shell; an empty value stays empty.
func RenderCommand(tmpl string, data CommandData) (string, error) {
	t, err := template.New("handoff.command").Option("missingkey=error").Parse(tmpl)
	if err != nil {
		return "", fmt.Errorf("handoff.command template: %w", err)
	}
	q := CommandData{
		EnvelopePath: shellQuote(data.EnvelopePath),
		AISessionID:  shellQuote(data.AISessionID),
		Agent:        shellQuote(data.Agent),
		WorkflowID:   shellQuote(data.WorkflowID),
		Phase:        shellQuote(data.Phase),
		Root:         shellQuote(data.Root),
	}
	var b strings.Builder
	if err := t.Execute(&b, q); err != nil {
		return "", fmt.Errorf("handoff.command template: %w", err)
	}
	return b.String(), nil
}

// RunCommand renders tmpl with data and runs it through sh -c in root, with
// env plus ORCHESTRATE_HANDOFF=<data.EnvelopePath> (env nil means this
// process's environment), stdin from this process, and stdout/stderr as
// given. It returns the command's exit status (128+n when killed by signal
// n); err is set when the template is wrong or the command could not run.
// While the command runs, SIGINT is left to it (the terminal delivers it to
// both) and SIGTERM/SIGHUP are forwarded, so this process survives to roll
// back on failure.
func RunCommand(ctx context.Context, tmpl string, data CommandData, root string, env []string, stdout, stderr io.Writer) (int, error) {
	line, err := RenderCommand(tmpl, data)
	if err != nil {
		return -1, err
	}
	if strings.TrimSpace(line) == "" {
		return -1, errors.New("handoff.command renders to an empty command")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if env == nil {
		env = os.Environ()
	}
	cmdEnv := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, EnvHandoff+"=") {
			cmdEnv = append(cmdEnv, kv)
		}
	}
	cmdEnv = append(cmdEnv, EnvHandoff+"="+data.EnvelopePath)
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}

	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", line)
	cmd.Dir = root
	cmd.Env = cmdEnv
	cmd.Stdin = os.Stdin
	cmd.Stdout = stdout
	cmd.Stderr = stderr

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return -1, fmt.Errorf("start the orchestrator command: %w", err)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				if s != os.Interrupt && cmd.Process != nil {
					_ = cmd.Process.Signal(s)
				}
			case <-done:
				return
			}
		}
	}()
	werr := cmd.Wait()
	close(done)
	if werr == nil {
		return 0, nil
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		status := ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			status = 128 + int(ws.Signal())
		}
		if ctx.Err() != nil {
			return status, fmt.Errorf("the orchestrator command was stopped: %w", ctx.Err())
		}
		return status, nil
	}
	return -1, fmt.Errorf("run the orchestrator command: %w", werr)
}
