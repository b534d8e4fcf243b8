// Package attacktest replays the attacks of the attack round (issue 19 and
// docs/SECURITY.md) against the built binary: each test makes a small but
// equivalent hostile repository, runs orchestrate on it as a real process
// with a CPU-time limit (and a wall-clock bound for hangs) and a peak-memory
// bound, and checks that the answer
// is the safe one (the exit code, no agent started, files byte-identical
// where the attack tried to destroy them, no escape byte on the terminal).
//
//	go test ./internal/attacktest
//	go test ./internal/attacktest -v -attack.timeout 5s -attack.maxrss 512
package attacktest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
)

var (
	flagTimeout = flag.Duration("attack.timeout", 5*time.Second, "CPU time limit of one orchestrate run (user+system)")
	flagHang    = flag.Duration("attack.hang", 30*time.Second, "wall-clock limit of one orchestrate run: past it, a hang")
	flagMaxRSS  = flag.Int64("attack.maxrss", 512, "peak resident memory limit of one orchestrate run, in MiB")
)

// now is the pinned clock of every run (ORCHESTRATE_NOW).
const now = "2026-11-20T12:00:00Z"

// commitTime is when the fixture repositories were committed.
var commitTime = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

var (
	binOnce  sync.Once
	binPath  string
	wrapPath string // rsswrap, which every run goes through (see wrapped)
	binErr   error
	binDir   string
	reports  atomic.Int64 // the last rsswrap report file's number
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binary builds orchestrate once per test process (the real binary: no
// failpoints).
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("the attack suite builds and runs the binary; skipped with -short")
	}
	binOnce.Do(func() {
		gobin, err := exec.LookPath("go")
		if err != nil {
			binErr = fmt.Errorf("the go command is needed to build the binary: %w", err)
			return
		}
		binDir, err = os.MkdirTemp("", "orchestrate-attacktest-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(binDir, "orchestrate")
		wrapPath = filepath.Join(binDir, "rsswrap")
		for pkg, out := range map[string]string{"cmd/orchestrate": binPath, "internal/attacktest/rsswrap": wrapPath} {
			cmd := exec.Command(gobin, "build", "-o", out, "github.com/orchestrate-dev/orchestrate/"+pkg)
			if msg, err := cmd.CombinedOutput(); err != nil {
				binErr = fmt.Errorf("go build %s: %v\n%s", pkg, err, msg)
				return
			}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// needGit skips a test that makes its hostile repository with the git
// command.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git command is needed to build this attack")
	}
}

// An env is where a run happens: the repository and a home of its own.
type env struct {
	t     *testing.T
	bin   string
	dir   string // the test's temporary folder
	repo  string // the repository (cwd of every run)
	home  string
	extra []string  // more environment, KEY=value (a later one wins)
	when  time.Time // the date of the next commits (zero: commitTime)
}

// newEnv makes a test folder with a home and an empty repository folder.
func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, bin: binary(t), dir: t.TempDir()}
	e.repo = filepath.Join(e.dir, "repo")
	e.home = filepath.Join(e.dir, "home")
	for _, d := range []string{e.repo, e.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// marker is the file the handoff command of env touches: its lines are the
// agents started.
func (e *env) marker() string { return filepath.Join(e.dir, "agent-started") }

// handoffCommand is a handoff.command appending the workflow id to the
// marker file.
func (e *env) handoffCommand() string {
	return "echo {{.WorkflowID}} >> '" + e.marker() + "'"
}

// agentStarts is how many times the handoff command ran.
func (e *env) agentStarts() int {
	b, err := os.ReadFile(e.marker())
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// writeTxtar writes the files of a testdata archive into the repository.
func (e *env) writeTxtar(name string) {
	e.t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", name))
	if err != nil {
		e.t.Fatal(err)
	}
	for _, f := range a.Files {
		e.write(f.Name, f.Data)
	}
}

// write writes one file of the repository (a slash path), dated commitTime.
func (e *env) write(rel string, data []byte) {
	e.t.Helper()
	p := filepath.Join(e.repo, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Chtimes(p, commitTime, commitTime); err != nil {
		e.t.Fatal(err)
	}
}

// git runs the git command in the repository, with a pinned identity and
// date and no user or system configuration.
func (e *env) git(stdin []byte, args ...string) string {
	e.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = e.repo
	date := commitTime.Format(time.RFC3339)
	if !e.when.IsZero() {
		date = e.when.Format(time.RFC3339)
	}
	cmd.Env = append(cleanEnv(), "HOME="+e.home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Dev Agent", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME=Dev Agent", "GIT_COMMITTER_EMAIL=dev@example.com", "GIT_COMMITTER_DATE="+date)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		e.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// commitAll makes the repository a git repository (once) and commits
// everything in it.
func (e *env) commitAll(msg string) {
	e.t.Helper()
	needGit(e.t)
	if _, err := os.Stat(filepath.Join(e.repo, ".git")); err != nil {
		e.git(nil, "init", "-q", "-b", "main")
	}
	e.git(nil, "add", "-A")
	e.git(nil, "commit", "-q", "--allow-empty", "-m", msg)
}

// cleanEnv is the process environment without the variables that would
// make a run depend on the machine (orchestrate's, home, XDG folders, git's,
// CI's), and with CI=true: a pipeline runs more code (the CI warning asks
// git about remotes), so every attack meets that path too, wherever the
// suite runs.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ORCHESTRATE_") || strings.HasPrefix(k, "XDG_") || strings.HasPrefix(k, "GIT_") || k == "HOME" || k == "NO_COLOR" || k == "CI" || k == "GITHUB_ACTIONS" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "CI=true")
}

// A result is one finished run.
type result struct {
	args           []string
	code           int
	stdout, stderr string
	elapsed        time.Duration
	cpu            time.Duration // user + system
	maxRSS         int64         // bytes
}

func (r result) String() string {
	return fmt.Sprintf("orchestrate %s: exit %d in %v (CPU %v), peak RSS %d MiB", strings.Join(r.args, " "), r.code, r.elapsed.Round(time.Millisecond), r.cpu.Round(time.Millisecond), r.maxRSS>>20)
}

// run runs orchestrate ARGS in the repository with the clean environment
// (pinned clock, no colour, the test's home, the repository untrusted) plus
// e.extra. A run over the wall-clock bound (a hang) is killed (with its
// process group) and fails the test, and so does one over the CPU limit or
// the memory bound; the result is
// logged either way.
func (e *env) run(args ...string) result {
	e.t.Helper()
	return e.runEnv(nil, args...)
}

// runEnv is run with more environment.
func (e *env) runEnv(more []string, args ...string) result {
	e.t.Helper()
	// work is bounded by CPU time (a shared 2-core runner stretches wall
	// time, not work); a run that outlives the wall-clock bound is a hang
	ctx, cancel := context.WithTimeout(context.Background(), *flagHang)
	defer cancel()
	cmd, report := wrapped(ctx, e.bin, args...)
	cmd.Dir = e.repo
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	envv := append(cleanEnv(), "ORCHESTRATE_NOW="+now, "NO_COLOR=1",
		"HOME="+e.home, "XDG_CONFIG_HOME="+filepath.Join(e.home, ".config"), "XDG_CACHE_HOME="+filepath.Join(e.home, ".cache"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	envv = append(envv, e.extra...)
	cmd.Env = append(envv, more...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{args: args, elapsed: time.Since(start), stdout: out.String(), stderr: errb.String(), code: -1}
	if cmd.ProcessState != nil {
		r.code = cmd.ProcessState.ExitCode()
		r.maxRSS, r.cpu = usage(report)
	}
	e.t.Log(r)
	if ctx.Err() != nil {
		e.t.Fatalf("%s: killed after the %v wall-clock limit (a hang)\nstderr (tail): %s", r, *flagHang, tail(r.stderr))
	}
	if r.cpu > *flagTimeout {
		e.t.Fatalf("%s: used %v of CPU, over the %v limit (a blow-up)\nstderr (tail): %s", r, r.cpu.Round(time.Millisecond), *flagTimeout, tail(r.stderr))
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		e.t.Fatalf("%s: %v", r, err)
	}
	if r.maxRSS > *flagMaxRSS<<20 {
		e.t.Errorf("%s: over the %d MiB memory bound", r, *flagMaxRSS)
	}
	if strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine ") {
		e.t.Errorf("%s: panicked:\n%s", r, tail(r.stderr))
	}
	return r
}

// wrapped is the command that runs bin ARGS through rsswrap, and the file
// rsswrap reports the run's own peak memory and CPU time into (read it with
// usage once the command has ended). Started straight from this process, a
// child's peak memory would start at this process's own peak (see
// rsswrap's doc): the race detector's test process is often past the bound
// on its own.
func wrapped(ctx context.Context, bin string, args ...string) (*exec.Cmd, string) {
	report := filepath.Join(binDir, fmt.Sprintf("usage-%d", reports.Add(1)))
	return exec.CommandContext(ctx, wrapPath, append([]string{report, bin}, args...)...), report
}

// usage is the peak resident memory (bytes) and CPU time (user and system)
// that rsswrap reported for a run that has ended; zero when it reported
// nothing (it was killed with the run).
func usage(report string) (maxRSS int64, cpu time.Duration) {
	b, err := os.ReadFile(report)
	_ = os.Remove(report)
	if err != nil {
		return 0, 0
	}
	var kib, user, sys int64
	if _, err := fmt.Sscanf(string(b), "%d %d %d", &kib, &user, &sys); err != nil {
		return 0, 0
	}
	return kib << 10, time.Duration(user + sys) // KiB on Linux
}

// tail is the end of a long output, for failure messages.
func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}

// wantCode fails the test unless r exited with code.
func wantCode(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Errorf("%s: want exit %d\nstdout: %s\nstderr: %s", r, code, tail(r.stdout), tail(r.stderr))
	}
}

// wantOut fails the test unless stdout contains s.
func wantOut(t *testing.T, r result, s string) {
	t.Helper()
	if !strings.Contains(r.stdout, s) {
		t.Errorf("%s: stdout does not contain %q\nstdout: %s\nstderr: %s", r, s, tail(r.stdout), tail(r.stderr))
	}
}

// snapshot is the SHA-256 of every regular file under root (slash paths),
// .git excluded unless withGit, plus every symlink, FIFO and folder by kind.
func snapshot(t *testing.T, root string, withGit bool) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && d.Name() == ".git" && !withGit {
			return filepath.SkipDir
		}
		switch {
		case d.Type().IsRegular():
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			h := sha256.New()
			_, err = io.Copy(h, f)
			f.Close()
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("%x", h.Sum(nil))
		default:
			out[rel] = d.Type().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameFiles fails the test when two snapshots differ, naming each file.
func sameFiles(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	var diffs []string
	for p, h := range before {
		switch h2, ok := after[p]; {
		case !ok:
			diffs = append(diffs, "removed "+p)
		case h2 != h:
			diffs = append(diffs, "changed "+p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			diffs = append(diffs, "created "+p)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("%s: files changed: %s", what, strings.Join(diffs, ", "))
	}
}

// TestRunMeasuresTheRunAlone: a run's peak memory is its own, whatever the
// test process holds when it starts the run (see wrapped). The test process
// first holds and touches 384 MiB; a `--version` run, a few MiB of its own,
// must still measure under 128 MiB (started straight from this process, it
// measured over 384).
func TestRunMeasuresTheRunAlone(t *testing.T) {
	e := newEnv(t)
	held := make([]byte, 384<<20)
	for i := 0; i < len(held); i += 4096 {
		held[i] = 1
	}
	r := e.run("--version")
	runtime.KeepAlive(held)
	wantCode(t, r, 0)
	if r.maxRSS == 0 || r.maxRSS > 128<<20 {
		t.Errorf("%s: want a peak of the run's own (over 0, under 128 MiB)", r)
	}
}
