// Command benchrun measures orchestrate against git on a repository built by
// benchgen (the performance bar in README.md): it times, in the same run and round-robin after one
// warm-up each,
//
//	(a) orchestrate resume --dry-run --json --mode preflight --approve   (exit 0 or 17),
//	    with a private cache folder (ORCHESTRATE_CACHE_DIR), empty before
//	    its warm-up run, whose time is reported as the first run, then
//	    filled by two more runs (the tables, the verdict memo) before the
//	    measured, warm ones
//	(a') the same with the cache off (skipped with -no-cache-series)
//	(b) git status --porcelain                                  (skipped without git)
//	(c) go-git's Worktree.Status(), in a child benchrun process
//
// and prints the medians, the ratios orchestrate/git-status and
// orchestrate/go-git, and the peak resident memory of each (getrusage of the
// child process). With -out it also writes the figures as JSON, which
// -growth compares between two sizes:
//
//	go run ./cmd/benchrun -dir DIR -bin bin/orchestrate [-runs 7] [-out FILE]
//	go run ./cmd/benchrun -growth SMALL.json,LARGE.json
//	go run ./cmd/benchrun -dir DIR -cmd status -no-go-git -out FILE   (a shape of benchgen)
//	go run ./cmd/benchrun -table A.json,B.json,...
//
// Targets missed are marked MISSED; with -strict benchrun then exits 1.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// The performance targets (README.md, Performance).
const (
	targetRatioGit = 0.5 // orchestrate time / git status time, at most
	// orchestrate with its cache off, and on a first run (cache empty), /
	// git status time, at most
	targetRatioCold = 1.0
	// a first run / a run with the cache off, at most: filling the cache
	// costs at most 10 %
	targetFirstOverOff = 1.1
	targetGrowth       = 1.3 // orchestrate time at the large size / at the small size, at most
	targetRSSMiB       = 100 // orchestrate peak RSS, below
	// at hugeFiles tracked files and more, orchestrate's peak RSS target
	targetRSSMiBHuge = 128
	hugeFiles        = 1000000

	ratioTargetFiles = 100000 // the ratio target is set for a repository this size
)

func main() {
	dir := flag.String("dir", "", "repository built by benchgen")
	bin := flag.String("bin", "bin/orchestrate", "orchestrate binary")
	runs := flag.Int("runs", 7, "measured runs of each command (after one warm-up each)")
	out := flag.String("out", "", "also write the figures as JSON to this file")
	growth := flag.String("growth", "", "SMALL.json,LARGE.json: print the growth between two results of -out and exit")
	noGoGit := flag.Bool("no-go-git", false, "skip go-git's Worktree.Status()")
	noCache := flag.Bool("no-cache-series", false, "skip the series of orchestrate with its cache off")
	command := flag.String("cmd", "resume", "orchestrate command to measure: resume (resume --dry-run --json --mode preflight --approve) or status")
	table := flag.String("table", "", "A.json,B.json,...: print one line per result of -out (shape, medians, ratio, peak RSS, verdict) and exit")
	strict := flag.Bool("strict", false, "exit 1 when a target is missed")
	pair := flag.String("pair", "", "OLD,NEW: run two orchestrate binaries alternately -runs times each on -dir (-cmd, -pair-mode) and print the mean difference of their times with its standard error")
	pairMode := flag.String("pair-mode", "off", "the cache of -pair's runs: off, first (emptied before each run) or warm (filled by three runs first)")
	child := flag.String("go-git-status", "", "internal: run go-git's Worktree.Status() on this folder and print the figures as JSON")
	flag.Parse()

	var missed int
	var err error
	switch {
	case *child != "":
		err = goGitStatusChild(*child, os.Stdout)
	case *growth != "":
		missed, err = printGrowth(*growth, os.Stdout)
	case *table != "":
		missed, err = printTable(strings.Split(*table, ","), os.Stdout)
	case *pair != "":
		if *dir == "" {
			err = errors.New("-dir is required")
			break
		}
		_, err = comparePair(*dir, *pair, *pairMode, *command, *runs, os.Stdout)
	default:
		if *dir == "" {
			err = errors.New("-dir is required")
			break
		}
		var res *Result
		res, err = measure(*dir, *bin, *runs, !*noGoGit, !*noCache, *command, os.Stdout, os.Stderr)
		if err == nil {
			missed = res.Missed
			if *out != "" {
				err = writeJSON(*out, res)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
	if *strict && missed > 0 {
		fmt.Fprintf(os.Stderr, "benchrun: %d target(s) missed\n", missed)
		os.Exit(1)
	}
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

func readResult(path string) (*Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// printGrowth prints how each command's median time grew from the first
// result to the second, and orchestrate's peak RSS at both sizes.
func printGrowth(spec string, w io.Writer) (missed int, err error) {
	a, b, ok := strings.Cut(spec, ",")
	if !ok {
		return 0, fmt.Errorf("-growth %q: want SMALL.json,LARGE.json", spec)
	}
	small, err := readResult(a)
	if err != nil {
		return 0, err
	}
	large, err := readResult(b)
	if err != nil {
		return 0, err
	}
	g := large.Orchestrate.Median / small.Orchestrate.Median
	mark := verdict(g <= targetGrowth, &missed)
	fmt.Fprintf(w, "growth %s->%s files: orchestrate %.2fx (target <= %.1fx)%s", sizeLabel(small.Files), sizeLabel(large.Files), g, targetGrowth, mark)
	for _, s := range []struct {
		name   string
		sm, lg *Series
	}{{"git status", small.Git, large.Git}, {"go-git", small.GoGit, large.GoGit}} {
		if s.sm == nil || s.lg == nil {
			fmt.Fprintf(w, ", %s n/a", s.name)
			continue
		}
		fmt.Fprintf(w, ", %s %.1fx", s.name, s.lg.Median/s.sm.Median)
	}
	fmt.Fprintln(w)
	peak := max(small.Orchestrate.PeakRSSKiB, large.Orchestrate.PeakRSSKiB)
	mark = verdict(float64(peak)/1024 < targetRSSMiB, &missed)
	fmt.Fprintf(w, "peak RSS orchestrate: %s files %s, %s files %s (target < %d MiB)%s\n",
		sizeLabel(small.Files), mib(small.Orchestrate.PeakRSSKiB), sizeLabel(large.Files), mib(large.Orchestrate.PeakRSSKiB), targetRSSMiB, mark)
	fmt.Fprintf(w, "ratio orchestrate/git-status: %s files %s, %s files %s (target <= %.1f at %s files)\n",
		sizeLabel(small.Files), ratioString(small.RatioGit), sizeLabel(large.Files), ratioString(large.RatioGit), targetRatioGit, sizeLabel(ratioTargetFiles))
	return missed, nil
}

func ratioString(r float64) string {
	if r == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", r)
}

func verdict(ok bool, missed *int) string {
	if ok {
		return ""
	}
	*missed++
	return "  MISSED"
}

func sizeLabel(files int) string {
	switch {
	case files >= 1000 && files%1000 == 0:
		return fmt.Sprintf("%dk", files/1000)
	default:
		return fmt.Sprint(files)
	}
}

func mib(kib int64) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }

// printTable prints one line per result: the shape, orchestrate's and git
// status's medians, their paired ratio, orchestrate's peak RSS and whether
// both targets were met.
func printTable(paths []string, w io.Writer) (missed int, err error) {
	fmt.Fprintf(w, "| %-36s | %-8s | %11s | %11s | %6s | %13s | %13s | %10s | %10s | %-16s |\n", "shape", "command", "orchestrate", "git status", "ratio", "cache off", "first run", "peak RSS", "git RSS", "result")
	fmt.Fprintf(w, "|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n", strings.Repeat("-", 38), strings.Repeat("-", 10), strings.Repeat("-", 13), strings.Repeat("-", 13),
		strings.Repeat("-", 8), strings.Repeat("-", 15), strings.Repeat("-", 15), strings.Repeat("-", 12), strings.Repeat("-", 12), strings.Repeat("-", 18))
	for _, p := range paths {
		r, err := readResult(p)
		if err != nil {
			return missed, err
		}
		gitMed, gitRSS, ratio := "n/a", "n/a", "n/a"
		if r.Git != nil {
			gitMed, gitRSS, ratio = fmt.Sprintf("%.3fs", r.Git.Median), mib(r.Git.PeakRSSKiB), fmt.Sprintf("%.2f", r.RatioGit)
		}
		result := "pass"
		if m := missedTargets(r); len(m) > 0 {
			result = "FAIL: " + strings.Join(m, " ")
			missed++
		}
		cmd := r.Command
		if cmd == "" {
			cmd = "resume"
		}
		off, first := "n/a", "n/a"
		if r.NoCache != nil && r.Git != nil {
			off = fmt.Sprintf("%.3fs %.2f", r.NoCache.Median, r.RatioNoCache)
		}
		peak := peakRSS(r)
		if r.FirstRun != nil && r.Git != nil {
			first = fmt.Sprintf("%.3fs %.2f", r.FirstRun.Median, r.RatioFirstRun)
		}
		fmt.Fprintf(w, "| %-36s | %-8s | %10.3fs | %11s | %6s | %13s | %13s | %10s | %10s | %-16s |\n", shapeLabel(r), cmd, r.Orchestrate.Median, gitMed, ratio,
			off, first, mib(peak), gitRSS, result)
	}
	fmt.Fprintf(w, "orchestrate runs with a private cache, empty before its warm-up run and filled by the two runs after it; \"cache off\" (median and ratio to git status) derives everything on every run; \"first run\" (median and ratio) runs with a cache folder emptied before each run, as on a fresh clone; peak RSS is the highest of every run (the fill runs included)\n")
	fmt.Fprintf(w, "targets (shapes, and >= %s files): warm <= %.1f x git status, cache off (off) and first run (first) <= %.1f x, first run <= %.1f x cache off (first/off); peak RSS < %d MiB (< %d MiB at %s files)\n",
		sizeLabel(ratioTargetFiles), targetRatioGit, targetRatioCold, targetFirstOverOff, targetRSSMiB, targetRSSMiBHuge, sizeLabel(hugeFiles))
	return missed, nil
}

// shapeLabel describes the repository of a result in a few words.
func shapeLabel(r *Result) string {
	switch r.Shape {
	case "commits":
		return fmt.Sprintf("%d commits since interruption", r.Commits-2)
	case "merges":
		return fmt.Sprintf("merge-heavy, %d commits", r.Commits)
	case "stories":
		return fmt.Sprintf("%d stories", r.Stories)
	case "workflows", "workflows1000":
		if r.PerWorkflow > 0 {
			return fmt.Sprintf("%d workflows x %d referenced files", r.Workflows, r.PerWorkflow)
		}
		return fmt.Sprintf("%d interrupted workflows", r.Workflows)
	case "refs":
		return fmt.Sprintf("one workflow, %d referenced files", r.Refs)
	case "specs-kiro":
		return fmt.Sprintf("%d stories + 500 Kiro specs", r.Stories)
	case "huge", "":
		return fmt.Sprintf("%s files", sizeLabel(r.Files))
	}
	return r.Shape
}
