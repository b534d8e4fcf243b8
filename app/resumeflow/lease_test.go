package resumeflow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/handoff/command"
	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/internal/gitremote"
	"github.com/orchestrate-dev/orchestrate/internal/sharedlife"
	"github.com/orchestrate-dev/orchestrate/modes"
)

// leaseGit runs git in dir (no user or system config).
func leaseGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := osexec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// leaseStore is a runner (host) on the shared lifecycle of the bare
// remote, from the git repository dir (made one, with origin, if needed).
func leaseStore(t *testing.T, dir, bare, host string, lease time.Duration, now func() time.Time) *sharedlife.Store {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		leaseGit(t, dir, "init", "-q")
		leaseGit(t, dir, "remote", "add", "origin", bare)
	}
	r, err := gitremote.Open(dir, "origin", []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return &sharedlife.Store{Remote: r, Lease: lease, Me: sharedlife.Runner{Owner: "bob", Host: host}, Now: now}
}

// until polls cond (a condition, never a fixed wait) until it holds,
// failing t after within.
func until(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(within); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("not within %s: %s", within, what)
		}
	}
}

// A runner whose shared lock another runner takes over while its
// orchestrator command runs stops the command (SIGTERM to its process
// group, then SIGKILL for what ignores it), rolls the state back, records
// failed naming the lost lease, keeps shared.lease_lost in the log, says
// so on stderr, and exits 16 (lease_lost, the new holder named); the new
// holder's lock is left alone. The first runner's lease is short (300 ms,
// renewed every 100 ms); the takeover is another runner's lock written
// over it on the remote (no fixed sleeps: every wait is on a file or the
// command's end).
func TestLostLeaseStopsTheHandoff(t *testing.T) {
	if _, err := osexec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	base := t.TempDir()
	bare := filepath.Join(base, "remote.git")
	leaseGit(t, base, "init", "-q", "--bare", bare)
	s := sdcRepo(t)
	c := s.Res.Candidates[0]
	id := c.ID
	stateBefore, err := os.ReadFile(filepath.Join(s.Root, ".orchestrate/workflows/sdc-1.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	// runner A holds the lock with a 300 ms lease, renewed every 100 ms
	a := leaseStore(t, s.Root, bare, "runner-1", 300*time.Millisecond, time.Now)
	v, err := a.Fetch()
	if err != nil {
		t.Fatal(err)
	}
	ev, err := Evaluate(s, Input{Candidate: c, Mode: modes.ModeAutopilot, Candidates: 1, Selected: true})
	if err != nil {
		t.Fatal(err)
	}
	h, err := a.Begin(v, id, "orchestrate resume", sharedlife.Record{Key: "k1", Phase: ev.Plan.ResumeFrom.Phase, Agent: ev.Plan.ResumeFrom.Agent, Mode: "autopilot"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Release() }) // stops the renewer whatever happens
	var stderr, cmdOut bytes.Buffer
	lease := KeepLease(h, s.Root, s.LogPath(), &stderr, time.Now)
	if err := h.Record(sharedlife.EventDispatched, ""); err != nil {
		t.Fatal(err)
	}

	// the command: says it started, then waits for a file that never comes
	// (bounded), a child of it ignoring SIGTERM
	req := Request(Handoff{Session: s, Candidate: c, Plan: ev.Plan, Validation: "clean", Mode: modes.ModeAutopilot,
		Env: []string{"PATH=" + os.Getenv("PATH")}, Stdout: &cmdOut, Stderr: &cmdOut,
		Lock: handoff.LockInfo{PID: os.Getpid(), Host: "runner-1", StartedAt: time.Now()}})
	req.Now = time.Now()
	req.Command = `(trap '' TERM; while [ ! -f "$D/never" ]; do sleep 0.05; done) & echo $$ > "$D/pgid"; touch "$D/started"; i=0; while [ ! -f "$D/never" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done`
	req.Env = append(req.Env, "D="+base)
	req.Grace = 300 * time.Millisecond
	req.Context = lease.StopOnLoss()
	req.BeforeCommand = func(handoff.Result) {
		if err := h.Record(sharedlife.EventStarted, ""); err != nil {
			t.Error(err)
		}
	}
	type result struct {
		res handoff.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := handoff.Execute(req)
		done <- result{res, err}
	}()
	until(t, 20*time.Second, "the command to start", func() bool {
		_, err := os.Stat(filepath.Join(base, "started"))
		return err == nil
	})

	// runner B takes the lock over: its lock replaces A's on the remote
	// whatever A's renewals wrote meanwhile (an update-ref in the bare
	// repository, as a takeover after the lease or unlock --force would)
	if err := os.MkdirAll(filepath.Join(base, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := leaseStore(t, filepath.Join(base, "b"), bare, "runner-9", time.Hour, time.Now)
	now := time.Now().UTC()
	lockJSON := fmt.Sprintf(`{"schema":"orchestrate/lock/v1","workflow":%q,"runner":{"owner":"bob","host":"runner-9"},"token":"t9","acquired_at":%q,"expires_at":%q}`,
		id, now.Format(time.RFC3339), now.Add(time.Hour).Format(time.RFC3339))
	tree := leaseGit(t, bare, "hash-object", "-t", "tree", "-w", "/dev/null")
	taken := leaseGit(t, bare, "commit-tree", tree, "-m", lockJSON)
	comp, err := gitremote.RefComponent(id)
	if err != nil {
		t.Fatal(err)
	}
	leaseGit(t, bare, "update-ref", "refs/orchestrate/locks/"+comp, taken)

	var out result
	select {
	case out = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the command was not stopped after the takeover")
	}
	var ce *handoff.CommandError
	var stopped *LeaseLostError
	if !errors.As(out.err, &ce) || ce.Reason != command.ReasonInterrupted || !errors.As(out.err, &stopped) {
		t.Fatalf("Execute: %v, want the command stopped for the lost lease", out.err)
	}
	if ce.Status != 128+int(syscall.SIGTERM) {
		t.Errorf("the command's status %d, want SIGTERM's", ce.Status)
	}
	pgid, _ := strconv.Atoi(strings.TrimSpace(readFile(t, filepath.Join(base, "pgid"))))
	if pgid <= 0 || (syscall.Kill(-pgid, 0) != syscall.ESRCH && groupRuns(pgid)) {
		t.Errorf("the command's process group %d outlived the stop", pgid)
	}
	if !strings.Contains(out.err.Error(), "the orchestrator command was stopped (status 143): the shared lock of "+id+" was taken over by bob@runner-9") {
		t.Errorf("the error does not say why: %v", out.err)
	}
	if got, _ := os.ReadFile(filepath.Join(s.Root, ".orchestrate/workflows/sdc-1.yaml")); !bytes.Equal(got, stateBefore) {
		t.Errorf("the state was not rolled back:\n%s", got)
	}

	// exit 16, lease_lost, the new holder
	f := FailureOf(out.err, id)
	if f.Code != int(exitcode.Locked) || f.Outcome != "locked" || f.Reason != ReasonLeaseLost ||
		f.Holder == nil || f.Holder.Runner.Host != "runner-9" || f.Command == nil || f.Command.Reason != command.ReasonInterrupted ||
		!strings.Contains(f.Action, "bob@runner-9 took the shared lock of "+id+" over") {
		t.Errorf("FailureOf: %+v", f)
	}

	// the record, the release, stderr
	if err := RecordOutcome(h, out.err); err != nil {
		t.Errorf("recording the failure: %v", err)
	}
	var lost *sharedlife.LostError
	if err := h.Release(); !errors.As(err, &lost) {
		t.Errorf("release of the lost lock: %v", err)
	}
	lease.Flush()
	if got := stderr.String(); !strings.Contains(got, "orchestrate: the shared lock of "+id+" was taken over by bob@runner-9 while this runner held it: stopping the orchestrator command") || strings.Count(got, "taken over") != 1 {
		t.Errorf("stderr:\n%s", got)
	}
	vb, err := b.Fetch()
	if err != nil {
		t.Fatal(err)
	}
	chain, err := b.Chain(vb, id)
	if err != nil || len(chain.Records) != 3 {
		t.Fatalf("records: %v %+v", err, chain)
	}
	if r := chain.Records[0]; r.Event != sharedlife.EventFailed || r.Key != "k1" || !strings.Contains(r.Outcome, "taken over by bob@runner-9") {
		t.Errorf("the last record: %+v, want failed naming the lost lease", r)
	}
	if l, ok := vb.Locks[id]; !ok || l.Commit != taken || l.Runner.Host != "runner-9" {
		t.Errorf("the new holder's lock was touched: %+v, want %s", l, taken)
	}
	log := readFile(t, s.LogPath())
	if n := strings.Count(log, `"event":"shared.lease_lost"`); n != 1 || !strings.Contains(log, `"taken_by":"bob@runner-9"`) || !strings.Contains(log, `"event":"resume.failed"`) {
		t.Errorf("%d shared.lease_lost records, want 1 naming the taker, and resume.failed:\n%s", n, log)
	}
	if strings.Index(log, `"event":"shared.lease_lost"`) > strings.Index(log, `"event":"resume.failed"`) {
		t.Errorf("the loss is logged after the failure it caused:\n%s", log)
	}
}

// groupRuns reports whether a process of group pgid is alive and not a
// zombie (an orphan may stay one until init reaps it).
func groupRuns(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		if f := strings.Fields(string(stat[i+1:])); i > 0 && len(f) >= 3 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// FailureOf: a handoff stopped or never started for a lost lease is exit
// 16 (lease_lost), with the new holder when it could be read; the same
// command stopped by a signal stays 18.
func TestFailureOfLostLease(t *testing.T) {
	taker := &sharedlife.Lock{Runner: sharedlife.Runner{Owner: "eve", Host: "runner-9"}}
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	withBy := &LeaseLostError{Lost: &sharedlife.LostError{Workflow: "w", By: taker, At: at}}
	removed := &LeaseLostError{Lost: &sharedlife.LostError{Workflow: "w", At: at}}
	tests := []struct {
		name    string
		err     error
		code    int
		reason  string
		holder  bool
		command bool
		action  string
	}{
		{"stopped", fmt.Errorf("handoff: %w", &command.Error{Reason: command.ReasonInterrupted, Status: 143, Cause: withBy}), int(exitcode.Locked), ReasonLeaseLost, true, true, "eve@runner-9 took the shared lock of w over"},
		{"not started", fmt.Errorf("the orchestrator command was not started: %w", removed), int(exitcode.Locked), ReasonLeaseLost, false, false, "The shared lock of w was taken over or removed"},
		{"a signal", &command.Error{Reason: command.ReasonInterrupted, Status: 143, Signal: "SIGTERM"}, int(exitcode.Command), ReasonCommandFailed, false, true, "Interrupted"},
	}
	for _, tt := range tests {
		f := FailureOf(tt.err, "w")
		if f.Code != tt.code || f.Reason != tt.reason || (f.Holder != nil) != tt.holder || (f.Command != nil) != tt.command || !strings.Contains(f.Action, tt.action) {
			t.Errorf("%s: %+v", tt.name, f)
		}
	}
	if got := withBy.Error(); got != "the shared lock of w was taken over by eve@runner-9 while this runner held it (noticed at 2026-11-20T12:00:00Z)" {
		t.Errorf("message: %s", got)
	}
	var lost *sharedlife.LostError
	if !errors.As(withBy, &lost) {
		t.Error("LeaseLostError does not unwrap to the *LostError")
	}
}

// Without StopOnLoss (an MCP claim, which runs no command) a loss is
// warned about as before; StopOnLoss after a loss gives a context already
// ended with the loss as its cause. Nothing is held: the lease of a nil
// handoff never ends.
func TestLeaseStopOnLoss(t *testing.T) {
	var w bytes.Buffer
	l := KeepLease(nil, t.TempDir(), "", &w, time.Now)
	lost := &sharedlife.LostError{Workflow: "w", At: time.Now()}
	l.lost(lost)
	l.Flush()
	if !strings.HasPrefix(w.String(), "warning: the shared lock of w was taken over while this runner held it") {
		t.Errorf("a claim's loss: %q", w.String())
	}
	ctx := l.StopOnLoss()
	var stopped *LeaseLostError
	if ctx.Err() == nil || !errors.As(context.Cause(ctx), &stopped) || stopped.Lost != lost {
		t.Errorf("StopOnLoss after the loss: %v", context.Cause(ctx))
	}
	idle := KeepLease(nil, t.TempDir(), "", nil, time.Now).StopOnLoss()
	if idle.Err() != nil {
		t.Error("the context of a lease never lost ended")
	}
}
