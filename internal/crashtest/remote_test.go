package crashtest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestMultiRunnerRace is the crash suite's multi-runner race on the shared
// lifecycle (lifecycle.remote): runners in fresh clones of one bare remote
// resume in autopilot at once, some killed with SIGKILL at a random moment;
// then, after their leases ended, one more runner resumes every workflow by
// name. Whatever was killed where, no workflow's orchestrator command ever
// started twice, and no lock is left on the remote.
func TestMultiRunnerRace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary; skipped with -short")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not on PATH: the shared lifecycle needs it")
	}
	bin := binary(t)
	dir := t.TempDir()
	counter := filepath.Join(dir, "started.txt")
	seed := filepath.Join(dir, "seed")
	if err := makeRepo(seed, counter, true); err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(dir, "remote.git")
	run := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run(dir, "init", "-q", "--bare", bare)
	run(seed, "push", "-q", bare, "HEAD:refs/heads/main")
	run(bare, "symbolic-ref", "HEAD", "refs/heads/main")

	const runners = 8
	shared := []string{"ORCHESTRATE_REMOTE=origin", "ORCHESTRATE_LIFECYCLE_LEASE=1m"}
	rng := rand.New(rand.NewPCG(*flagSeed, 7))
	var wg sync.WaitGroup
	killed := 0
	for i := 0; i < runners; i++ {
		clone := filepath.Join(dir, fmt.Sprintf("r%d", i))
		// --no-local: a pack over a pipe, not the object files copied one by
		// one, which a runner started before (pushing its lock, the remote
		// packing loose objects) may move under the copy
		run(dir, "clone", "--no-local", "-q", bare, clone)
		home := filepath.Join(dir, fmt.Sprintf("home%d", i))
		if err := os.MkdirAll(home, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd, read, err := command(bin, clone, home, home, "race", shared, "resume", "--mode", "autopilot")
		if err != nil {
			t.Fatal(err)
		}
		var delay time.Duration = -1
		if i%3 == 1 {
			delay = time.Duration(rng.IntN(400)) * time.Millisecond
			killed++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cmd.Start(); err != nil {
				t.Error(err)
				return
			}
			if delay >= 0 {
				time.AfterFunc(delay, func() { _ = cmd.Process.Kill() })
			}
			err := cmd.Wait()
			out, errOut := read()
			if err != nil && delay < 0 {
				t.Errorf("runner exited %v:\n%s%s", err, out, errOut)
			}
		}()
	}
	wg.Wait()

	// the leases of the killed runners end; one more runner resumes each
	// workflow by name: it may take a lock over, never start a command twice
	later := time.Date(2026, 11, 20, 12, 5, 0, 0, time.UTC).Format(time.RFC3339)
	clone := filepath.Join(dir, "last")
	run(dir, "clone", "-q", bare, clone)
	home := filepath.Join(dir, "homelast")
	_ = os.MkdirAll(home, 0o755)
	for _, sf := range stateFiles {
		cmd, read, err := command(bin, clone, home, home, "last", append(shared, "ORCHESTRATE_NOW="+later), "resume", "--mode", "autopilot", "--force", sf.id)
		if err != nil {
			t.Fatal(err)
		}
		err = cmd.Run()
		out, errOut := read()
		if err != nil {
			t.Errorf("resume %s after the leases: %v\n%s%s", sf.id, err, out, errOut)
		}
	}
	for _, sf := range stateFiles {
		n, err := countLines(counter, sf.id)
		if err != nil {
			t.Fatal(err)
		}
		if n > 1 {
			t.Errorf("%s: its command started %d times", sf.id, n)
		}
		if n == 0 {
			t.Logf("%s: never started (a runner was killed between recording the start and starting it)", sf.id)
		}
	}
	cmd := exec.Command(git, "for-each-ref", "refs/orchestrate/locks/")
	cmd.Dir = bare
	if out, err := cmd.Output(); err != nil || len(out) > 0 {
		t.Errorf("locks left on the remote: %s %v", out, err)
	}
	t.Logf("%d runners, %d killed", runners, killed)
}
