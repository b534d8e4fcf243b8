package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Result is one repository's figures.
type Result struct {
	Dir         string `json:"dir"`
	Shape       string `json:"shape,omitempty"`   // benchgen's -shape ("": the standard repository)
	Command     string `json:"command,omitempty"` // "resume" or "status"
	Files       int    `json:"files"`             // tracked source files (benchgen's -files)
	Stories     int    `json:"stories"`
	Commits     int    `json:"commits"`
	Refs        int    `json:"refs"`
	Workflows   int    `json:"workflows"`
	PerWorkflow int    `json:"per_workflow,omitempty"` // referenced files of each workflow (benchgen's -per-workflow)
	Runs        int    `json:"runs"`
	Orchestrate Series `json:"orchestrate"`
	// NoCache is orchestrate with its on-disk cache off
	// (ORCHESTRATE_CACHE_DIR=off): every run derives everything, as the
	// first run on a fresh clone does. Orchestrate's own series runs with a
	// private cache folder, empty before the warm-up run.
	NoCache *Series `json:"orchestrate_no_cache,omitempty"`
	// FirstRunSeconds is the warm-up run of Orchestrate: its cache empty.
	FirstRunSeconds float64 `json:"first_run_seconds,omitempty"`
	// FillSeconds are the runs after the warm-up that fill orchestrate's
	// cache (app/loaded/seed.go: the first run keeps only a mark, the
	// second the git and story tables, the third the verdict memo), so that
	// the measured series is warm; FillPeakRSSKiB their highest peak RSS,
	// counted in the shape's peak.
	FillSeconds    []float64 `json:"fill_seconds,omitempty"`
	FillPeakRSSKiB int64     `json:"fill_peak_rss_kib,omitempty"`
	Git            *Series   `json:"git_status,omitempty"` // nil: no git binary
	GoGit          *Series   `json:"go_git,omitempty"`     // nil: skipped
	RatioGit       float64   `json:"ratio_orchestrate_git,omitempty"`
	RatioGoGit     float64   `json:"ratio_orchestrate_go_git,omitempty"`
	// RatioNoCache is NoCache's paired ratio to git status.
	RatioNoCache float64 `json:"ratio_no_cache_git,omitempty"`
	// FirstRun is orchestrate with a cache folder emptied before each run
	// (a first run on a fresh clone, filling the cache; measured with the
	// cache-off series), and RatioFirstRun its paired ratio to git status.
	FirstRun      *Series `json:"orchestrate_first_run,omitempty"`
	RatioFirstRun float64 `json:"ratio_first_run_git,omitempty"`
	Missed        int     `json:"targets_missed"`
}

// Series is the measured runs of one command (warm-up excluded).
type Series struct {
	Seconds    []float64 `json:"seconds"` // wall time of each run, process start to exit
	RSSKiB     []int64   `json:"max_rss_kib"`
	Median     float64   `json:"median_seconds"`
	Min        float64   `json:"min_seconds"`
	Max        float64   `json:"max_seconds"`
	PeakRSSKiB int64     `json:"peak_rss_kib"`
	// go-git only: figures the child reports about Status() itself
	InProcSeconds []float64 `json:"status_seconds,omitempty"`
	AllocMiB      float64   `json:"alloc_mib,omitempty"` // bytes allocated by one Status(), median
	HeapPeakMiB   float64   `json:"heap_peak_mib,omitempty"`
}

func (s *Series) add(d time.Duration, rss int64) {
	s.Seconds = append(s.Seconds, d.Seconds())
	s.RSSKiB = append(s.RSSKiB, rss)
}

func (s *Series) finish() {
	s.Median, s.Min, s.Max = stats(s.Seconds)
	for _, r := range s.RSSKiB {
		s.PeakRSSKiB = max(s.PeakRSSKiB, r)
	}
}

// pairedRatio returns the median of a[i]/b[i].
func pairedRatio(a, b []float64) float64 {
	var rs []float64
	for i := range min(len(a), len(b)) {
		if b[i] > 0 {
			rs = append(rs, a[i]/b[i])
		}
	}
	m, _, _ := stats(rs)
	return m
}

// stats returns the median, min and max of xs.
func stats(xs []float64) (median, lo, hi float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	median = s[n/2]
	if n%2 == 0 {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	return median, s[0], s[n-1]
}

// run is one timed child process.
type run struct {
	wall   time.Duration
	rss    int64 // KiB
	exit   int
	stdout []byte
	stderr []byte
}

func timed(dir string, env []string, name string, args ...string) (run, error) {
	return timedWith(dir, env, name, args, nil)
}

// timedWith is timed that also hands the child's resource usage to usage
// (when not nil and reported).
func timedWith(dir string, env []string, name string, args []string, usage func(*syscall.Rusage)) (run, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := run{wall: time.Since(start), stdout: out.Bytes(), stderr: errb.Bytes()}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return r, err
	}
	r.exit = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rss = int64(ru.Maxrss) // KiB on Linux
		if usage != nil {
			usage(ru)
		}
	}
	return r, nil
}

// tool is one of the measured commands.
type tool struct {
	name   string
	series *Series
	run    func() (run, error)
	check  func(run) error
	after  func(run) // on each measured run (go-git: its own figures)
}

// orchestrateArgs returns the arguments orchestrate is measured with.
func orchestrateArgs(command string) ([]string, error) {
	switch command {
	case "", "resume":
		return []string{"resume", "--dry-run", "--json", "--mode", "preflight", "--approve"}, nil
	case "status":
		return []string{"status"}, nil
	}
	return nil, fmt.Errorf("-cmd %q: want resume or status", command)
}

// ratioApplies tells whether the ratio target is set for res's repository.
func ratioApplies(res *Result) bool { return res.Shape != "" || res.Files >= ratioTargetFiles }

// firstOverOff is the paired ratio of res's first runs to its cache-off
// runs (0 without both series).
func firstOverOff(res *Result) float64 {
	if res.FirstRun == nil || res.NoCache == nil {
		return 0
	}
	return pairedRatio(res.FirstRun.Seconds, res.NoCache.Seconds)
}

// missedTargets names the targets res misses (DESIGN.md §13: warm, cache
// off and first run against git status, a first run against cache off,
// peak RSS), in that order; none when it meets them all.
func missedTargets(res *Result) []string {
	var missed []string
	if res.Git != nil && ratioApplies(res) {
		if res.RatioGit > targetRatioGit {
			missed = append(missed, "warm")
		}
		if res.NoCache != nil && res.RatioNoCache > targetRatioCold {
			missed = append(missed, "off")
		}
		if res.FirstRun != nil && res.RatioFirstRun > targetRatioCold {
			missed = append(missed, "first")
		}
	}
	if r := firstOverOff(res); r > targetFirstOverOff {
		missed = append(missed, "first/off")
	}
	if float64(peakRSS(res))/1024 >= rssTarget(res.Files) {
		missed = append(missed, "rss")
	}
	return missed
}

// rssTarget is the peak RSS target of orchestrate (MiB) for a repository of
// that many tracked files.
func rssTarget(files int) float64 {
	if files >= hugeFiles {
		return targetRSSMiBHuge
	}
	return targetRSSMiB
}

func measure(dir, bin string, runs int, withGoGit, withNoCache bool, command string, out, logw io.Writer) (*Result, error) {
	args, err := orchestrateArgs(command)
	if err != nil {
		return nil, err
	}
	if runs < 1 {
		return nil, fmt.Errorf("-runs %d: at least 1", runs)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return nil, err
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("orchestrate binary: %w", err)
	}
	res := &Result{Dir: dir, Runs: runs, Command: args[0]}
	man := readManifest(dir)
	if man != nil {
		res.Files, res.Stories, res.Commits, res.Refs = man.TrackedFiles, man.Stories, man.Commits, man.Refs
		res.Shape, res.Workflows, res.PerWorkflow = man.Params.Shape, len(man.Workflows), man.Params.PerWorkflow
	}

	// the ages orchestrate reports are taken at the time the history was
	// generated for, so the same repository always gives the same plan
	orchEnv := []string{"NO_COLOR=1"}
	if now := readNow(dir); now != "" {
		orchEnv = append(orchEnv, "ORCHESTRATE_NOW="+now)
	}
	// orchestrate's cache: a private folder, empty before the warm-up (so
	// the warm-up is a first run, and the measured runs find what it kept)
	cacheDir, err := os.MkdirTemp("", "benchrun-cache-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(cacheDir)
	noCacheEnv := append(append([]string(nil), orchEnv...), "ORCHESTRATE_CACHE_DIR=off")
	statusEnv := noCacheEnv
	orchEnv = append(orchEnv, "ORCHESTRATE_CACHE_DIR="+filepath.Join(cacheDir, "c"))
	if args[0] == "resume" {
		// a resume without a terminal must be told which workflow when
		// several are interrupted (it would exit 19): the most recent one,
		// as the person running it would pick
		id, err := newestWorkflow(dir, statusEnv, bin)
		if err != nil {
			return nil, err
		}
		args = append(args, id)
	}
	var tools []*tool
	var allocs, heaps []float64 // go-git's own figures
	orch := &tool{
		name:   "orchestrate",
		series: &res.Orchestrate,
		run: func() (run, error) {
			return timed(dir, orchEnv, bin, args...)
		},
		check: func(r run) error {
			if r.exit != 0 && r.exit != 17 {
				return fmt.Errorf("orchestrate exited %d:\n%s", r.exit, r.stderr)
			}
			return nil
		},
	}
	tools = append(tools, orch)
	if withNoCache {
		res.NoCache = &Series{}
		tools = append(tools, &tool{
			name:   "orchestrate (no cache)",
			series: res.NoCache,
			run:    func() (run, error) { return timed(dir, noCacheEnv, bin, args...) },
			check:  orch.check,
		})
		res.FirstRun = &Series{}
		firstDir := filepath.Join(cacheDir, "first")
		firstEnv := append(append([]string(nil), noCacheEnv[:len(noCacheEnv)-1]...), "ORCHESTRATE_CACHE_DIR="+firstDir)
		tools = append(tools, &tool{
			name:   "orchestrate (first run)",
			series: res.FirstRun,
			run: func() (run, error) {
				if err := os.RemoveAll(firstDir); err != nil {
					return run{}, err
				}
				return timed(dir, firstEnv, bin, args...)
			},
			check: orch.check,
		})
	}
	gitNote := ""
	if gitBin, err := exec.LookPath("git"); err == nil {
		res.Git = &Series{}
		tools = append(tools, &tool{
			name:   "git status",
			series: res.Git,
			run:    func() (run, error) { return timed(dir, nil, gitBin, "status", "--porcelain") },
			check: func(r run) error {
				if r.exit != 0 {
					return fmt.Errorf("git status exited %d:\n%s", r.exit, r.stderr)
				}
				return nil
			},
		})
	} else {
		gitNote = "git status: skipped (no git binary on PATH)"
	}
	if withGoGit {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		res.GoGit = &Series{}
		tools = append(tools, &tool{
			name:   "go-git Status()",
			series: res.GoGit,
			run:    func() (run, error) { return timed(dir, nil, self, "-go-git-status", dir) },
			check: func(r run) error {
				if r.exit != 0 {
					return fmt.Errorf("go-git Status() child exited %d:\n%s", r.exit, r.stderr)
				}
				return nil
			},
			after: func(r run) {
				var c childReport
				if json.Unmarshal(r.stdout, &c) == nil {
					res.GoGit.InProcSeconds = append(res.GoGit.InProcSeconds, c.StatusSeconds)
					allocs = append(allocs, c.AllocMiB)
					heaps = append(heaps, c.HeapPeakMiB)
				}
			},
		})
	}

	fmt.Fprintf(out, "benchrun: %s\n", describe(dir, man))
	fmt.Fprintf(out, "benchrun: %d measured runs of each command, round-robin, after one warm-up each (orchestrate: then %d runs that fill its cache)\n", runs, fillRuns)
	if gitNote != "" {
		fmt.Fprintln(out, "benchrun:", gitNote)
	}

	// warm-up: fills the page cache, lets git refresh its index; orchestrate's
	// output is checked against what benchgen planted
	for _, t := range tools {
		r, err := t.run()
		if err == nil {
			err = t.check(r)
		}
		if err != nil {
			return nil, fmt.Errorf("warm-up %s: %w", t.name, err)
		}
		if t == orch {
			res.FirstRunSeconds = r.wall.Seconds()
			fmt.Fprintf(out, "benchrun: %s\n", summarize(r, man, args[0]))
		}
	}
	for i := 0; i < fillRuns; i++ {
		r, err := orch.run()
		if err == nil {
			err = orch.check(r)
		}
		if err != nil {
			return nil, fmt.Errorf("fill run %d of %s: %w", i+1, orch.name, err)
		}
		res.FillSeconds = append(res.FillSeconds, r.wall.Seconds())
		res.FillPeakRSSKiB = max(res.FillPeakRSSKiB, r.rss)
	}
	for i := 0; i < runs; i++ {
		for k := range tools {
			t := tools[(i+k)%len(tools)] // rotate who goes first
			r, err := t.run()
			if err == nil {
				err = t.check(r)
			}
			if err != nil {
				return nil, fmt.Errorf("run %d of %s: %w", i+1, t.name, err)
			}
			t.series.add(r.wall, r.rss)
			if t.after != nil {
				t.after(r)
			}
		}
		if i == 0 {
			fmt.Fprint(logw, "benchrun: rounds done:")
		}
		fmt.Fprintf(logw, " %d", i+1)
	}
	fmt.Fprintln(logw)
	for _, t := range tools {
		t.series.finish()
	}
	if res.GoGit != nil {
		res.GoGit.AllocMiB, _, _ = stats(allocs)
		_, _, res.GoGit.HeapPeakMiB = stats(heaps)
	}

	fmt.Fprintf(out, "%-52s %9s %9s %9s %11s\n", "command", "median", "min", "max", "peak RSS")
	line := func(name string, s *Series) {
		fmt.Fprintf(out, "%-52s %8.3fs %8.3fs %8.3fs %11s\n", name, s.Median, s.Min, s.Max, mib(s.PeakRSSKiB))
	}
	line("orchestrate "+strings.Join(args, " "), &res.Orchestrate)
	if res.NoCache != nil {
		line("  the same, cache off (ORCHESTRATE_CACHE_DIR=off)", res.NoCache)
	}
	fmt.Fprintf(out, "%-52s %8.3fs\n", "  its first run (cache empty)", res.FirstRunSeconds)
	for i, sec := range res.FillSeconds {
		fmt.Fprintf(out, "%-52s %8.3fs %29s\n", fmt.Sprintf("  its fill run %d (%s)", i+2, fillWhat[min(i, len(fillWhat)-1)]), sec, mib(res.FillPeakRSSKiB))
	}
	if res.FirstRun != nil {
		line("  first runs (a cache folder emptied before each)", res.FirstRun)
	}
	if res.Git != nil {
		line("git status --porcelain", res.Git)
	}
	if res.GoGit != nil {
		line("go-git Worktree.Status() (own process)", res.GoGit)
		m, _, _ := stats(res.GoGit.InProcSeconds)
		fmt.Fprintf(out, "%-52s %8.3fs   (allocated %.0f MiB per call, Go heap peak %.0f MiB)\n", "  of which Status() itself", m, res.GoGit.AllocMiB, res.GoGit.HeapPeakMiB)
	}
	// A ratio is the median of the per-round ratios: the two commands of a
	// round ran one after the other, so a burst of load from other processes
	// weighs on both.
	if res.Git != nil {
		res.RatioGit = pairedRatio(res.Orchestrate.Seconds, res.Git.Seconds)
		if res.NoCache != nil {
			res.RatioNoCache = pairedRatio(res.NoCache.Seconds, res.Git.Seconds)
			res.RatioFirstRun = pairedRatio(res.FirstRun.Seconds, res.Git.Seconds)
			if ratioApplies(res) {
				fmt.Fprintf(out, "ratio orchestrate/git-status, cache off: %.2f (target <= %.1f)%s; first run %.2f (target <= %.1f)%s; first run / cache off %.2f (target <= %.1f)%s\n",
					res.RatioNoCache, targetRatioCold, verdict(res.RatioNoCache <= targetRatioCold, &res.Missed),
					res.RatioFirstRun, targetRatioCold, verdict(res.RatioFirstRun <= targetRatioCold, &res.Missed),
					firstOverOff(res), targetFirstOverOff, verdict(firstOverOff(res) <= targetFirstOverOff, &res.Missed))
			} else {
				fmt.Fprintf(out, "ratio orchestrate/git-status, cache off: %.2f; first run %.2f; first run / cache off %.2f\n",
					res.RatioNoCache, res.RatioFirstRun, firstOverOff(res))
			}
		}
		if ratioApplies(res) {
			fmt.Fprintf(out, "ratio orchestrate/git-status: %.2f (target <= %.1f)%s\n", res.RatioGit, targetRatioGit, verdict(res.RatioGit <= targetRatioGit, &res.Missed))
		} else {
			fmt.Fprintf(out, "ratio orchestrate/git-status: %.2f (the target <= %.1f applies at %d files)\n", res.RatioGit, targetRatioGit, ratioTargetFiles)
		}
	} else {
		fmt.Fprintf(out, "ratio orchestrate/git-status: n/a (no git binary) (target <= %.1f)\n", targetRatioGit)
	}
	if res.GoGit != nil {
		res.RatioGoGit = pairedRatio(res.Orchestrate.Seconds, res.GoGit.Seconds)
		fmt.Fprintf(out, "ratio orchestrate/go-git: %.2f\n", res.RatioGoGit)
	}
	rt := rssTarget(res.Files)
	peak := peakRSS(res)
	fmt.Fprintf(out, "peak RSS orchestrate: %s (target < %.0f MiB)%s", mib(peak), rt,
		verdict(float64(peak)/1024 < rt, &res.Missed))
	if res.Git != nil {
		fmt.Fprintf(out, ", git status: %s", mib(res.Git.PeakRSSKiB))
	}
	if res.GoGit != nil {
		fmt.Fprintf(out, ", go-git: %s", mib(res.GoGit.PeakRSSKiB))
	}
	fmt.Fprintln(out)
	return res, nil
}

// manifest is the part of benchgen's manifest benchrun reads.
type manifest struct {
	Params struct {
		Shape       string `json:"shape"`
		PerWorkflow int    `json:"per_workflow"`
	} `json:"params"`
	Head         string `json:"head"`
	TrackedFiles int    `json:"tracked_files"`
	Stories      int    `json:"stories"`
	Commits      int    `json:"commits"`
	Refs         int    `json:"refs"`
	Conflicts    int    `json:"refs_changed_by_later_commits"`
	Workflows    []struct {
		ID        string   `json:"id"`
		Conflicts []string `json:"changed_by_later_commits"`
	} `json:"workflows"`
	DiskEdits []string `json:"refs_edited_on_disk"`
}

func readManifest(dir string) *manifest {
	data, err := os.ReadFile(filepath.Join(dir, ".git", "benchgen-manifest.json"))
	if err != nil {
		return nil
	}
	var m manifest
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return &m
}

// readNow returns the time benchgen anchored the history at ("" if unknown).
func readNow(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, ".git", "benchgen-manifest.json"))
	if err != nil {
		return ""
	}
	var m struct {
		Params struct {
			Now string `json:"now"`
		} `json:"params"`
	}
	if json.Unmarshal(data, &m) != nil {
		return ""
	}
	return m.Params.Now
}

func describe(dir string, m *manifest) string {
	if m == nil {
		return dir + " (no benchgen manifest)"
	}
	return fmt.Sprintf("%s: %d tracked source files, %d stories, %d commits, %d interrupted workflows, %d referenced files, HEAD %.7s",
		dir, m.TrackedFiles, m.Stories, m.Commits, len(m.Workflows), m.Refs, m.Head)
}

// summarize checks orchestrate's JSON plan against what benchgen planted.
func summarize(r run, m *manifest, command string) string {
	if command == "status" {
		lines := strings.Count(string(r.stdout), "\n")
		return fmt.Sprintf("orchestrate status: exit %d, %d lines of output", r.exit, lines)
	}
	var doc struct {
		Outcome    string `json:"outcome"`
		ExitCode   int    `json:"exit_code"`
		Selected   string `json:"selected"`
		Candidates []struct {
			ID string `json:"id"`
		} `json:"candidates"`
		Findings []struct {
			Severity string `json:"severity"`
			Code     string `json:"code"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(r.stdout, &doc); err != nil {
		return fmt.Sprintf("orchestrate: exit %d, output is not JSON: %v", r.exit, err)
	}
	sev := map[string]int{}
	codes := map[string]int{}
	for _, f := range doc.Findings {
		sev[f.Severity]++
		codes[f.Code]++
	}
	var cs []string
	for c, n := range codes {
		cs = append(cs, fmt.Sprintf("%s %d", c, n))
	}
	sort.Strings(cs)
	s := fmt.Sprintf("orchestrate: exit %d, outcome %s, %d candidates, selected %s; findings: %d blocking, %d warning, %d info (%s)",
		r.exit, doc.Outcome, len(doc.Candidates), doc.Selected, sev["blocking"], sev["warning"], sev["info"], strings.Join(cs, ", "))
	if m != nil {
		for _, w := range m.Workflows {
			if w.ID == doc.Selected {
				s += fmt.Sprintf("; planted for it: %d files changed by later commits", len(w.Conflicts))
			}
		}
		s += fmt.Sprintf("; %d referenced files edited on disk overall", len(m.DiskEdits))
	}
	return s
}

// newestWorkflow returns the id of the first (most recent) resumable
// workflow `orchestrate status --json` lists in dir.
func newestWorkflow(dir string, env []string, bin string) (string, error) {
	r, err := timed(dir, env, bin, "status", "--json")
	if err != nil {
		return "", err
	}
	var doc struct {
		Candidates []struct {
			ID        string `json:"id"`
			Resumable bool   `json:"resumable"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(r.stdout, &doc); err != nil {
		return "", fmt.Errorf("orchestrate status --json in %s: %w", dir, err)
	}
	for _, c := range doc.Candidates {
		if c.Resumable {
			return c.ID, nil
		}
	}
	return "", fmt.Errorf("orchestrate status in %s lists no resumable workflow", dir)
}

// fillRuns is how many runs after the warm-up fill orchestrate's cache
// (app/loaded/seed.go), and fillWhat what each fills.
const fillRuns = 2

var fillWhat = []string{"the git and story tables", "the verdict memo"}

// peakRSS is the highest peak RSS of every orchestrate run of res: warm,
// the fill runs, cache off and first runs.
func peakRSS(res *Result) int64 {
	peak := max(res.Orchestrate.PeakRSSKiB, res.FillPeakRSSKiB)
	if res.NoCache != nil {
		peak = max(peak, res.NoCache.PeakRSSKiB)
	}
	if res.FirstRun != nil {
		peak = max(peak, res.FirstRun.PeakRSSKiB)
	}
	return peak
}
