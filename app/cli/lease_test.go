package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/mcp"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/sharedlife"
)

// The lease of the shared lock is renewed while it is held — the
// orchestrator command running, an MCP claim until its release — so a
// holder that runs longer than its lease keeps the lock; a takeover is
// noticed. These tests shorten the lease to 3 s (below the configurable
// minimum) and run on the real clock.

const shortLease = 3 * time.Second

// withShortLease makes the shared locks of this process 3 s leases.
func withShortLease(t *testing.T) {
	t.Helper()
	old := leaseFor
	leaseFor = func(time.Duration, time.Duration) time.Duration { return shortLease }
	t.Cleanup(func() { leaseFor = old })
}

// leaseRepo is a bare remote and two clones (a, b) of a repository with
// one interrupted workflow (sdc-1) whose last activity was minutes ago by
// the real clock.
func leaseRepo(t *testing.T) (base, a, b string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	base = t.TempDir()
	seed := filepath.Join(base, "seed")
	at := time.Now().UTC().Add(-10 * time.Minute).Format(time.RFC3339)
	writeFile(t, filepath.Join(seed, ".orchestrate/workflows/sdc-1.yaml"),
		"execution_id: sdc-1\nworkflow: story-development-cycle\nstory: \"4.1\"\nupdated_at: "+at+"\ncurrent_phase: implement\nstatus: interrupted\n")
	writeFile(t, filepath.Join(seed, "docs/stories/4.1.md"), "# Story 4.1: S\n\n**Status:** InProgress\n")
	git(t, base, "init", "-q", "seed")
	git(t, seed, "add", "-A")
	git(t, seed, "commit", "-q", "-m", "work", "--date", at)
	git(t, base, "init", "-q", "--bare", "remote.git")
	git(t, seed, "push", "-q", "../remote.git", "HEAD:refs/heads/main")
	git(t, base, "--git-dir=remote.git", "symbolic-ref", "HEAD", "refs/heads/main")
	git(t, base, "clone", "-q", "remote.git", "a")
	git(t, base, "clone", "-q", "remote.git", "b")
	return base, filepath.Join(base, "a"), filepath.Join(base, "b")
}

// realSystem is a System on the real clock with lifecycle.remote on.
func realSystem(dir, home string, out, errOut *bytes.Buffer) System {
	env := map[string]string{"ORCHESTRATE_REMOTE": "origin", "ORCHESTRATE_TRUST_REPO_CONFIG": "1",
		"PATH": os.Getenv("PATH"), "HOME": home, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
	return System{
		IO:      IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut},
		Getenv:  func(k string) string { return env[k] },
		Environ: func() []string { return []string{"PATH=" + env["PATH"], "HOME=" + home} },
		Now:     time.Now,
		Getwd:   func() (string, error) { return dir, nil },
		Pid:     os.Getpid(),
	}
}

// waitFor polls cond until it holds, failing t after within.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

const lockRef = "refs/orchestrate/locks/workflow_3asdc-1"

// remoteLockOf reads the lock of sdc-1 on the bare remote.
func remoteLockOf(t *testing.T, remote string) (sharedlife.Lock, bool) {
	t.Helper()
	out := git(t, remote, "for-each-ref", "--format=%(contents)", lockRef)
	if out == "" {
		return sharedlife.Lock{}, false
	}
	var l sharedlife.Lock
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("lock on the remote: %v\n%s", err, out)
	}
	return l, true
}

// renewedPast waits until the first lease (ending first) is over by the
// clock and the lock on the remote was renewed past it.
func renewedPast(t *testing.T, remote string, first time.Time) {
	t.Helper()
	waitFor(t, 15*time.Second, "the lock renewed past its first lease", func() bool {
		l, ok := remoteLockOf(t, remote)
		return ok && time.Now().After(first.Add(200*time.Millisecond)) && l.Expires.After(first) && !l.Renewed.IsZero()
	})
}

// takeOver replaces the lock of sdc-1 on the remote as another runner
// would after the lease lapsed, and returns the commit.
func takeOver(t *testing.T, clone, remote string) string {
	t.Helper()
	lock := fmt.Sprintf(`{"schema":"orchestrate/lock/v1","workflow":"workflow:sdc-1","runner":{"owner":"eve","host":"runner-9"},"token":"t","acquired_at":%q,"expires_at":%q}`,
		time.Now().UTC().Format(time.RFC3339), time.Now().UTC().Add(time.Hour).Format(time.RFC3339))
	tree := git(t, clone, "hash-object", "-t", "tree", "-w", "/dev/null")
	commit := git(t, clone, "commit-tree", tree, "-m", lock)
	// the holder's renewal may move the ref between git's read and its
	// update: push again until it lands
	waitFor(t, 10*time.Second, "the takeover push", func() bool {
		cmd := exec.Command("git", "push", "-q", "--force", "origin", commit+":"+lockRef)
		cmd.Dir = clone
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		return cmd.Run() == nil
	})
	return commit
}

// noRenewer waits until no lease renewer goroutine runs any more.
func noRenewer(t *testing.T) {
	t.Helper()
	waitFor(t, 10*time.Second, "the lease renewer to stop", func() bool {
		buf := make([]byte, 1<<20)
		return !strings.Contains(string(buf[:runtime.Stack(buf, true)]), "sharedlife.(*Held).KeepAlive")
	})
}

// waitCommand is a handoff.command that says it started and runs until
// the test lets it end (bounded).
func waitCommand(base string) string {
	return `touch "` + base + `/started"; i=0; while [ ! -f "` + base + `/go" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done`
}

type mainRun struct {
	out, err bytes.Buffer
	code     int
	done     chan struct{}
}

// startResume runs orchestrate resume in dir in the background.
func startResume(dir, home string, args ...string) *mainRun {
	r := &mainRun{done: make(chan struct{})}
	sys := realSystem(dir, home, &r.out, &r.err)
	go func() {
		defer close(r.done)
		r.code = Main(args, sys)
	}()
	return r
}

// A resume whose command runs longer than the 3 s lease keeps the shared
// lock: another clone is refused (16, held_remotely) after the first
// lease ended; the renewal stops at the end and the lock is released.
func TestSharedLeaseRenewedWhileTheCommandRuns(t *testing.T) {
	withShortLease(t)
	base, a, b := leaseRepo(t)
	remote := filepath.Join(base, "remote.git")
	writeFile(t, filepath.Join(a, ".orchestrate.yaml"), "handoff:\n  command: '"+waitCommand(base)+"'\n")

	ra := startResume(a, base, "resume", "--mode", "autopilot", "sdc-1")
	waitFor(t, 20*time.Second, "the command to start", func() bool {
		_, err := os.Stat(filepath.Join(base, "started"))
		return err == nil
	})
	first, ok := remoteLockOf(t, remote)
	if !ok {
		t.Fatal("no shared lock while the command runs")
	}
	renewedPast(t, remote, first.Expires)

	var out, errOut bytes.Buffer
	code := Main([]string{"resume", "--mode", "autopilot", "--json", "sdc-1"}, realSystem(b, base, &out, &errOut))
	if code != cmdutil.ExitLocked || !strings.Contains(out.String(), `"reason": "held_remotely"`) {
		t.Fatalf("another clone after the first lease ended: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}

	writeFile(t, filepath.Join(base, "go"), "")
	<-ra.done
	if ra.code != cmdutil.ExitOK || strings.Contains(ra.err.String(), "warning") {
		t.Fatalf("the long resume: exit %d\n%s", ra.code, ra.err.String())
	}
	if _, held := remoteLockOf(t, remote); held {
		t.Error("the shared lock outlived the resume")
	}
	noRenewer(t)
}

// A renewal that finds the lock taken over while the command runs stops
// the handoff: logged (shared.lease_lost), said on stderr, the command
// stopped (without the test letting it end), exit 16 with --json reason
// lease_lost naming the new holder; the new holder's lock is left alone.
func TestSharedLeaseTakeoverNoticed(t *testing.T) {
	withShortLease(t)
	base, a, _ := leaseRepo(t)
	remote := filepath.Join(base, "remote.git")
	writeFile(t, filepath.Join(a, ".orchestrate.yaml"), "handoff:\n  command: '"+waitCommand(base)+"'\n")

	ra := startResume(a, base, "resume", "--mode", "autopilot", "--json", "sdc-1")
	waitFor(t, 20*time.Second, "the command to start", func() bool {
		_, err := os.Stat(filepath.Join(base, "started"))
		return err == nil
	})
	taken := takeOver(t, a, remote)
	select {
	case <-ra.done:
	case <-time.After(25 * time.Second):
		writeFile(t, filepath.Join(base, "go"), "")
		<-ra.done
		t.Fatal("the command was not stopped after the takeover")
	}
	if ra.code != cmdutil.ExitLocked || !strings.Contains(ra.out.String(), `"reason": "lease_lost"`) || !strings.Contains(ra.out.String(), `"runner": "eve@runner-9"`) {
		t.Errorf("exit %d, want 16 lease_lost naming the taker:\n%s", ra.code, ra.out.String())
	}
	if !strings.Contains(ra.err.String(), "the shared lock of workflow:sdc-1 was taken over by eve@runner-9 while this runner held it: stopping the orchestrator command") {
		t.Errorf("no word of the takeover:\n%s\n---\n%s", ra.err.String(), ra.out.String())
	}
	if got := git(t, remote, "rev-parse", lockRef); got != taken {
		t.Errorf("the new holder's lock was touched: %s, want %s", got, taken)
	}
	data, _ := os.ReadFile(filepath.Join(a, ".orchestrate", "log.jsonl"))
	if n := strings.Count(string(data), `"event":"shared.lease_lost"`); n != 1 || !strings.Contains(string(data), `"taken_by":"eve@runner-9"`) {
		t.Errorf("%d lease_lost records, want 1 naming the taker:\n%s", n, data)
	}
	noRenewer(t)
}

// An MCP claim held longer than its 3 s lease keeps the shared lock:
// another clone's claim is refused (16, held_remotely) after the first
// lease ended. A takeover while it is held is logged, and release reports
// it (a tool error naming the new holder); the new holder's lock is left
// alone and the renewal stops.
func TestMCPClaimLeaseRenewedThenTakenOver(t *testing.T) {
	withShortLease(t)
	base, a, b := leaseRepo(t)
	remote := filepath.Join(base, "remote.git")
	var outA, errA, outB, errB bytes.Buffer
	client := func(dir, name string, out, errOut *bytes.Buffer) *mcp.Client {
		c, err := mcp.ConnectInMemory(context.Background(), newMCPBackend(Deps{System: realSystem(dir, base, out, errOut), Repo: dir}), mcp.Options{Version: "test"}, name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	ca, cb := client(a, "agent-a", &outA, &errA), client(b, "agent-b", &outB, &errB)

	res := call(t, ca, "claim", map[string]any{"workflow": "sdc-1"})
	if res.IsError || field(t, res)["shared_remote"] != "origin" {
		t.Fatalf("claim in clone a: %s", res.Text)
	}
	first, ok := remoteLockOf(t, remote)
	if !ok || first.Runner.Owner != "agent-a" {
		t.Fatalf("the claim holds no shared lock: %+v", first)
	}
	renewedPast(t, remote, first.Expires)
	res = call(t, cb, "claim", map[string]any{"workflow": "sdc-1"})
	if !res.IsError || exitOf(t, res) != cmdutil.ExitLocked || field(t, res)["reason"] != "held_remotely" {
		t.Fatalf("claim in clone b after the first lease ended: %s", res.Text)
	}

	taken := takeOver(t, a, remote)
	logPath := filepath.Join(a, ".orchestrate", "log.jsonl")
	waitFor(t, 15*time.Second, "the takeover in the log", func() bool {
		data, _ := os.ReadFile(logPath)
		return strings.Contains(string(data), `"event":"shared.lease_lost"`)
	})
	res = call(t, ca, "release", map[string]any{"workflow": "sdc-1", "outcome": "done"})
	if !res.IsError || !strings.Contains(res.Text, "taken over") || !strings.Contains(res.Text, "eve@runner-9") {
		t.Errorf("release after a takeover: %s", res.Text)
	}
	if got := git(t, remote, "rev-parse", lockRef); got != taken {
		t.Errorf("the new holder's lock was touched: %s, want %s", got, taken)
	}
	if _, held, _ := handoff.ReadLock(a, "workflow:sdc-1"); held {
		t.Error("the local lock outlived the release")
	}
	noRenewer(t)
	_ = ca.Close()
	if !strings.Contains(errA.String(), "warning: the shared lock of workflow:sdc-1 was taken over") {
		t.Errorf("no warning of the takeover on the server's stderr:\n%s", errA.String())
	}
}
