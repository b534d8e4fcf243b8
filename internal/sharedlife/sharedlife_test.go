package sharedlife

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitremote"
)

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH: the shared lifecycle tests need it")
	}
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// setup makes a bare remote and n fresh clones of it (file://).
func setup(t *testing.T, n int) (string, []string) {
	t.Helper()
	needGit(t)
	dir := t.TempDir()
	bare := filepath.Join(dir, "remote.git")
	gitRun(t, dir, "init", "-q", "--bare", bare)
	seed := filepath.Join(dir, "seed")
	gitRun(t, dir, "init", "-q", seed)
	_ = os.WriteFile(filepath.Join(seed, "a.txt"), []byte("a\n"), 0o644)
	gitRun(t, seed, "add", "a.txt")
	gitRun(t, seed, "commit", "-q", "-m", "a")
	gitRun(t, seed, "push", "-q", "file://"+bare, "HEAD:refs/heads/main")
	var clones []string
	for i := 0; i < n; i++ {
		c := filepath.Join(dir, fmt.Sprintf("clone%02d", i))
		gitRun(t, dir, "clone", "-q", bare, c)
		clones = append(clones, c)
	}
	return bare, clones
}

func store(t *testing.T, dir, host string, lease time.Duration) *Store {
	t.Helper()
	r, err := gitremote.Open(dir, "origin", os.Environ(), 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return &Store{Remote: r, Lease: lease, Me: Runner{Owner: "ci", Host: host}, Now: time.Now}
}

// job is one pipeline job: fetch, take the lock, read the records, and
// hand off unless this resume was handed off before. It returns what it
// did: "handed_off", "already", "held".
func job(t *testing.T, s *Store, id, key string) (string, error) {
	v, err := s.Fetch()
	if err != nil {
		return "", err
	}
	h, err := s.Begin(v, id, "orchestrate resume", Record{Key: key, Phase: "implement", Mode: "autopilot"})
	var held *HeldError
	if errors.As(err, &held) {
		return "held", nil
	}
	if err != nil {
		return "", err
	}
	defer h.Release()
	if h.Already() {
		return "already", nil
	}
	if err := h.Record(EventDispatched, ""); err != nil {
		return "", err
	}
	if err := h.Record(EventStarted, ""); err != nil {
		return "", err
	}
	if err := h.Record(EventHandedOff, ""); err != nil {
		return "", err
	}
	return "handed_off", nil
}

// handedOff counts the handed_off records of id on the remote.
func handedOff(t *testing.T, bare, id string) int {
	t.Helper()
	comp, _ := gitremote.RefComponent(id)
	out := gitRun(t, bare, "log", "--format=%B", "refs/orchestrate/records/"+comp)
	return strings.Count(out, `"event":"handed_off"`)
}

func TestSequentialJobsHandOffOnce(t *testing.T) {
	t.Parallel()
	bare, clones := setup(t, 3)
	var got []string
	for i, c := range clones {
		did, err := job(t, store(t, c, fmt.Sprint("runner", i), time.Hour), "sdc:4.2", "k1")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, did)
	}
	if strings.Join(got, ",") != "handed_off,already,already" {
		t.Fatalf("jobs did %v", got)
	}
	if n := handedOff(t, bare, "sdc:4.2"); n != 1 {
		t.Fatalf("%d handoffs on the remote, want 1", n)
	}
	// no lock is left behind
	if out := gitRun(t, bare, "for-each-ref", "refs/orchestrate/locks/"); out != "" {
		t.Fatalf("locks left: %s", out)
	}
}

func TestConcurrentJobsHandOffOnce(t *testing.T) {
	t.Parallel()
	const n = 20
	bare, clones := setup(t, n)
	for round := 0; round < 2; round++ {
		id := fmt.Sprintf("sdc:%d.1", round)
		var wg sync.WaitGroup
		results := make([]string, n)
		errs := make([]error, n)
		start := make(chan struct{})
		for i := 0; i < n; i++ {
			s := store(t, clones[i], fmt.Sprint("runner", i), time.Hour)
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				results[i], errs[i] = job(t, s, id, "key-"+id)
			}(i)
		}
		close(start)
		wg.Wait()
		handed := 0
		for i := range results {
			if errs[i] != nil {
				t.Fatalf("job %d: %v", i, errs[i])
			}
			if results[i] == "handed_off" {
				handed++
			}
		}
		if handed != 1 {
			t.Fatalf("round %d: %d jobs handed off (%v), want exactly 1", round, handed, results)
		}
		if c := handedOff(t, bare, id); c != 1 {
			t.Fatalf("round %d: %d handed_off records, want 1", round, c)
		}
	}
}

// A runner that dies holding the lock (never releases) blocks others until
// its lease ends; then one takes it over (a swap of the value read) and,
// since its dispatch never started, hands it off again (unconfirmed).
func TestDeadRunnerLeaseThenTakeover(t *testing.T) {
	t.Parallel()
	bare, clones := setup(t, 3)
	dead := store(t, clones[0], "dead", time.Minute)
	v, err := dead.Fetch()
	if err != nil {
		t.Fatal(err)
	}
	h, err := dead.Begin(v, "sdc:4.2", "orchestrate resume", Record{Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Record(EventDispatched, ""); err != nil {
		t.Fatal(err)
	}
	// killed here: no release

	other := store(t, clones[1], "other", time.Hour)
	v, err = other.Fetch()
	if err != nil {
		t.Fatal(err)
	}
	_, err = other.Begin(v, "sdc:4.2", "", Record{Key: "k"})
	var held *HeldError
	if !errors.As(err, &held) || held.Holder.Runner.Host != "dead" || !strings.Contains(err.Error(), "held by another runner") {
		t.Fatalf("during the lease: %v, want *HeldError naming the dead runner", err)
	}
	// the lease ends (the reader's clock past expires_at)
	other.Now = func() time.Time { return held.Holder.Expires.Add(time.Second) }
	v, err = other.Fetch()
	if err != nil {
		t.Fatal(err)
	}
	h2, err := other.Begin(v, "sdc:4.2", "", Record{Key: "k"})
	if err != nil {
		t.Fatalf("after the lease: %v", err)
	}
	if h2.Held.TookOver == nil || h2.Held.TookOver.Runner.Host != "dead" {
		t.Fatalf("TookOver = %+v", h2.Held.TookOver)
	}
	if !h2.Unconfirmed() || h2.Already() {
		t.Fatalf("prior = %+v, want unconfirmed", h2.Prior)
	}
	// the dead runner's late release cannot remove the new holder's lock
	if err := h.Release(); err == nil || !strings.Contains(err.Error(), "no longer ours") {
		t.Fatalf("late release: %v", err)
	}
	if err := h2.Release(); err != nil {
		t.Fatal(err)
	}
	if out := gitRun(t, bare, "for-each-ref", "refs/orchestrate/locks/"); out != "" {
		t.Fatalf("locks left: %s", out)
	}
}

func TestRemoteDownOrReadOnly(t *testing.T) {
	t.Parallel()
	bare, clones := setup(t, 1)
	s := store(t, clones[0], "r", time.Hour)
	v, err := s.Fetch()
	if err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(bare, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho read-only >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Begin(v, "sdc:4.2", "", Record{Key: "k"}); !errors.Is(err, ErrUnusable) || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("read-only: %v", err)
	}
	_ = os.Remove(hook)
	if err := os.Rename(bare, bare+".x"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fetch(); !errors.Is(err, ErrUnusable) {
		t.Fatalf("remote gone: %v", err)
	}
	_ = os.Rename(bare+".x", bare)
	if out := gitRun(t, bare, "for-each-ref", "refs/orchestrate/"); out != "" {
		t.Fatalf("something was written: %s", out)
	}
}

func TestHostileValuesIgnored(t *testing.T) {
	t.Parallel()
	_, clones := setup(t, 2)
	a := store(t, clones[0], "a", time.Hour)
	// a lock whose content names another workflow than its ref
	c, _ := a.Remote.Commit("", `{"schema":"orchestrate/lock/v1","workflow":"other","expires_at":"2999-01-01T00:00:00Z"}`, time.Now())
	comp, _ := gitremote.RefComponent("sdc:1")
	if err := a.Remote.Push(gitremote.Update{Name: "locks/" + comp, New: c}); err != nil {
		t.Fatal(err)
	}
	b := store(t, clones[1], "b", time.Hour)
	v, err := b.Fetch()
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Locks) != 0 {
		t.Fatalf("locks = %+v", v.Locks)
	}
	// it still blocks: nobody can tell whose it is
	var held *HeldError
	if _, err := b.Begin(v, "sdc:1", "", Record{Key: "k"}); !errors.As(err, &held) {
		t.Fatalf("begin over an unreadable lock: %v", err)
	}
}

func TestCIRunAndLease(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "42", "GITHUB_RUN_ATTEMPT": "2"}, "github-actions run 42 attempt 2"},
		{map[string]string{"GITLAB_CI": "true", "CI_JOB_ID": "7"}, "gitlab-ci job 7"},
		{map[string]string{"BUILDKITE": "true", "BUILDKITE_JOB_ID": "b-1"}, "buildkite job b-1"},
		{map[string]string{"JENKINS_URL": "http://j", "BUILD_TAG": "jenkins-x-3"}, "jenkins jenkins-x-3"},
		{map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "1\x1b[31m"}, "github-actions run 1[31m"},
		{map[string]string{}, ""},
	}
	for _, tt := range tests {
		if got := CIRun(env(tt.env)); got != tt.want {
			t.Errorf("CIRun(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
	if LeaseFor(0, 0) != DefaultLease || LeaseFor(0, time.Hour) != time.Hour+LeaseMargin || LeaseFor(time.Minute, time.Hour) != time.Minute || LeaseFor(time.Second, 0) != MinLease {
		t.Error("LeaseFor")
	}
}

// A lock seen expired in the fetched view but gone since (its runner
// released it): the replace loses, the ref is read again, it is absent, and
// the lock is created.
func TestAcquireAfterTheLockWentAway(t *testing.T) {
	t.Parallel()
	_, clones := setup(t, 1)
	s := store(t, clones[0], "r", time.Hour)
	if _, err := s.Fetch(); err != nil {
		t.Fatal(err)
	}
	ghost, err := s.Remote.Commit("", "ghost\n", time.Unix(1e9, 0))
	if err != nil {
		t.Fatal(err)
	}
	v := View{Locks: map[string]Lock{"w": {Workflow: "w", Commit: ghost, Expires: time.Unix(1e9, 0)}}}
	h, err := s.Acquire(v, "w", "")
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}
	if h.TookOver != nil {
		t.Errorf("TookOver = %+v, want nil (the lock was gone)", h.TookOver)
	}
	if err := h.Release(); err != nil {
		t.Fatal(err)
	}
}

// TestLateRecordOfALostLease: a runner whose lease ended records how its
// handoff ended only when it notices, which may fall between the new
// holder's reading of the records and its first append. The new holder
// appends after that late record (it still holds the lock); the former
// holder, once the new one has appended, is refused.
func TestLateRecordOfALostLease(t *testing.T) {
	t.Parallel()
	bare, clones := setup(t, 2)
	late := store(t, clones[0], "late", time.Minute)
	v, err := late.Fetch()
	if err != nil {
		t.Fatal(err)
	}
	h, err := late.Begin(v, "sdc:4.2", "orchestrate resume", Record{Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Record(EventDispatched, ""); err != nil {
		t.Fatal(err)
	}
	next := store(t, clones[1], "next", time.Hour)
	next.Now = func() time.Time { return h.Held.Expires().Add(time.Second) } // the lease has ended
	if v, err = next.Fetch(); err != nil {
		t.Fatal(err)
	}
	h2, err := next.Begin(v, "sdc:4.2", "", Record{Key: "k"})
	if err != nil {
		t.Fatalf("takeover: %v", err)
	}
	// the former holder notices only now, and records its failure
	if err := h.Record(EventFailed, "stopped: the lease was taken over"); err != nil {
		t.Fatalf("the late record (nothing appended since): %v", err)
	}
	if err := h2.Record(EventDispatched, ""); err != nil {
		t.Fatalf("the holder's append after a late record: %v", err)
	}
	if err := h2.Record(EventStarted, ""); err != nil {
		t.Fatal(err)
	}
	if err := h.Record(EventFailed, "again"); err == nil {
		t.Fatal("the former holder appended after the new holder's records")
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(gitRun(t, bare, "log", "--format=%s", "refs/orchestrate/records/"+mustComp(t, "sdc:4.2"))), "\n") {
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("record %q: %v", line, err)
		}
		got = append(got, r.Runner.Host+":"+r.Event)
	}
	if want := "next:started next:dispatched late:failed late:dispatched"; strings.Join(got, " ") != want {
		t.Errorf("records %v, want %s", got, want)
	}
	if err := h2.Release(); err != nil {
		t.Fatal(err)
	}
}

func mustComp(t *testing.T, id string) string {
	t.Helper()
	c, err := gitremote.RefComponent(id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestALockThatChangesHandsOnEveryTryIsHeld: each push of the lock loses
// (another runner created it), and each read after finds it gone again
// (that runner already let go), three times over. The lock is held by
// other runners in turn, not a remote that cannot be used: *HeldError
// (exit 16, autopilot moves on), never ErrUnusable (exit 20). A git
// wrapper first on PATH plays the other runners: it refuses the lock's
// pushes, and answers the lock's reads with a commit and then nothing, in
// turn; every other git command is git's own.
func TestALockThatChangesHandsOnEveryTryIsHeld(t *testing.T) {
	_, clones := setup(t, 1)
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	wrap := t.TempDir()
	script := `#!/bin/sh
for last; do :; done
case "$last" in
*refs/orchestrate/locks/*)
	case " $* " in
	*" push "*)
		printf 'To remote\n!\t%s\t[rejected] (stale info)\nDone\n' "$last"
		exit 1 ;;
	*" ls-remote "*)
		n=$(cat "` + wrap + `/reads" 2>/dev/null || echo 0)
		n=$((n + 1))
		echo "$n" > "` + wrap + `/reads"
		if [ $((n % 2)) = 1 ]; then
			printf '%s\t%s\n' 1111111111111111111111111111111111111111 "$last"
		fi
		exit 0 ;;
	esac ;;
esac
exec "` + real + `" "$@"
`
	if err := os.WriteFile(filepath.Join(wrap, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+wrap+string(os.PathListSeparator)+os.Getenv("PATH"))
	r, err := gitremote.Open(clones[0], "origin", env, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s := &Store{Remote: r, Lease: time.Hour, Me: Runner{Owner: "ci", Host: "a"}, Now: time.Now}
	h, err := s.Acquire(View{Locks: map[string]Lock{}}, "w", "")
	var held *HeldError
	if h != nil || !errors.As(err, &held) || errors.Is(err, ErrUnusable) {
		t.Fatalf("Acquire = %v, %v; want a *HeldError", h, err)
	}
	if reads, _ := os.ReadFile(filepath.Join(wrap, "reads")); strings.TrimSpace(string(reads)) != "6" {
		t.Errorf("the lock was read %q times, want 6 (three tries, two reads each)", reads)
	}
	if held.Workflow != "w" || !strings.Contains(held.Error(), "other runners") {
		t.Errorf("HeldError %q does not name the workflow and the other runners", held.Error())
	}
}
