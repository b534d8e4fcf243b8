// Command benchgen builds the repository `make bench` measures orchestrate
// on: many tracked source files in nested folders, thousands of story files
// in both status layouts, a few hundred commits of history, and interrupted
// workflows of every type whose referenced files were partly changed by
// later commits and partly edited on disk without committing. It needs no
// git binary (commits are made with go-git, through internal/gitfixture).
//
//	go run ./cmd/benchgen -dir DIR [-files 100000] [-stories 2000] [-commits 300] [-refs 300] [-seed 1]
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
	Files   int    `json:"files"`
	Stories int    `json:"stories"`
	Commits int    `json:"commits"`
	Refs    int    `json:"refs"`
	Seed    uint64 `json:"seed"`
	Now     string `json:"now"`
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
	force := flag.Bool("force", false, "rebuild even when the repository was built with the same parameters")
	quiet := flag.Bool("q", false, "print only the summary line")
	flag.Parse()
	p.Version = stampVersion
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
	sum, err := g.build()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(abs, StampFile), append(want, '\n'), 0o644); err != nil {
		return fmt.Errorf("write stamp: %w", err)
	}
	fmt.Fprintf(out, "benchgen: built %s in %.1fs: %s\n", abs, time.Since(start).Seconds(), sum)
	return nil
}

func (p Params) check() error {
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
