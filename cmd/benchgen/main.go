// Command benchgen builds the repository `make bench` measures orchestrate
// on: many tracked source files in nested folders, thousands of story files
// in both status layouts, a few hundred commits of history, and interrupted
// workflows of every type whose referenced files were partly changed by
// later commits and partly edited on disk without committing. It needs no
// git binary (commits are made with go-git, through internal/gitfixture).
//
//	go run ./cmd/benchgen -dir DIR [-files 100000] [-stories 2000] [-commits 300] [-refs 300] [-seed 1]
//
// With -shape it builds instead one of the shapes where the work grows in
// another direction than the number of files (see shapes.go): commits,
// merges, stories, workflows, refs or huge. Each shape has its own defaults,
// which the flags given override; shapes are written with `git fast-import`
// and so need git on PATH.
//
//	go run ./cmd/benchgen -dir DIR -shape commits [-commits 20000]
//
// The same flags give the same repository, commit hashes included. The
// parameters are recorded in DIR/.git/benchgen.stamp; when DIR already holds
// a repository built with the same parameters it is reused as it is (unless
// -force). DIR is only ever emptied when it is empty, or when it holds a
// repository benchgen built.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// stampVersion changes whenever the generated layout changes, so that an
// older repository is rebuilt rather than reused.
const stampVersion = 1

// StampFile is where the parameters of the generated repository are kept,
// relative to the repository root (inside .git, so git status ignores it).
const StampFile = ".git/benchgen.stamp"

// ManifestFile describes what was planted (workflows, conflicts, edits).
const ManifestFile = ".git/benchgen-manifest.json"

// defaultNow anchors every time of the history, so that commit hashes do not
// depend on the day benchgen runs.
const defaultNow = "2026-11-20T12:00:00Z"

// Params are the inputs of a generation; equal Params give equal repositories.
type Params struct {
	Version int    `json:"version"`
	Shape   string `json:"shape,omitempty"` // "": the standard repository
	Files   int    `json:"files"`
	Stories int    `json:"stories"`
	Commits int    `json:"commits"`
	Refs    int    `json:"refs"`
	// shapes only
	Workflows int `json:"workflows,omitempty"`    // interrupted workflow states
	Merges    int `json:"merges,omitempty"`       // merges shape: merge commits
	Side      int `json:"side_commits,omitempty"` // merges shape: commits per merged branch
	// PerWorkflow, when set, is the referenced files of each workflow: a
	// window of the Refs files, the windows of neighbours overlapping
	// (PerWorkflow x Workflows look-ups over Refs distinct files); 0
	// shares the Refs files out, each workflow its own.
	PerWorkflow int    `json:"per_workflow,omitempty"`
	Seed        uint64 `json:"seed"`
	Now         string `json:"now"`
}

func main() {
	var p Params
	dir := flag.String("dir", "", "folder to build the repository in (required; emptied first unless it already holds this repository)")
	flag.IntVar(&p.Files, "files", 100000, "tracked source files, in nested folders")
	flag.IntVar(&p.Stories, "stories", 2000, "story files under docs/stories (at least 40)")
	flag.IntVar(&p.Commits, "commits", 300, "commits of history (at least 20)")
	flag.IntVar(&p.Refs, "refs", 300, "tracked files the interrupted workflows reference (at least 30)")
	flag.Uint64Var(&p.Seed, "seed", 1, "random seed")
	flag.StringVar(&p.Now, "now", defaultNow, "the time the history ends at (RFC 3339); times are relative to it")
	flag.StringVar(&p.Shape, "shape", "", "build a shape of issue 15 instead: commits, merges, stories, workflows, workflows1000, refs, specs, specs-kiro or huge")
	flag.IntVar(&p.Workflows, "workflows", 0, "shapes: interrupted workflow states (default: the shape's)")
	flag.IntVar(&p.Merges, "merges", 0, "merges shape: merge commits (default 2000)")
	flag.IntVar(&p.Side, "side", 0, "merges shape: side commits per merge (default 10)")
	flag.IntVar(&p.PerWorkflow, "per-workflow", 0, "shapes: referenced files of each workflow, overlapping windows of the -refs files (default: the shape's; 0: -refs shared out)")
	force := flag.Bool("force", false, "rebuild even when the repository was built with the same parameters")
	quiet := flag.Bool("q", false, "print only the summary line")
	flag.Parse()
	p.Version = stampVersion
	if p.Shape != "" {
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
		p = withPreset(p, set)
	}
	if err := run(*dir, p, *force, *quiet, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchgen:", err)
		os.Exit(1)
	}
}

func run(dir string, p Params, force, quiet bool, out io.Writer) error {
	if dir == "" {
		return errors.New("-dir is required")
	}
	if err := p.check(); err != nil {
		return err
	}
	now, err := time.Parse(time.RFC3339, p.Now)
	if err != nil {
		return fmt.Errorf("-now: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	want, _ := json.Marshal(p)
	if !force {
		if got, err := os.ReadFile(filepath.Join(abs, StampFile)); err == nil && strings.TrimSpace(string(got)) == string(want) {
			fmt.Fprintf(out, "benchgen: reusing %s (built earlier with the same parameters: %s)\n", abs, want)
			return nil
		}
	}
	if err := prepare(abs); err != nil {
		return err
	}
	logf := func(format string, args ...any) {
		if !quiet {
			fmt.Fprintf(out, "benchgen: "+format+"\n", args...)
		}
	}
	g := newGen(abs, p, now.UTC(), logf)
	start := time.Now()
	build := g.build
	if p.Shape != "" {
		build = g.buildShape
	}
	sum, err := build()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(abs, StampFile), append(want, '\n'), 0o644); err != nil {
		return fmt.Errorf("write stamp: %w", err)
	}
	fmt.Fprintf(out, "benchgen: built %s in %.1fs: %s\n", abs, time.Since(start).Seconds(), sum)
	return nil
}

// withPreset fills the parameters of p's shape that were not set by a flag.
func withPreset(p Params, set map[string]bool) Params {
	pre, ok := shapePresets[p.Shape]
	if !ok {
		return p // check reports it
	}
	for _, d := range []struct {
		name string
		dst  *int
		v    int
	}{{"files", &p.Files, pre.Files}, {"stories", &p.Stories, pre.Stories}, {"commits", &p.Commits, pre.Commits},
		{"refs", &p.Refs, pre.Refs}, {"workflows", &p.Workflows, pre.Workflows}, {"merges", &p.Merges, pre.Merges}, {"side", &p.Side, pre.Side}, {"per-workflow", &p.PerWorkflow, pre.PerWorkflow}} {
		if !set[d.name] {
			*d.dst = d.v
		}
	}
	if p.Shape != "merges" {
		p.Merges, p.Side = 0, 0
	}
	return p
}

func (p Params) check() error {
	if p.Shape != "" {
		if _, ok := shapePresets[p.Shape]; !ok {
			return fmt.Errorf("-shape %q: want commits, merges, stories, workflows, workflows1000, refs, specs, specs-kiro or huge", p.Shape)
		}
		switch {
		case p.Workflows < 1:
			return fmt.Errorf("-workflows %d: at least 1", p.Workflows)
		case p.Refs < p.Workflows:
			return fmt.Errorf("-refs %d: at least one per workflow (%d)", p.Refs, p.Workflows)
		case p.Stories < p.Workflows:
			return fmt.Errorf("-stories %d: at least one per workflow (%d)", p.Stories, p.Workflows)
		case p.PerWorkflow < 0 || p.PerWorkflow > p.Refs:
			return fmt.Errorf("-per-workflow %d: between 0 and -refs (%d)", p.PerWorkflow, p.Refs)
		case p.Shape == "merges" && (p.Merges < 1 || p.Side < 1):
			return fmt.Errorf("-merges %d -side %d: at least 1 each", p.Merges, p.Side)
		}
	} else if p.Workflows != 0 || p.Merges != 0 || p.Side != 0 || p.PerWorkflow != 0 {
		return errors.New("-workflows, -merges, -side and -per-workflow apply to -shape only")
	}
	switch {
	case p.Files < 100:
		return fmt.Errorf("-files %d: at least 100", p.Files)
	case p.Stories < 40:
		return fmt.Errorf("-stories %d: at least 40", p.Stories)
	case p.Commits < 20:
		return fmt.Errorf("-commits %d: at least 20", p.Commits)
	case p.Refs < 30:
		return fmt.Errorf("-refs %d: at least 30", p.Refs)
	case p.Refs > p.Files/2:
		return fmt.Errorf("-refs %d: at most half of -files", p.Refs)
	}
	return nil
}

// prepare makes dir an empty folder, refusing to empty a folder that holds
// anything but a repository benchgen built.
func prepare(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return err
	case len(entries) == 0:
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, StampFile)); err != nil {
		return fmt.Errorf("refusing to empty %s: it is not empty and was not built by benchgen (no %s)", dir, StampFile)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("empty %s: %w", dir, err)
	}
	return os.MkdirAll(dir, 0o755)
}
