package cli

// The command layer over resumeflow's state machine: each transition as the
// user sees it (what is printed where, the exit code), driven through the
// injected prompter, streams and clock.

import (
	"encoding/json"
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

// runEnv calls Main with fake streams (a terminal when p is set), a pinned
// clock, the environment env (the repository's config trusted unless env
// says otherwise; PATH and HOME from the test's own) and p.
func runEnv(t *testing.T, dir string, env map[string]string, p modes.Prompter, args ...string) *fakeRun {
	t.Helper()
	r := &fakeRun{}
	full := map[string]string{"ORCHESTRATE_TRUST_REPO_CONFIG": "1", "PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME")}
	for k, v := range env {
		full[k] = v
	}
	sys := System{
		IO:       IOStreams{In: strings.NewReader(""), Out: &r.out, ErrOut: &r.err, InTTY: p != nil, ErrTTY: p != nil},
		Getenv:   func(k string) string { return full[k] },
		Environ:  func() []string { return nil },
		Now:      func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) },
		Getwd:    func() (string, error) { return dir, nil },
		Prompter: p,
		Pid:      os.Getpid(),
	}
	r.code = Main(args, sys)
	return r
}

// check fails t unless r exited with code and its streams hold the texts.
func check(t *testing.T, r *fakeRun, code int, stdout, stderr []string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.out.String(), r.err.String())
	}
	for _, s := range stdout {
		if !strings.Contains(r.out.String(), s) {
			t.Errorf("stdout lacks %q:\n%s", s, r.out.String())
		}
	}
	for _, s := range stderr {
		if !strings.Contains(r.err.String(), s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.err.String())
		}
	}
}

func TestResumeTransitions(t *testing.T) {
	host, _ := os.Hostname()
	staleLock := func(t *testing.T, dir string) {
		if _, err := handoff.Acquire(dir, "workflow:sdc-1", handoff.LockInfo{PID: deadPID(t), Host: host, StartedAt: time.Now().Add(-time.Hour)}, false); err != nil {
			t.Fatal(err)
		}
	}
	handedOff := func(t *testing.T, dir string) {
		if r := runEnv(t, dir, nil, nil, "resume", "--mode", "autopilot", "sdc-1"); r.code != cmdutil.ExitOK {
			t.Fatalf("first handoff: exit %d\n%s", r.code, r.err.String())
		}
	}
	tests := []struct {
		name    string
		repo    func(t *testing.T) string
		setup   func(t *testing.T, dir string)
		replies []prompttest.Reply
		args    []string
		code    int
		stdout  []string
		stderr  []string
		asked   []string
	}{
		{name: "autopilot on conflicts switches to interactive; resumed anyway",
			repo: conflictRepo, args: []string{"resume", "--mode", "autopilot"},
			replies: []prompttest.Reply{{Index: 0}},
			code:    cmdutil.ExitOK, stderr: []string{"Autopilot stopped (", "switching to interactive mode"},
			stdout: []string{"Handing off to @dev...", "forced, logged"}, asked: []string{modes.QuestionResume}},
		{name: "interactive on conflicts: restart from scratch",
			repo: conflictRepo, args: []string{"resume", "sdc-4.2"},
			replies: []prompttest.Reply{{Index: 1}},
			code:    cmdutil.ExitOK, stdout: []string{"Restarting from the first phase (existing artifacts are kept).", "Handing off to @sm..."}},
		{name: "interactive on conflicts: cancel",
			repo: conflictRepo, args: []string{"resume", "sdc-4.2"},
			replies: []prompttest.Reply{{Index: 2}},
			code:    cmdutil.ExitDeclined, stderr: []string{"Cancelled: nothing was changed."}},
		{name: "interactive on conflicts, --json: the question is asked, the document follows",
			repo: conflictRepo, args: []string{"resume", "--json", "sdc-4.2"},
			replies: []prompttest.Reply{{Err: modes.ErrInterrupted}},
			code:    cmdutil.ExitDeclined, stdout: []string{`"outcome": "declined"`}, stderr: []string{"Cancelled"}},
		{name: "several workflows: the pick list, then the question",
			repo: multipleRepo, args: []string{"resume"},
			replies: []prompttest.Reply{{Index: 0}, {Index: 2}},
			code:    cmdutil.ExitDeclined, asked: []string{modes.QuestionCandidate, modes.QuestionResume}},
		{name: "several workflows: none chosen",
			repo: multipleRepo, args: []string{"resume", "--json"},
			replies: []prompttest.Reply{{Index: 3}},
			code:    cmdutil.ExitDeclined, stdout: []string{`"outcome": "declined"`}, stderr: []string{"Cancelled: nothing was changed."}},
		{name: "a stale lock taken over at the prompt",
			repo: exitRepo, setup: staleLock, args: []string{"resume", "sdc-1"},
			replies: []prompttest.Reply{{Index: 0}, {Yes: true}},
			code:    cmdutil.ExitOK, stderr: []string{"Took over the stale lock of pid"}},
		{name: "a stale lock left in place",
			repo: exitRepo, setup: staleLock, args: []string{"resume", "sdc-1"},
			replies: []prompttest.Reply{{Index: 0}, {Yes: false}},
			code:    cmdutil.ExitDeclined, stderr: []string{"Lock left in place: nothing was changed."}},
		{name: "a stale lock without a terminal: exit 16, reason stale_lock",
			repo: exitRepo, setup: staleLock, args: []string{"resume", "--approve", "--json", "sdc-1"},
			code: cmdutil.ExitLocked, stdout: []string{`"reason": "stale_lock"`}, stderr: []string{"orchestrate unlock workflow:sdc-1"}},
		{name: "already handed off: asked, handed off again",
			repo: exitRepo, setup: handedOff, args: []string{"resume", "sdc-1"},
			replies: []prompttest.Reply{{Index: 0}, {Yes: true}},
			code:    cmdutil.ExitOK, stdout: []string{"Handing workflow:sdc-1 off again at the same phase (logged as again)."},
			asked: []string{modes.QuestionResume, "workflow:sdc-1 was already handed off 0 seconds ago. " + modes.QuestionAgain}},
		{name: "already handed off: not again",
			repo: exitRepo, setup: handedOff, args: []string{"resume", "--mode", "autopilot", "--json", "sdc-1"},
			code: cmdutil.ExitOK, stdout: []string{`"reason": "already_handed_off"`}, stderr: []string{"Already handed off", "--again"}},
		{name: "the command fails: exit 18 with its result",
			repo: exitRepo, setup: withCommand("exit 3"), args: []string{"resume", "--mode", "autopilot", "--json", "sdc-1"},
			code: cmdutil.ExitCommand, stdout: []string{`"command_result"`, `"exit_status": 3`}, stderr: []string{"The orchestrator command failed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.repo(t)
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			var p modes.Prompter
			var sp *prompttest.Prompter
			if tc.replies != nil {
				sp = prompttest.Script(t, tc.replies...)
				p = sp
			}
			r := runEnv(t, dir, nil, p, tc.args...)
			check(t, r, tc.code, tc.stdout, tc.stderr)
			if sp != nil && len(sp.Replies) > 0 {
				t.Errorf("unasked replies left; asked %q", sp.Messages())
			}
			if tc.asked != nil && strings.Join(sp.Messages(), "|") != strings.Join(tc.asked, "|") {
				t.Errorf("asked %q, want %q", sp.Messages(), tc.asked)
			}
			if strings.Contains(strings.Join(tc.args, " "), "--json") && !json.Valid(r.out.Bytes()) {
				t.Errorf("stdout is not one JSON document:\n%s", r.out.String())
			}
		})
	}
}

// A halted interactive resume of a stale workflow offers the cleanup
// instead; chosen, the state is archived.
func TestResumeOffersCleanupInstead(t *testing.T) {
	// interrupted ten days ago, its story gone: it cannot resume, a restart
	// would not help, and it is stale
	state := strings.Replace(strings.Replace(sdcState, "%s", "interactive", 1), "2026-11-20T11:30:00Z", "2026-11-10T11:30:00Z", 1)
	for _, tc := range []struct {
		name    string
		replies []prompttest.Reply
		code    int
		stdout  []string
	}{
		{"cleaned up instead", []prompttest.Reply{{Index: 0}, {Yes: true}}, cmdutil.ExitOK, []string{"=== Cleanup: workflow:sdc-1", "Cleaned up workflow:sdc-1."}},
		{"cancelled", []prompttest.Reply{{Index: 1}}, cmdutil.ExitDeclined, nil},
		{"interrupted", []prompttest.Reply{{Err: modes.ErrInterrupted}}, cmdutil.ExitDeclined, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testRepo(t, map[string]string{".orchestrate/workflows/sdc-1.yaml": state})
			sp := prompttest.Script(t, tc.replies...)
			r := runEnv(t, dir, nil, sp, "resume", "sdc-1")
			check(t, r, tc.code, tc.stdout, nil)
			if got := sp.Messages(); len(got) == 0 || got[0] != modes.QuestionInstead {
				t.Errorf("asked %q", got)
			}
		})
	}
}

func TestRepoConfigTrust(t *testing.T) {
	cfg := ".orchestrate.yaml"
	untrusted := map[string]string{"ORCHESTRATE_TRUST_REPO_CONFIG": ""}
	tests := []struct {
		name    string
		replies []prompttest.Reply
		tty     bool
		code    int
		stderr  []string
	}{
		{name: "no terminal: exit 19 naming orchestrate trust", code: cmdutil.ExitNoTTY,
			stderr: []string{"would run handoff.command", "orchestrate trust"}},
		{name: "declined at the prompt", tty: true, replies: []prompttest.Reply{{Yes: false}}, code: cmdutil.ExitDeclined,
			stderr: []string{"It would make orchestrate:", "Not trusted: nothing was run or changed."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := exitRepo(t)
			writeFile(t, filepath.Join(dir, cfg), "handoff:\n  command: 'true'\n")
			var p modes.Prompter
			if tc.tty {
				p = prompttest.Script(t, tc.replies...)
			}
			r := runEnv(t, dir, untrusted, p, "resume", "--mode", "autopilot", "sdc-1")
			check(t, r, tc.code, nil, tc.stderr)
		})
	}
}

func TestCleanupCommand(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		replies []prompttest.Reply
		code    int
		stdout  []string
		stderr  []string
	}{
		{name: "no WORKFLOW lists the candidates", args: []string{"cleanup"}, code: cmdutil.ExitUsage,
			stderr: []string{"the interrupted workflows are:", "workflow:sdc-1", "orchestrate cleanup workflow:sdc-1 --dry-run"}},
		{name: "no such workflow", args: []string{"cleanup", "nope"}, code: cmdutil.ExitNotFound},
		{name: "dry run", args: []string{"cleanup", "--dry-run", "sdc-1"}, code: cmdutil.ExitOK,
			stdout: []string{"=== Cleanup: workflow:sdc-1", "Archive .orchestrate/workflows/sdc-1.yaml", "Dry run: nothing was changed."}},
		{name: "dry run --json", args: []string{"cleanup", "--dry-run", "--json", "sdc-1"}, code: cmdutil.ExitOK,
			stdout: []string{`"outcome": "planned"`, `"archive": [`}},
		{name: "no terminal", args: []string{"cleanup", "--json", "sdc-1"}, code: cmdutil.ExitNoTTY,
			stdout: []string{`"error": "cleanup needs confirmation and there is no terminal: pass --yes"`}},
		{name: "declined", args: []string{"cleanup", "sdc-1"}, replies: []prompttest.Reply{{Yes: false}}, code: cmdutil.ExitDeclined,
			stderr: []string{"Cancelled: nothing was changed."}},
		{name: "confirmed", args: []string{"cleanup", "sdc-1"}, replies: []prompttest.Reply{{Yes: true}}, code: cmdutil.ExitOK,
			stdout: []string{"Cleaned up workflow:sdc-1. The state is kept in .orchestrate/archive/", "To start fresh, run your orchestrator's workflow again for story 4.2."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := exitRepo(t)
			var p modes.Prompter
			if tc.replies != nil {
				p = prompttest.Script(t, tc.replies...)
			}
			r := runEnv(t, dir, nil, p, tc.args...)
			check(t, r, tc.code, tc.stdout, tc.stderr)
		})
	}
}

func TestUnlockCommand(t *testing.T) {
	host, _ := os.Hostname()
	live := handoff.LockInfo{PID: os.Getpid(), Host: host, StartedAt: time.Now()}
	tests := []struct {
		name   string
		lock   *handoff.LockInfo
		raw    string // the lock file's bytes instead
		args   []string
		code   int
		stdout []string
		log    string
	}{
		{name: "not locked", args: []string{"unlock", "sdc-1"}, code: cmdutil.ExitOK, stdout: []string{"workflow:sdc-1 is not locked."}},
		{name: "no such workflow or lock", args: []string{"unlock", "nope"}, code: cmdutil.ExitNotFound},
		{name: "a live lock stays", lock: &live, args: []string{"unlock", "sdc-1"}, code: cmdutil.ExitLocked},
		{name: "a live lock forced", lock: &live, args: []string{"unlock", "--force", "sdc-1"}, code: cmdutil.ExitOK,
			stdout: []string{"Removed the live (forced) lock of workflow:sdc-1"}, log: `"lock":"live"`},
		{name: "an untrusted lock stays", raw: "not json", args: []string{"unlock", "sdc-1"}, code: cmdutil.ExitLocked},
		{name: "an untrusted lock forced", raw: "not json", args: []string{"unlock", "--force", "sdc-1"}, code: cmdutil.ExitOK,
			log: `"lock":"untrusted"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := exitRepo(t)
			if tc.lock != nil {
				if _, err := handoff.Acquire(dir, "workflow:sdc-1", *tc.lock, false); err != nil {
					t.Fatal(err)
				}
			}
			if tc.raw != "" {
				writeFile(t, handoff.LockPath(dir, "workflow:sdc-1"), tc.raw)
			}
			r := runEnv(t, dir, nil, nil, tc.args...)
			check(t, r, tc.code, tc.stdout, nil)
			if tc.log != "" {
				data, _ := os.ReadFile(filepath.Join(dir, ".orchestrate/log.jsonl"))
				if !strings.Contains(string(data), tc.log) {
					t.Errorf("log lacks %s:\n%s", tc.log, data)
				}
			}
		})
	}
}

// --log-level debug says what was read and decided; in GitHub Actions the
// step summary is written.
func TestDebugLogAndStepSummary(t *testing.T) {
	dir := exitRepo(t)
	summary := filepath.Join(t.TempDir(), "summary.md")
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary}
	r := runEnv(t, dir, env, nil, "--log-level", "debug", "resume", "--mode", "autopilot", "sdc-1")
	check(t, r, cmdutil.ExitOK, nil, []string{"mode: autopilot"})
	data, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`resumed \(exit 0\)`, `| Mode | autopilot |`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("summary lacks %q:\n%s", want, data)
		}
	}
}

// git runs git in dir, failing t on an error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// sharedRepo is a clone of a bare remote (a local folder) holding three
// interrupted workflows.
func sharedRepo(t *testing.T) (job, remote string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	root := t.TempDir()
	seed := filepath.Join(root, "seed")
	for i, story := range []string{"4.1", "4.2", "4.3"} {
		id := []string{"sdc-1", "sdc-2", "sdc-3"}[i]
		writeFile(t, filepath.Join(seed, ".orchestrate/workflows", id+".yaml"),
			"execution_id: "+id+"\nworkflow: story-development-cycle\nstory: \""+story+"\"\nupdated_at: 2026-11-20T"+[]string{"11:30", "11:00", "10:30"}[i]+":00Z\ncurrent_phase: implement\nstatus: interrupted\n")
		writeFile(t, filepath.Join(seed, "docs/stories", story+".md"), "# Story "+story+": S\n\n**Status:** InProgress\n")
	}
	git(t, root, "init", "-q", "seed")
	git(t, seed, "add", "-A")
	git(t, seed, "commit", "-q", "-m", "work")
	git(t, root, "init", "-q", "--bare", "remote.git")
	git(t, seed, "push", "-q", "../remote.git", "HEAD:refs/heads/main")
	git(t, root, "--git-dir=remote.git", "symbolic-ref", "HEAD", "refs/heads/main")
	git(t, root, "clone", "-q", "remote.git", "job")
	return filepath.Join(root, "job"), filepath.Join(root, "remote.git")
}

func TestSharedLifecycle(t *testing.T) {
	job, remote := sharedRepo(t)
	on := map[string]string{"ORCHESTRATE_REMOTE": "origin"}
	// autopilot hands the most recent off, under the shared lock
	r := runEnv(t, job, on, nil, "resume", "--mode", "autopilot")
	check(t, r, cmdutil.ExitOK, []string{"sdc-1.yaml", "Handing off to @dev"}, nil)
	if refs := git(t, remote, "for-each-ref", "--format=%(refname)", "refs/orchestrate/"); !strings.Contains(refs, "records/workflow_3asdc-1") || strings.Contains(refs, "locks/") {
		t.Errorf("remote refs after the handoff:\n%s", refs)
	}
	// named again: already handed off (the shared records)
	r = runEnv(t, job, on, nil, "resume", "--mode", "autopilot", "--json", "sdc-1")
	check(t, r, cmdutil.ExitOK, []string{`"reason": "already_handed_off"`}, nil)
	// --again hands it off once more
	r = runEnv(t, job, on, nil, "resume", "--mode", "autopilot", "--again", "sdc-1")
	check(t, r, cmdutil.ExitOK, []string{"Handing off to @dev"}, nil)

	// another runner's live lease on sdc-3
	lock := `{"schema":"orchestrate/lock/v1","workflow":"workflow:sdc-3","runner":{"owner":"bob","host":"runner-7","ci":"gitlab-ci job 9"},"token":"x","acquired_at":"2026-11-20T11:50:00Z","expires_at":"2026-11-20T13:50:00Z"}`
	tree := git(t, job, "hash-object", "-t", "tree", "-w", "/dev/null")
	commit := git(t, job, "commit-tree", tree, "-m", lock)
	git(t, job, "push", "-q", "origin", commit+":refs/orchestrate/locks/workflow_3asdc-3")
	r = runEnv(t, job, on, nil, "resume", "--mode", "autopilot", "--json", "sdc-3")
	check(t, r, cmdutil.ExitLocked, []string{`"reason": "held_remotely"`, `"ci": "gitlab-ci job 9"`}, []string{"held by another runner"})
	r = runEnv(t, job, on, nil, "resume", "--mode", "autopilot", "--dry-run", "sdc-3")
	check(t, r, cmdutil.ExitLocked, nil, []string{"Dry run: the real run would stop"})
	r = runEnv(t, job, on, nil, "cleanup", "--yes", "sdc-3")
	check(t, r, cmdutil.ExitLocked, nil, []string{"not cleaning it up"})
	r = runEnv(t, job, on, nil, "unlock", "sdc-3")
	check(t, r, cmdutil.ExitLocked, nil, []string{"pass --force"})
	r = runEnv(t, job, on, nil, "unlock", "--force", "sdc-3")
	check(t, r, cmdutil.ExitOK, []string{"Removed the shared lock of workflow:sdc-3 on origin (live (forced))"}, nil)
	// cleanup under the shared lock, released after
	r = runEnv(t, job, on, nil, "cleanup", "--yes", "sdc-2")
	check(t, r, cmdutil.ExitOK, []string{"Cleaned up workflow:sdc-2"}, nil)
	if refs := git(t, remote, "for-each-ref", "refs/orchestrate/locks/"); refs != "" {
		t.Errorf("a lock left on the remote:\n%s", refs)
	}

	// a remote that cannot be used: exit 20, nothing ran
	off := map[string]string{"ORCHESTRATE_REMOTE": "upstream"}
	for _, args := range [][]string{
		{"resume", "--mode", "autopilot", "sdc-3"},
		{"resume", "--mode", "autopilot", "--dry-run", "--json", "sdc-3"},
		{"cleanup", "--yes", "sdc-3"},
		{"unlock", "sdc-3"},
	} {
		r = runEnv(t, job, off, nil, args...)
		check(t, r, cmdutil.ExitShared, nil, []string{`no remote named "upstream"`})
	}
	// without the setting, autopilot in CI warns
	r = runEnv(t, job, map[string]string{"CI": "true"}, nil, "resume", "--mode", "autopilot", "--dry-run", "sdc-3")
	check(t, r, cmdutil.ExitOK, nil, []string{"warning: autopilot in CI"})
}
