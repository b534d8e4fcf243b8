package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/modes/prompttest"
)

func runWith(t *testing.T, dir string, p modes.Prompter, args ...string) *fakeRun {
	t.Helper()
	r := &fakeRun{}
	sys := System{
		IO: IOStreams{In: strings.NewReader(""), Out: &r.out, ErrOut: &r.err, InTTY: p != nil, ErrTTY: p != nil},
		// the test repositories' configs are the test's own: trusted
		Getenv: func(k string) string {
			if k == "ORCHESTRATE_TRUST_REPO_CONFIG" {
				return "1"
			}
			return ""
		},
		Now:      func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) },
		Getwd:    func() (string, error) { return dir, nil },
		Prompter: p,
	}
	r.code = Main(args, sys)
	return r
}

func exitRepo(t *testing.T) string {
	return testRepo(t, map[string]string{
		".orchestrate/workflows/sdc-1.yaml": strings.Replace(sdcState, "%s", "interactive", 1),
		".orchestrate/workflows/done-1.yaml": "execution_id: done-1\nworkflow: story-development-cycle\nstory: \"4.1\"\n" +
			"updated_at: 2026-11-19T11:30:00Z\nstatus: completed\n",
		".orchestrate/workflows/broken-1.yaml": "execution_id: broken-1\nworkflow: story-development-cycle\nstory: \"4.9\"\n" +
			"updated_at: 2026-11-20T11:00:00Z\nstatus: paused\ncurrent_phase: implement\n",
		"docs/stories/4.2.s.md": story42,
		"docs/stories/4.1.d.md": "# Story 4.1: D\n**Status:** Done\n",
	})
}

// Every exit code of the table (internal/exitcode), exactly, dry runs
// included: a dry run exits as the real run would.
func TestExitCodes(t *testing.T) {
	host, _ := os.Hostname()
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		p     modes.Prompter
		args  []string
		want  int
		check func(t *testing.T, dir string, r *fakeRun)
	}{
		{name: "0 resumed", args: []string{"resume", "--mode", "autopilot", "sdc-1"}, want: cmdutil.ExitOK,
			check: func(t *testing.T, dir string, r *fakeRun) {
				data, _ := os.ReadFile(filepath.Join(dir, ".orchestrate/workflows/sdc-1.yaml"))
				if !bytes.Contains(data, []byte("status: active")) {
					t.Errorf("state not updated:\n%s", data)
				}
			}},
		{name: "0 nothing to resume", setup: func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, ".orchestrate"))
			os.Remove(filepath.Join(dir, "docs/stories/4.2.s.md"))
		}, args: []string{"resume"}, want: cmdutil.ExitOK},
		{name: "1 io error", setup: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ".orchestrate/handoffs"), []byte("not a folder"), 0o644)
		}, args: []string{"resume", "--mode", "autopilot", "sdc-1"}, want: cmdutil.ExitError},
		{name: "2 usage", args: []string{"resume", "--nope"}, want: cmdutil.ExitUsage},
		{name: "2 unknown command", args: []string{"stauts"}, want: cmdutil.ExitUsage,
			check: func(t *testing.T, dir string, r *fakeRun) {
				for _, want := range []string{`unknown command "stauts" for "orchestrate"; did you mean status?`, "Run 'orchestrate --help' for usage."} {
					if !strings.Contains(r.err.String(), want) {
						t.Errorf("stderr lacks %q:\n%s", want, r.err.String())
					}
				}
			}},
		{name: "2 argument to a command without any", args: []string{"version", "extra"}, want: cmdutil.ExitUsage},
		{name: "2 too many arguments", args: []string{"resume", "a", "b"}, want: cmdutil.ExitUsage},
		{name: "2 unknown shell", args: []string{"completion", "tcsh"}, want: cmdutil.ExitUsage,
			check: func(t *testing.T, dir string, r *fakeRun) {
				if !strings.Contains(r.err.String(), "bash, zsh, fish or powershell") || r.out.Len() != 0 {
					t.Errorf("stdout:\n%s\nstderr:\n%s", r.out.String(), r.err.String())
				}
			}},
		{name: "2 unknown flag with --json", args: []string{"resume", "--json", "--nope"}, want: cmdutil.ExitUsage,
			check: func(t *testing.T, dir string, r *fakeRun) {
				for _, want := range []string{`"schema": "orchestrate/v1"`, `"command": "resume"`, `"outcome": "error"`, `"exit_code": 2`, `"error": "unknown flag: --nope"`} {
					if !strings.Contains(r.out.String(), want) {
						t.Errorf("stdout lacks %s:\n%s", want, r.out.String())
					}
				}
			}},
		{name: "2 config error: no --help hint", setup: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ".orchestrate.yaml"), []byte("resume:\n  mode: bogus\n"), 0o644)
		}, args: []string{"resume", "--json", "sdc-1"}, want: cmdutil.ExitUsage,
			check: func(t *testing.T, dir string, r *fakeRun) {
				if strings.Contains(r.err.String(), "--help") {
					t.Errorf("a config error got the --help hint:\n%s", r.err.String())
				}
				if !strings.Contains(r.out.String(), `"outcome": "error"`) {
					t.Errorf("--json printed no error document:\n%s", r.out.String())
				}
			}},
		{name: "2 ambiguous", args: []string{"resume", "--dry-run", "workflow:"}, want: cmdutil.ExitUsage},
		{name: "10 declined", p: prompttest.Answering("cancel"), args: []string{"resume", "sdc-1"}, want: cmdutil.ExitDeclined,
			check: func(t *testing.T, dir string, r *fakeRun) {
				if _, err := os.Stat(filepath.Join(dir, ".orchestrate/handoffs")); err == nil {
					t.Error("declined resume wrote a handoff")
				}
			}},
		{name: "10 ctrl-c", p: prompttest.Failing(modes.ErrInterrupted), args: []string{"resume", "sdc-1"}, want: cmdutil.ExitDeclined},
		{name: "10 preflight not approved", p: prompttest.Answering("no"), args: []string{"resume", "--mode", "preflight", "sdc-1"}, want: cmdutil.ExitDeclined},
		{name: "0 preflight proceed", p: prompttest.Answering("proceed"), args: []string{"resume", "--mode", "preflight", "sdc-1"}, want: cmdutil.ExitOK},
		{name: "0 interactive yes", p: prompttest.Answering("yes"), args: []string{"resume", "sdc-1"}, want: cmdutil.ExitOK},
		{name: "14 not found", args: []string{"resume", "nope"}, want: cmdutil.ExitNotFound},
		{name: "15 terminal", args: []string{"resume", "done-1"}, want: cmdutil.ExitTerminal},
		{name: "16 locked", setup: func(t *testing.T, dir string) {
			if _, err := handoff.Acquire(dir, "workflow:sdc-1", handoff.LockInfo{PID: os.Getpid(), Host: host, StartedAt: time.Now()}, false); err != nil {
				t.Fatal(err)
			}
		}, args: []string{"resume", "--mode", "autopilot", "sdc-1"}, want: cmdutil.ExitLocked},
		{name: "16 stale lock of a dead process", setup: func(t *testing.T, dir string) {
			if _, err := handoff.Acquire(dir, "workflow:sdc-1", handoff.LockInfo{PID: deadPID(t), Host: host, StartedAt: time.Now()}, false); err != nil {
				t.Fatal(err)
			}
		}, args: []string{"resume", "--mode", "autopilot", "--json", "sdc-1"}, want: cmdutil.ExitLocked,
			check: func(t *testing.T, dir string, r *fakeRun) {
				for _, want := range []string{`"outcome": "locked"`, `"reason": "stale_lock"`} {
					if !strings.Contains(r.out.String(), want) {
						t.Errorf("--json lacks %s:\n%s", want, r.out.String())
					}
				}
				if !strings.Contains(r.err.String(), "stale") || strings.Contains(r.err.String(), "live process") {
					t.Errorf("stderr does not say stale:\n%s", r.err.String())
				}
			}},
		{name: "17 cannot resume", args: []string{"resume", "--mode", "autopilot", "broken-1"}, want: cmdutil.ExitCannot},
		{name: "17 dry run gate", args: []string{"resume", "--dry-run", "--mode", "autopilot", "broken-1"}, want: cmdutil.ExitCannot},
		{name: "18 command failed", setup: withCommand("exit 16"), args: []string{"resume", "--mode", "autopilot", "--json", "sdc-1"}, want: cmdutil.ExitCommand,
			check: func(t *testing.T, dir string, r *fakeRun) {
				for _, want := range []string{`"outcome": "error"`, `"reason": "command_failed"`, `"reason": "failed"`, `"exit_status": 16`} {
					if !strings.Contains(r.out.String(), want) {
						t.Errorf("--json lacks %s:\n%s", want, r.out.String())
					}
				}
				if !strings.Contains(r.err.String(), "exited with status 16") {
					t.Errorf("stderr lacks the command's status:\n%s", r.err.String())
				}
				assertRolledBack(t, dir)
			}},
		{name: "18 timeout", setup: withCommand("sleep 20", "  timeout: 300ms\n"), args: []string{"resume", "--mode", "autopilot", "--json", "sdc-1"}, want: cmdutil.ExitCommand,
			check: func(t *testing.T, dir string, r *fakeRun) {
				if !strings.Contains(r.out.String(), `"reason": "timeout"`) {
					t.Errorf("--json:\n%s", r.out.String())
				}
				assertRolledBack(t, dir)
			}},
		{name: "17 refused value", setup: func(t *testing.T, dir string) {
			withCommand("touch ran; echo --resume {{.AISessionID}}")(t, dir)
			p := filepath.Join(dir, ".orchestrate/workflows/sdc-1.yaml")
			data, _ := os.ReadFile(p)
			os.WriteFile(p, append(data, "ai_session_id: \"--dangerously-skip-permissions\"\n"...), 0o644)
		}, args: []string{"resume", "--mode", "autopilot", "sdc-1"}, want: cmdutil.ExitCannot,
			check: func(t *testing.T, dir string, r *fakeRun) {
				if !strings.Contains(r.err.String(), "refused") {
					t.Errorf("stderr:\n%s", r.err.String())
				}
				if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
					t.Error("the command ran")
				}
				assertRolledBack(t, dir)
			}},
		{name: "19 no terminal", args: []string{"resume", "sdc-1"}, want: cmdutil.ExitNoTTY},
		{name: "19 dry run, interactive, no terminal", args: []string{"resume", "--dry-run", "sdc-1"}, want: cmdutil.ExitNoTTY},
		{name: "19 dry run, pre-flight, no terminal", args: []string{"resume", "--dry-run", "--mode", "preflight", "sdc-1"}, want: cmdutil.ExitNoTTY},
		{name: "0 dry run, interactive, --approve", args: []string{"resume", "--dry-run", "--approve", "sdc-1"}, want: cmdutil.ExitOK},
		{name: "0 dry run, interactive, terminal", p: prompttest.Answering("yes"), args: []string{"resume", "--dry-run", "sdc-1"}, want: cmdutil.ExitOK},
		{name: "19 dry run, several and no terminal", setup: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ".orchestrate/workflows/sdc-5.yaml"), []byte(strings.Replace(strings.Replace(sdcState, "%s", "interactive", 1), "sdc-1", "sdc-5", 1)), 0o644)
		}, args: []string{"resume", "--dry-run"}, want: cmdutil.ExitNoTTY},
		{name: "19 several and no terminal", setup: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ".orchestrate/workflows/sdc-5.yaml"), []byte(strings.Replace(strings.Replace(sdcState, "%s", "interactive", 1), "sdc-1", "sdc-5", 1)), 0o644)
		}, args: []string{"resume"}, want: cmdutil.ExitNoTTY},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := exitRepo(t)
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			r := runWith(t, dir, tt.p, tt.args...)
			if r.code != tt.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tt.want, r.out.String(), r.err.String())
			}
			if strings.Contains(r.err.String(), "panic") || strings.Contains(r.err.String(), "goroutine ") {
				t.Errorf("stack trace on stderr:\n%s", r.err.String())
			}
			if tt.check != nil {
				tt.check(t, dir, r)
			}
		})
	}
}

// deadPID is the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("no true: %v", err)
	}
	return cmd.Process.Pid
}

// withCommand configures handoff.command (and extra handoff: lines).
func withCommand(cmd string, extra ...string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		cfg := "handoff:\n  command: '" + cmd + "'\n" + strings.Join(extra, "")
		if err := os.WriteFile(filepath.Join(dir, ".orchestrate.yaml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// assertRolledBack checks that sdc-1 was left interrupted: no .bak, no
// envelope, no lock.
func assertRolledBack(t *testing.T, dir string) {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(dir, ".orchestrate/workflows/sdc-1.yaml"))
	if bytes.Contains(data, []byte("status: active")) {
		t.Errorf("state not rolled back:\n%s", data)
	}
	for _, p := range []string{".orchestrate/workflows/sdc-1.yaml.bak", ".orchestrate/handoffs/workflow_sdc-1-1.json", ".orchestrate/locks/workflow_sdc-1.lock"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s left behind", p)
		}
	}
}
