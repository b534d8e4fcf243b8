// Package crashtest proves the crash-safety bar (docs/SECURITY.md): killing
// orchestrate at any point of a resume leaves every state file either as it
// was or fully updated, never torn, and a second attempt finishes the resume
// with at most one STARTED orchestrator command per resume (idempotency
// key): a resume killed after its dispatch record but before its command
// started (no resume.started in the log) never ran the agent, so the second
// attempt hands it off again; one killed after the start is not handed off
// twice (a crash during resume never corrupts; multiple attempts
// are safe).
//
// The tests build the binary once with -tags failpoints (see
// app/cli/failpoint_on.go) and run it as a real process on real git
// repositories made with gitfixture: each run kills one resume, at a
// failpoint (ORCHESTRATE_FAILPOINT) or after a random delay, checks what it
// left behind, then resumes again with --force and checks the result.
//
//	go test ./internal/crashtest                     # 40 runs
//	go test ./internal/crashtest -v -crash.runs 240  # make soak
package crashtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
)

var (
	flagRuns = flag.Int("crash.runs", 40, "number of killed resumes in TestCrashDuringResume")
	flagSeed = flag.Uint64("crash.seed", 1, "seed of the random delays of the timed kills")
	flagPar  = flag.Int("crash.parallel", 4, "runs at a time")
)

// now is the pinned clock of every run (ORCHESTRATE_NOW).
const now = "2026-11-20T12:00:00Z"

// commitTime is when the fixture repositories were committed; every file's
// modification time is set to it too, so nothing looks changed since the
// interruption.
var commitTime = time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)

// A stateFile is one interrupted workflow of the fixture, in the format its
// framework writes.
type stateFile struct {
	id      string // the candidate id resumed
	path    string // slash path in the repository
	wrapper string // the key holding the fields ("" for the top level)
	content string
}

var stateFiles = []stateFile{
	{id: "epic:EPIC-ACT", path: ".aiox/epic-EPIC-ACT-state.yaml", wrapper: "epic_state", content: `# AIOX epic execution state — written by *execute-epic-plan
# Do not edit by hand while the epic is running.
epic_state:
  epicId: EPIC-ACT
  executionPlan: "docs/epics/EPIC-ACT-EXECUTION.yaml"
  mode: yolo   # yolo | interactive | preflight
  status: 'paused'    # paused by the user at the wave gate
  startedAt: "2026-11-20T09:00:00Z"
  updatedAt: "2026-11-20T11:00:00Z"
  currentWave: 2
  waves:
    - wave: 1
      status: completed
      stories: ["7.1"]
      gate: {verdict: PASS, reviewer: "@qa"}
    - wave: 2
      status: in_progress
      stories:
        - {id: "7.2", status: in_progress, path: docs/stories/7.2.b.md}
        - storyId: "7.3"
          status: pending   # waits for 7.2
  notes: >
    Wave 2 was paused because the
    API contract changed.
lastSavedBy: "@master"
`},
	{id: "qa-loop:5.1", path: "qa/5.1/loop-status.json", content: `{
  "storyId": "5.1",
  "currentIteration": 2,
  "maxIterations": 5,
  "status": "stopped",
  "startedAt": "2026-11-20T09:00:00Z",
  "updatedAt": "2026-11-20T11:10:00Z",
  "history": [
    {
      "iteration": 1,
      "reviewedAt": "2026-11-20T09:10:00Z",
      "verdict": "REJECT",
      "issuesFound": 3,
      "fixedAt": "2026-11-20T09:50:00Z",
      "issuesFixed": 3,
      "status": "fixed"
    },
    {
      "iteration": 2,
      "verdict": "REJECT",
      "issuesFound": 1,
      "fixedAt": null,
      "issuesFixed": null
    }
  ]
}
`},
	{id: "workflow:sdc-1", path: ".orchestrate/workflows/sdc-1.yaml", content: `# written by the dev agent
execution_id: sdc-1
workflow: story-development-cycle
story: "4.2"
updated_at: 2026-11-20T11:30:00Z
current_phase: implement
status: interrupted # the laptop lid closed
resume_count: 2
phases_completed:
  - {phase: create, agent: sm, output: docs/stories/4.2.s.md}
  - {phase: validate, agent: po, output: docs/stories/4.2.s.md}
`},
}

// projectFiles are the rest of the fixture: the stories and the epic's
// execution plan, so that every workflow validates clean.
var projectFiles = map[string]string{
	"docs/epics/EPIC-ACT-EXECUTION.yaml": "epic: EPIC-ACT\nwaves: 2\n",
	"docs/stories/4.2.s.md":              "# Story 4.2: S\n**Status:** InProgress\n",
	"docs/stories/5.1.q.md":              "# Story 5.1: Q\n\n## Status\nIn Review\n",
	"docs/stories/7.1.a.md":              "# Story 7.1: A\n**Status:** Done\n",
	"docs/stories/7.2.b.md":              "# Story 7.2: B\n**Status:** InProgress\n",
	"docs/stories/7.3.c.md":              "# Story 7.3: C\n**Status:** Draft\n",
	"src/app.go":                         "package app\n",
}

// failpointPlan is the round-robin of failpoints: every handoff step, the
// hard link of the state's rollback handle (link#1), and every atomic-write
// step of its three atomic writes (#1 the state's .bak, #2 the state file,
// #3 the envelope).
var failpointPlan = []string{
	"lock:kill", "state:kill", "envelope:kill", "command:kill", "log:kill",
	"link#1:kill",
	"write#1:kill", "sync#1:kill", "rename#1:kill",
	"write#2:kill", "sync#2:kill", "rename#2:kill",
	"write#3:kill", "sync#3:kill", "rename#3:kill",
}

// timedSlots is how many slots of each round are a kill after a random delay
// (0–300 ms) instead of a failpoint. With 15 failpoints and 5 timed slots a
// round is 20 runs, coprime with the 3 workflows: 60 runs cover every pair.
const timedSlots = 5

// timedPauses are the failpoints of a timed run: pauses after the state,
// the envelope and the command steps that, with the command's own
// "sleep 0.2", stretch the resume past the longest delay (300 ms), so every
// timed kill lands inside the handoff or before it.
const timedPauses = "state:sleep=40ms,envelope:sleep=40ms,command:sleep=40ms"

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binary builds orchestrate with -tags failpoints once per test process.
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		gobin, err := exec.LookPath("go")
		if err != nil {
			binErr = fmt.Errorf("the go command is needed to build the binary: %w", err)
			return
		}
		binDir, err = os.MkdirTemp("", "orchestrate-crashtest-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(binDir, "orchestrate")
		cmd := exec.Command(gobin, "build", "-tags", "failpoints", "-o", binPath, "github.com/orchestrate-dev/orchestrate/cmd/orchestrate")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build -tags failpoints: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// makeRepo writes the fixture into dir as a committed git repository, with
// handoff.command appending the workflow id to counter (and then sleeping
// when sleep is set, to give timed kills a command to land in).
func makeRepo(dir, counter string, sleep bool) error {
	if err := gitfixture.Init(dir); err != nil {
		return err
	}
	command := "echo {{.WorkflowID}} >> " + shellQuote(counter)
	if sleep {
		command += " && sleep 0.2"
	}
	cfg := fmt.Sprintf("handoff:\n  command: %q\n", command)
	files := map[string]string{".orchestrate.yaml": cfg}
	for p, c := range projectFiles {
		files[p] = c
	}
	for _, sf := range stateFiles {
		files[sf.path] = sf.content
	}
	for p, c := range files {
		if err := gitfixture.WriteFile(dir, p, c); err != nil {
			return err
		}
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), commitTime, commitTime); err != nil {
			return err
		}
	}
	_, err := gitfixture.Commit(dir, "the interrupted work", "Dev Agent", "dev@example.com", commitTime)
	return err
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// command prepares orchestrate ARGS in repo, with a clean environment (no
// user configuration, the pinned clock) plus extra; stdout and stderr go to
// files in logDir named after tag (files, not pipes: an orphaned orchestrator
// command of a killed run must not keep Wait waiting).
func command(bin, repo, home, logDir, tag string, extra []string, args ...string) (*exec.Cmd, func() (string, string), error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = repo
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ORCHESTRATE_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") && !strings.HasPrefix(kv, "XDG_CACHE_HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "ORCHESTRATE_NOW="+now, "NO_COLOR=1", "ORCHESTRATE_TRUST_REPO_CONFIG=1", "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	cmd.Env = append(env, extra...)
	outPath, errPath := filepath.Join(logDir, tag+".stdout"), filepath.Join(logDir, tag+".stderr")
	stdout, err := os.Create(outPath)
	if err != nil {
		return nil, nil, err
	}
	stderr, err := os.Create(errPath)
	if err != nil {
		stdout.Close()
		return nil, nil, err
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	read := func() (string, string) {
		stdout.Close()
		stderr.Close()
		o, _ := os.ReadFile(outPath)
		e, _ := os.ReadFile(errPath)
		return string(o), string(e)
	}
	return cmd, read, nil
}

// killedBySIGKILL reports whether the process ended on SIGKILL.
func killedBySIGKILL(ps *os.ProcessState) bool {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// tally is what the suite counts.
type tally struct {
	mu                                                     sync.Mutex
	runs, kills, failpointKills, timedKills, finishedFirst int
	recovered, alreadyHandedOff, torn, double, lost        int
	remarked, strayTemps, unconfirmed, unrecordedStart     int
}

// add counts one more of *field under the lock.
func (c *tally) add(field *int) {
	c.mu.Lock()
	*field++
	c.mu.Unlock()
}

// crashRun is one run of the suite: which workflow is resumed and how the
// resume is killed (a failpoint, or a delay).
type crashRun struct {
	n     int
	sf    stateFile
	fp    string
	delay time.Duration
}

func (r crashRun) String() string {
	if r.fp == "" {
		return fmt.Sprintf("run %d (%s, kill after %v)", r.n, r.sf.id, r.delay)
	}
	return fmt.Sprintf("run %d (%s, %s)", r.n, r.sf.id, r.fp)
}

// TestCrashDuringResume kills -crash.runs resumes (round-robin over the
// workflows and the failpoints, with timed kills in between) and checks each
// one's aftermath and recovery. It prints the counts.
func TestCrashDuringResume(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash suite runs real processes; skipped with -short")
	}
	bin := binary(t)
	rng := rand.New(rand.NewPCG(*flagSeed, 0x6f7263686573))
	var plan []crashRun
	for i := 0; i < *flagRuns; i++ {
		r := crashRun{n: i, sf: stateFiles[i%len(stateFiles)]}
		if slot := i % (len(failpointPlan) + timedSlots); slot < len(failpointPlan) {
			r.fp = failpointPlan[slot]
		} else {
			r.delay = time.Duration(rng.IntN(301)) * time.Millisecond
		}
		plan = append(plan, r)
	}

	base := t.TempDir()
	var c tally
	start := time.Now()
	work := make(chan crashRun)
	var wg sync.WaitGroup
	for w := 0; w < max(1, *flagPar); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				runOne(t, bin, filepath.Join(base, fmt.Sprintf("run-%03d", r.n)), r, &c)
			}
		}()
	}
	for _, r := range plan {
		work <- r
	}
	close(work)
	wg.Wait()

	line := fmt.Sprintf("crash suite: %d kills, %d recovered, %d torn, %d double handoffs", c.kills, c.recovered, c.torn, c.double)
	detail := fmt.Sprintf("  %d runs in %v: %d killed at a failpoint, %d after a random delay, %d finished before the timed kill; "+
		"%d second attempts said \"Already handed off\"; %d killed after the dispatch and before the start (unconfirmed, handed off again); %d of those had started the command before its start was recorded; %d lost handoffs; %d states marked twice (resume_count +2); %d runs left temporary files (ignored by later runs)",
		c.runs, time.Since(start).Round(time.Millisecond), c.failpointKills, c.timedKills, c.finishedFirst,
		c.alreadyHandedOff, c.unconfirmed, c.unrecordedStart, c.lost, c.remarked, c.strayTemps)
	fmt.Println(line)
	fmt.Println(detail)
	if c.torn > 0 || c.double > 0 || c.recovered != c.runs {
		t.Errorf("%s: the crash-safety bar is not met", line)
	}
}

// runOne builds a repository, kills one resume of r.sf and checks what it
// left, then resumes again with --force and checks the result. It runs on a
// worker goroutine: problems are t.Errorf, never t.Fatal.
func runOne(t *testing.T, bin, dir string, r crashRun, c *tally) {
	c.add(&c.runs)
	sf, fp := r.sf, r.fp
	errorf := func(format string, args ...any) {
		t.Errorf("%s: %s", r, fmt.Sprintf(format, args...))
	}
	repo := filepath.Join(dir, "repo")
	counter := filepath.Join(dir, "counter")
	if err := makeRepo(repo, counter, fp == ""); err != nil {
		errorf("make the repository: %v", err)
		return
	}
	baseline, err := candidates(bin, repo, dir, "status-before")
	if err != nil {
		errorf("%v", err)
		return
	}
	originals := map[string][]byte{}
	for _, s := range stateFiles {
		originals[s.path] = []byte(s.content)
	}

	// 1. the killed run
	extra := []string{"ORCHESTRATE_FAILPOINT=" + timedPauses}
	if fp != "" {
		extra = []string{"ORCHESTRATE_FAILPOINT=" + fp}
	}
	cmd, read, err := command(bin, repo, dir, dir, "killed", extra, "resume", "--mode", "autopilot", sf.id)
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		errorf("start: %v", err)
		return
	}
	pid := cmd.Process.Pid
	if fp == "" {
		time.Sleep(r.delay)
		_ = cmd.Process.Signal(syscall.SIGKILL)
	}
	_ = cmd.Wait()
	stdout, stderr := read()
	killed := killedBySIGKILL(cmd.ProcessState)
	switch {
	case killed:
		c.add(&c.kills)
		if fp == "" {
			c.add(&c.timedKills)
			break
		}
		c.add(&c.failpointKills)
		step := strings.SplitN(fp, ":", 2)[0]
		if !strings.Contains(step, "#") {
			step += "#1"
		}
		if !strings.Contains(stderr, "failpoint "+step+": kill") {
			errorf("killed, but not at the failpoint %s:\n%s", fp, stderr)
		}
	case fp != "":
		errorf("the failpoint %s never fired (exit %d):\n%s%s", fp, cmd.ProcessState.ExitCode(), stdout, stderr)
		return
	default:
		c.add(&c.finishedFirst)
		if cmd.ProcessState.ExitCode() != 0 {
			errorf("the resume finished before the kill with exit %d:\n%s%s", cmd.ProcessState.ExitCode(), stdout, stderr)
		}
	}

	// 2. what the kill left behind
	afterKill, ok := checkFiles(repo, sf, originals, nil, errorf)
	if !ok {
		c.add(&c.torn)
	}
	temps := strayTemps(repo)
	if len(temps) > 0 {
		c.add(&c.strayTemps)
	}
	lock := handoff.LockPath(repo, sf.id)
	if _, err := os.Lstat(lock); err == nil {
		if !killed {
			errorf("a finished resume left its lock %s", lock)
		}
		st := handoff.Inspect(repo, sf.id)
		switch {
		case st.Reason != "":
			errorf("the killed run's lock is refused (%s): it would block for a live reason", st.Reason)
		case st.Live || !st.Stale:
			errorf("the killed run's lock (pid %d) is not stale", st.Owner.PID)
		case st.Owner.PID != pid:
			errorf("the lock names pid %d, the killed run was pid %d", st.Owner.PID, pid)
		}
		if err := syscall.Kill(st.Owner.PID, 0); !errors.Is(err, syscall.ESRCH) {
			errorf("the lock's pid %d is still alive (%v)", st.Owner.PID, err)
		}
	}

	// what the log says of the killed run: unconfirmed (dispatched, never
	// started) is handed off again by the second attempt
	hist, _ := handoff.History(repo, filepath.Join(repo, ".orchestrate", "log.jsonl"))
	unconfirmed := hist[sf.id].State == handoff.StateUnconfirmed
	if unconfirmed {
		c.add(&c.unconfirmed)
	}

	// 3. the second attempt
	recovered := true
	cmd2, read2, err := command(bin, repo, dir, dir, "recovery", nil, "resume", "--mode", "autopilot", "--force", sf.id)
	if err == nil {
		err = cmd2.Run()
	}
	out2, err2 := read2()
	already := strings.Contains(out2, "Already handed off")
	if already {
		c.add(&c.alreadyHandedOff)
	}
	if err != nil {
		recovered = false
		errorf("the second resume failed (%v):\n%s%s", err, out2, err2)
	}
	if _, err := os.Lstat(lock); err == nil {
		recovered = false
		errorf("the second resume left the lock %s", lock)
	}
	runs, err := countLines(counter, sf.id)
	if err != nil {
		errorf("%v", err)
	}
	if n := countEvents(repo, sf.id, handoff.EventStarted); n > 1 {
		c.add(&c.double)
		errorf("the log records %d started commands for one resume, want at most 1", n)
	}
	switch {
	case runs == 2 && unconfirmed && !already:
		// the kill landed between the command's start and the fsync of its
		// start record: the one window the record cannot close; counted
		c.add(&c.unrecordedStart)
	case runs > 1:
		c.add(&c.double)
		errorf("the orchestrator command ran %d times for one resume (second attempt: %q)", runs, firstLine(out2, "handed off", "Handed off", "Handing off"))
	case runs == 0 && already && fp == "":
		// the timed kill landed after the handoff was recorded and before
		// the command started: at most once is the contract; counted
		c.add(&c.lost)
	case runs == 0:
		recovered = false
		errorf("the orchestrator command never ran (second attempt said already handed off: %v)", already)
	}
	// after "Already handed off" the state is as the kill left it; after a
	// new handoff it is marked once — or, when the killed run had marked it
	// already, marked once more (resume_count +2, counted as remarked)
	want := []int{afterKill}
	if !already {
		want = []int{1}
		if afterKill > 0 {
			want = []int{1, afterKill + 1}
		}
	}
	final, ok := checkFiles(repo, sf, originals, want, errorf)
	if !ok {
		recovered = false
		c.add(&c.torn)
	}
	if final > 1 {
		c.add(&c.remarked)
	}
	for _, p := range strayTemps(repo) {
		if !slices.Contains(temps, p) {
			recovered = false
			errorf("the second resume left a temporary file %s", p)
		}
	}
	after, err := candidates(bin, repo, dir, "status-after")
	if err != nil {
		recovered = false
		errorf("%v", err)
	} else if !reflect.DeepEqual(baseline, after) {
		recovered = false
		errorf("the candidates changed:\nbefore %q\nafter  %q", baseline, after)
	}
	// a new handoff is logged; after "Already handed off" the killed run's
	// record (a handed-off event, or another record of the dispatch) counts
	if n := countHandedOff(repo, sf.id); n > 1 || (n == 0 && !already) {
		recovered = false
		errorf("the log records %d completed handoffs of %s, want 1", n, sf.id)
	}
	if recovered {
		c.add(&c.recovered)
	}
}

// checkFiles checks every state file, the envelopes and the log: each parses
// whole; each state but sf's is byte-identical to its original; sf's is its
// original or its original correctly marked resumed (updatedFrom) some number
// of times — 0 or 1 when want is nil, one of want otherwise — and its .bak is
// the version before the last marking. It returns that number and whether
// nothing was torn.
func checkFiles(repo string, sf stateFile, originals map[string][]byte, want []int, errorf func(string, ...any)) (int, bool) {
	ok := true
	got := 0
	for _, s := range stateFiles {
		data, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(s.path)))
		if err != nil {
			errorf("read %s: %v", s.path, err)
			ok = false
			continue
		}
		if _, err := decode(s.path, data); err != nil {
			errorf("%s does not parse (torn?): %v\n%s", s.path, err, data)
			ok = false
			continue
		}
		orig := originals[s.path]
		if s.path != sf.path {
			if !bytes.Equal(data, orig) {
				errorf("%s changed though %s was resumed:\n%s", s.path, sf.id, data)
				ok = false
			}
			if _, err := os.Lstat(filepath.Join(repo, filepath.FromSlash(s.path)) + ".bak"); err == nil {
				errorf("%s.bak appeared though %s was resumed", s.path, sf.id)
				ok = false
			}
			continue
		}
		bumps := 0
		if !bytes.Equal(data, orig) {
			var err error
			bumps, err = updatedFrom(s, orig, data)
			if err != nil {
				errorf("%s is neither the original nor a correct update: %v\n%s", s.path, err, data)
				ok = false
				continue
			}
		}
		got = bumps
		switch {
		case want == nil && bumps > 1:
			errorf("%s was marked resumed %d times by one run", s.path, bumps)
			ok = false
		case want != nil && !slices.Contains(want, bumps):
			errorf("%s: resume_count went up by %d, want %v", s.path, bumps, want)
			ok = false
		}
		// the .bak is the version before the last update
		bak, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(s.path)) + ".bak")
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if bumps > 0 {
				errorf("%s was updated but has no .bak", s.path)
				ok = false
			}
		case err != nil:
			errorf("read %s.bak: %v", s.path, err)
			ok = false
		default:
			if _, err := decode(s.path, bak); err != nil {
				errorf("%s.bak does not parse (torn?): %v", s.path, err)
				ok = false
			} else if n, err := updatedFrom(s, orig, bak); !bytes.Equal(bak, orig) && (err != nil || n != bumps-1) {
				errorf("%s.bak is not the version before the update (%v)\n%s", s.path, err, bak)
				ok = false
			}
		}
	}
	// envelopes and the log must parse whole
	entries, _ := os.ReadDir(handoff.HandoffsDir(repo))
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(handoff.HandoffsDir(repo), e.Name()))
		if err != nil || !json.Valid(data) {
			errorf("envelope %s is torn (%v)", e.Name(), err)
			ok = false
		}
	}
	if data, err := os.ReadFile(filepath.Join(repo, ".orchestrate", "log.jsonl")); err == nil {
		for n, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if line != "" && !json.Valid([]byte(line)) {
				errorf("log line %d is torn: %q", n+1, line)
				ok = false
			}
		}
	}
	return got, ok
}

func decode(path string, data []byte) (map[string]any, error) {
	if strings.HasSuffix(path, ".json") {
		return tolerant.DecodeJSONMap(data)
	}
	return tolerant.DecodeYAMLMap(data)
}

// resumeKeys are the fields a resume writes, in every spelling.
var resumeKeys = []string{"status", "resumed_at", "resumedAt", "resume_count", "resumeCount"}

// updatedFrom checks that data is orig marked resumed n ≥ 1 times (by runs at
// the pinned clock): textually, every line of orig is kept in order except
// the status line, whose value became "active", and the only lines added are
// resumed_at and resume_count; semantically, both decode to the same values
// but for status "active", resumed_at now and resume_count + n. It returns n.
func updatedFrom(sf stateFile, orig, data []byte) (int, error) {
	m0, err := decode(sf.path, orig)
	if err != nil {
		return 0, err
	}
	m1, err := decode(sf.path, data)
	if err != nil {
		return 0, err
	}
	h0, h1 := holder(m0, sf.wrapper), holder(m1, sf.wrapper)
	if h0 == nil || h1 == nil {
		return 0, fmt.Errorf("no %q mapping", sf.wrapper)
	}
	if fmt.Sprint(h1["status"]) != handoff.StatusActive {
		return 0, fmt.Errorf("status is %v, want active", h1["status"])
	}
	var at any
	count0, count1 := 0, 0
	for _, k := range []string{"resumed_at", "resumedAt"} {
		if v, ok := h1[k]; ok {
			at = v
		}
	}
	for _, k := range []string{"resume_count", "resumeCount"} {
		if v, ok := h0[k]; ok {
			fmt.Sscan(fmt.Sprint(v), &count0)
		}
		if v, ok := h1[k]; ok {
			fmt.Sscan(fmt.Sprint(v), &count1)
		}
	}
	if fmt.Sprint(at) != now {
		return 0, fmt.Errorf("resumed_at is %v, want %s", at, now)
	}
	n := count1 - count0
	if n < 1 {
		return 0, fmt.Errorf("resume_count is %d, was %d", count1, count0)
	}
	oldStatus := fmt.Sprint(h0["status"])
	for _, k := range resumeKeys {
		delete(h0, k)
		delete(h1, k)
	}
	if !reflect.DeepEqual(m0, m1) {
		return 0, fmt.Errorf("other fields changed:\n%v\n%v", m0, m1)
	}
	// textually
	isResumeLine := func(l string) bool {
		l = strings.TrimLeft(l, " \t\"")
		for _, k := range resumeKeys[1:] {
			if strings.HasPrefix(l, k+":") || strings.HasPrefix(l, k+"\":") {
				return true
			}
		}
		return false
	}
	var a, b []string
	for _, l := range strings.Split(string(orig), "\n") {
		if !isResumeLine(l) {
			a = append(a, l)
		}
	}
	added := 0
	for _, l := range strings.Split(string(data), "\n") {
		if isResumeLine(l) {
			added++
			continue
		}
		b = append(b, l)
	}
	if added != 2 {
		return 0, fmt.Errorf("%d resumed_at/resume_count lines, want 2", added)
	}
	if len(a) != len(b) {
		return 0, fmt.Errorf("%d other lines, want %d", len(b), len(a))
	}
	changed := 0
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		changed++
		if strings.Replace(a[i], oldStatus, handoff.StatusActive, 1) != b[i] || !strings.Contains(a[i], "status") {
			return 0, fmt.Errorf("line %q became %q", a[i], b[i])
		}
	}
	if changed != 1 {
		return 0, fmt.Errorf("%d lines changed besides the resume fields, want the status line only", changed)
	}
	return n, nil
}

func holder(m map[string]any, wrapper string) map[string]any {
	if wrapper == "" {
		return m
	}
	h, _ := m[wrapper].(map[string]any)
	return h
}

// strayTemps lists the temporary files of atomic writes (".name.tmp-…") and
// the graves of taken-over locks (".stale-…") under repo, .git aside.
func strayTemps(repo string) []string {
	var out []string
	_ = filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if strings.Contains(d.Name(), ".tmp-") || strings.Contains(d.Name(), ".stale-") {
			r, _ := filepath.Rel(repo, p)
			out = append(out, filepath.ToSlash(r))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// candidates is what `orchestrate status --json --all` lists: "id source
// status validation" per candidate. Stray temporary files must not show up
// there (nor change anything else).
func candidates(bin, repo, home, tag string) ([]string, error) {
	cmd, read, err := command(bin, repo, home, home, tag, nil, "status", "--json", "--all")
	if err != nil {
		return nil, err
	}
	err = cmd.Run()
	out, errOut := read()
	if err != nil {
		return nil, fmt.Errorf("status --json --all: %v\n%s%s", err, out, errOut)
	}
	var doc struct {
		Candidates []struct {
			ID     string `json:"id"`
			Source struct {
				Path string `json:"path"`
			} `json:"source"`
			Findings []struct {
				Code string `json:"code"`
				Path string `json:"path"`
			} `json:"findings"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		return nil, fmt.Errorf("status --json: %v\n%s", err, out)
	}
	var list []string
	for _, c := range doc.Candidates {
		var codes []string
		for _, f := range c.Findings {
			codes = append(codes, f.Code+"@"+f.Path)
		}
		list = append(list, c.ID+" "+c.Source.Path+" "+strings.Join(codes, ","))
	}
	return list, nil
}

// countLines counts the lines of file equal to want.
func countLines(file, want string) (int, error) {
	f, err := os.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == want {
			n++
		}
	}
	return n, sc.Err()
}

// countHandedOff counts the "resume.handed_off" events of workflow id in the
// orchestration log.
func countHandedOff(repo, id string) int { return countEvents(repo, id, handoff.EventHandedOff) }

// countEvents counts the events named event of workflow id in the
// orchestration log.
func countEvents(repo, id, event string) int {
	data, err := os.ReadFile(filepath.Join(repo, ".orchestrate", "log.jsonl"))
	if err != nil {
		return 0
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		var ev struct {
			Event    string `json:"event"`
			Workflow string `json:"workflow"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Event == event && ev.Workflow == id {
			n++
		}
	}
	return n
}

func firstLine(s string, subs ...string) string {
	for _, l := range strings.Split(s, "\n") {
		for _, sub := range subs {
			if strings.Contains(l, sub) {
				return l
			}
		}
	}
	return ""
}

// TestUntrustedLocks: a lock file that is not owned by this user, or that
// others may write (0644), is refused — never judged stale on what it says,
// never taken over, even with --force — and nothing is written. (The 0644
// case is also in testdata/script/hostile_locks.txtar; a file owned by
// another user needs root to make, so it lives here.)
func TestUntrustedLocks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary; skipped with -short")
	}
	bin := binary(t)
	sf := stateFiles[2]
	for _, tc := range []struct {
		name   string
		prep   func(path string) error
		reason string
	}{
		{"loose permissions", func(p string) error { return os.Chmod(p, 0o644) }, "permissions 0644 are looser than 0600"},
		{"owned by another user", func(p string) error {
			if os.Geteuid() != 0 {
				t.Skip("making a file owned by another user needs root")
			}
			return os.Lchown(p, 4242, 4242)
		}, "owned by another user (uid 4242)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			repo := filepath.Join(dir, "repo")
			counter := filepath.Join(dir, "counter")
			if err := makeRepo(repo, counter, false); err != nil {
				t.Fatal(err)
			}
			host, _ := os.Hostname()
			// what the file says is a dead process: trusted, it would be stale
			info := handoff.LockInfo{PID: 4194000, Host: host, User: "mallory", StartedAt: commitTime, Command: "orchestrate resume"}
			if _, err := handoff.Acquire(repo, sf.id, info, false); err != nil {
				t.Fatal(err)
			}
			lock := handoff.LockPath(repo, sf.id)
			if err := tc.prep(lock); err != nil {
				t.Fatal(err)
			}
			before, err := os.ReadFile(lock)
			if err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"resume", "--mode", "autopilot", "--force", sf.id},
				{"resume", "--mode", "autopilot", sf.id},
				{"unlock", sf.id},
			} {
				cmd, read, err := command(bin, repo, dir, dir, "untrusted", nil, args...)
				if err != nil {
					t.Fatal(err)
				}
				err = cmd.Run()
				out, errOut := read()
				if code := cmd.ProcessState.ExitCode(); code != 16 {
					t.Errorf("%v: exit %d (%v), want 16 (locked)\n%s%s", args, code, err, out, errOut)
				}
				if !strings.Contains(errOut, tc.reason) || strings.Contains(errOut, "panic") {
					t.Errorf("%v: stderr does not say %q:\n%s", args, tc.reason, errOut)
				}
			}
			after, err := os.ReadFile(lock)
			if err != nil || !bytes.Equal(before, after) {
				t.Errorf("the lock was changed or removed (%v)", err)
			}
			data, _ := os.ReadFile(filepath.Join(repo, filepath.FromSlash(sf.path)))
			if string(data) != sf.content {
				t.Errorf("%s was written:\n%s", sf.path, data)
			}
			for _, p := range []string{sf.path + ".bak", ".orchestrate/handoffs", ".orchestrate/log.jsonl", "counter"} {
				if _, err := os.Lstat(filepath.Join(repo, p)); err == nil {
					t.Errorf("%s was written", p)
				}
			}
			if n, _ := countLines(counter, sf.id); n != 0 {
				t.Errorf("the orchestrator command ran")
			}
		})
	}
}

// TestInjectedErrorsRollBack: an error at any step of the handoff (the same
// failpoints, with "error" for "kill") fails the resume with nothing left
// behind — the state file byte-identical, no .bak, no envelope, no lock, no
// temporary file (all or nothing) — and the next attempt resumes
// normally, marking the state exactly once.
func TestInjectedErrorsRollBack(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary; skipped with -short")
	}
	bin := binary(t)
	for i, fp := range failpointPlan {
		fp := strings.Replace(fp, ":kill", ":error", 1)
		sf := stateFiles[i%len(stateFiles)]
		t.Run(strings.NewReplacer(":", "_", "#", "_").Replace(fp), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			repo, counter := filepath.Join(dir, "repo"), filepath.Join(dir, "counter")
			if err := makeRepo(repo, counter, false); err != nil {
				t.Fatal(err)
			}
			run := func(tag string, extra []string) (int, string) {
				t.Helper()
				cmd, read, err := command(bin, repo, dir, dir, tag, extra, "resume", "--mode", "autopilot", sf.id)
				if err != nil {
					t.Fatal(err)
				}
				_ = cmd.Run()
				out, errOut := read()
				return cmd.ProcessState.ExitCode(), out + errOut
			}
			code, out := run("failed", []string{"ORCHESTRATE_FAILPOINT=" + fp})
			if code != 1 || !strings.Contains(out, "(injected)") || strings.Contains(out, "panic") {
				t.Fatalf("exit %d, want 1 with the injected error:\n%s", code, out)
			}
			data, _ := os.ReadFile(filepath.Join(repo, filepath.FromSlash(sf.path)))
			if string(data) != sf.content {
				t.Errorf("%s was not rolled back:\n%s", sf.path, data)
			}
			for _, p := range []string{sf.path + ".bak", ".orchestrate/locks/" + handoff.SafeID(sf.id) + ".lock"} {
				if _, err := os.Lstat(filepath.Join(repo, filepath.FromSlash(p))); err == nil {
					t.Errorf("%s was left behind", p)
				}
			}
			if entries, _ := os.ReadDir(handoff.HandoffsDir(repo)); len(entries) > 0 {
				t.Errorf("envelopes left behind: %v", entries)
			}
			if temps := strayTemps(repo); len(temps) > 0 {
				t.Errorf("temporary files left behind: %v", temps)
			}
			ranBefore, _ := countLines(counter, sf.id)

			code, out = run("again", nil)
			if code != 0 {
				t.Fatalf("the next attempt: exit %d:\n%s", code, out)
			}
			originals := map[string][]byte{}
			for _, s := range stateFiles {
				originals[s.path] = []byte(s.content)
			}
			if _, ok := checkFiles(repo, sf, originals, []int{1}, t.Errorf); !ok {
				t.Errorf("the next attempt left a wrong state")
			}
			if n, _ := countLines(counter, sf.id); n != ranBefore+1 {
				t.Errorf("the command ran %d times in all, want %d", n, ranBefore+1)
			}
		})
	}
}

// TestDiskFullRollsBack: the disk fills up during a resume and stays full
// (the failpoint action "full": the step fails with ENOSPC, and so does
// every later log append, atomic-write step and hard link). Whichever write
// hits it — the dispatch record, the envelope, the state file, the .bak —
// the rollback (renames of hard-linked originals, no new blocks) leaves the
// state file byte-identical, no .bak, no envelope, no lock, no temporary
// file or rollback handle, no dispatch or start in the log, and no agent
// ran; with space back, the next attempt hands off once.
func TestDiskFullRollsBack(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary; skipped with -short")
	}
	bin := binary(t)
	// the dispatch record, the envelope (#3), the state file (#2), the
	// .bak (#1), the rollback handle
	for i, fp := range []string{"logwrite#1:full", "write#3:full", "rename#3:full", "write#2:full", "sync#1:full", "link#1:full"} {
		sf := stateFiles[i%len(stateFiles)]
		t.Run(strings.NewReplacer(":", "_", "#", "_").Replace(fp), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			repo, counter := filepath.Join(dir, "repo"), filepath.Join(dir, "counter")
			if err := makeRepo(repo, counter, false); err != nil {
				t.Fatal(err)
			}
			run := func(tag string, extra []string) (int, string) {
				t.Helper()
				cmd, read, err := command(bin, repo, dir, dir, tag, extra, "resume", "--mode", "autopilot", sf.id)
				if err != nil {
					t.Fatal(err)
				}
				_ = cmd.Run()
				out, errOut := read()
				return cmd.ProcessState.ExitCode(), out + errOut
			}
			code, out := run("full", []string{"ORCHESTRATE_FAILPOINT=" + fp})
			if code != 1 || !strings.Contains(out, "no space left on device") || strings.Contains(out, "panic") {
				t.Fatalf("exit %d, want 1 with the full disk:\n%s", code, out)
			}
			if strings.Contains(out, "rolling the state back") {
				t.Errorf("the rollback failed on the full disk:\n%s", out)
			}
			data, _ := os.ReadFile(filepath.Join(repo, filepath.FromSlash(sf.path)))
			if string(data) != sf.content {
				t.Errorf("%s is not byte-identical to before:\n%s", sf.path, data)
			}
			for _, p := range []string{sf.path + ".bak", ".orchestrate/locks/" + handoff.SafeID(sf.id) + ".lock"} {
				if _, err := os.Lstat(filepath.Join(repo, filepath.FromSlash(p))); err == nil {
					t.Errorf("%s was left behind", p)
				}
			}
			if entries, _ := os.ReadDir(handoff.HandoffsDir(repo)); len(entries) > 0 {
				t.Errorf("envelopes left behind: %v", entries)
			}
			if temps := strayTemps(repo); len(temps) > 0 {
				t.Errorf("temporary files or rollback handles left behind: %v", temps)
			}
			if n, _ := countLines(counter, sf.id); n != 0 {
				t.Errorf("the agent ran %d times on a full disk", n)
			}
			for _, ev := range []string{handoff.EventDispatched, handoff.EventStarted, handoff.EventHandedOff} {
				if n := countEvents(repo, sf.id, ev); n > 0 {
					t.Errorf("the log records %s on a full disk", ev)
				}
			}

			code, out = run("space-back", nil)
			if code != 0 {
				t.Fatalf("with space back: exit %d:\n%s", code, out)
			}
			originals := map[string][]byte{}
			for _, s := range stateFiles {
				originals[s.path] = []byte(s.content)
			}
			if _, ok := checkFiles(repo, sf, originals, []int{1}, t.Errorf); !ok {
				t.Errorf("the next attempt left a wrong state")
			}
			if n, _ := countLines(counter, sf.id); n != 1 {
				t.Errorf("the command ran %d times, want 1", n)
			}
			if temps := strayTemps(repo); len(temps) > 0 {
				t.Errorf("temporary files or rollback handles left behind: %v", temps)
			}
		})
	}
}

// TestFailpointSpec: a malformed ORCHESTRATE_FAILPOINT stops the test binary
// with exit 2 before anything is written, so a typo cannot pass for a
// failpoint that never fired; a well-formed one that does not match (the
// tenth rename) changes nothing.
func TestFailpointSpec(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary; skipped with -short")
	}
	bin := binary(t)
	sf := stateFiles[2]
	for _, tc := range []struct {
		spec string
		code int
	}{
		{"bogus:kill", 2}, {"state", 2}, {"state:explode", 2}, {"rename#0:kill", 2},
		{"envelope:sleep=soon", 2}, {"lock:kill=now", 2}, {"link:fill", 2},
		{"rename#10:kill,log:sleep=1ms", 0},
	} {
		dir := t.TempDir()
		repo, counter := filepath.Join(dir, "repo"), filepath.Join(dir, "counter")
		if err := makeRepo(repo, counter, false); err != nil {
			t.Fatal(err)
		}
		cmd, read, err := command(bin, repo, dir, dir, "spec", []string{"ORCHESTRATE_FAILPOINT=" + tc.spec}, "resume", "--mode", "autopilot", sf.id)
		if err != nil {
			t.Fatal(err)
		}
		_ = cmd.Run()
		out, errOut := read()
		if got := cmd.ProcessState.ExitCode(); got != tc.code {
			t.Errorf("%q: exit %d, want %d\n%s%s", tc.spec, got, tc.code, out, errOut)
		}
		if tc.code == 0 {
			continue
		}
		if !strings.Contains(errOut, "ORCHESTRATE_FAILPOINT") {
			t.Errorf("%q: the error does not name the variable:\n%s", tc.spec, errOut)
		}
		data, _ := os.ReadFile(filepath.Join(repo, filepath.FromSlash(sf.path)))
		if string(data) != sf.content {
			t.Errorf("%q: %s was written", tc.spec, sf.path)
		}
		if _, err := os.Lstat(handoff.LockPath(repo, sf.id)); err == nil {
			t.Errorf("%q: a lock was left", tc.spec)
		}
	}
}
