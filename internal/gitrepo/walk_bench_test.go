//go:build gitbench

package gitrepo

// Run with: go test -tags gitbench -run XXX -bench . -benchmem ./internal/gitrepo/
// It needs the git binary; it builds two repositories with git fast-import
// (20,000 first-parent commits, and 2,000 merges of 10 side commits each) in
// GITBENCH_DIR (default: a temporary folder, rebuilt each run) and times the
// walks validation runs against `git log --first-parent -- path`.

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	benchDirs    = 100
	benchPerDir  = 50
	benchCommits = 20000
	benchMerges  = 2000
	benchSide    = 10
)

// benchPaths are the referenced paths: one changed only by the first commit,
// two changed now and then.
var benchPaths = []string{"docs/stories/1.1.story.md", "src/d007/f003.txt", "src/d042/f017.txt"}

func benchFile(i int) string {
	return fmt.Sprintf("src/d%03d/f%03d.txt", (i/benchPerDir)%benchDirs, i%benchPerDir)
}

// buildBenchRepo writes a fast-import stream and runs git on it.
func buildBenchRepo(b *testing.B, dir string, merges bool) {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	run := func(stdin string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if stdin != "" {
			f, err := os.Open(stdin)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			cmd.Stdin = f
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("", "init", "-q", "-b", "main")
	stream := filepath.Join(dir, "..", filepath.Base(dir)+".fi")
	f, err := os.Create(stream)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	when := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	mark := 0
	data := func(s string) { fmt.Fprintf(w, "data %d\n%s\n", len(s), s) }
	commit := func(ref string, from, merge int, files map[string]string) int {
		mark++
		when += 60
		fmt.Fprintf(w, "commit %s\nmark :%d\ncommitter Bench <b@example.com> %d +0000\n", ref, mark, when)
		data(fmt.Sprintf("commit %d", mark))
		if from > 0 {
			fmt.Fprintf(w, "from :%d\n", from)
		}
		if merge > 0 {
			fmt.Fprintf(w, "merge :%d\n", merge)
		}
		for p, c := range files {
			fmt.Fprintf(w, "M 100644 inline %s\n", p)
			data(c)
		}
		return mark
	}
	first := map[string]string{"docs/stories/1.1.story.md": "# Story 1.1\nStatus: InProgress\n"}
	for i := 0; i < benchDirs*benchPerDir; i++ {
		first[benchFile(i)] = fmt.Sprintf("file %d v0\n%s", i, strings.Repeat("line\n", 20))
	}
	main := commit("refs/heads/main", 0, 0, first)
	edit := func(n int) map[string]string {
		i := (n * 7919) % (benchDirs * benchPerDir)
		return map[string]string{benchFile(i): fmt.Sprintf("file %d v%d\n%s", i, n, strings.Repeat("line\n", 20))}
	}
	if !merges {
		for n := 1; n < benchCommits; n++ {
			main = commit("refs/heads/main", main, 0, edit(n))
		}
	} else {
		n := 0
		for m := 0; m < benchMerges; m++ {
			side, merged := main, map[string]string{}
			for s := 0; s < benchSide; s++ {
				n++
				e := edit(n)
				side = commit("refs/heads/side", side, 0, e)
				for p, c := range e {
					merged[p] = c
				}
			}
			main = commit("refs/heads/main", main, side, merged)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	run(stream, "fast-import", "--quiet")
	run("", "repack", "-adq")
	run("", "checkout", "-q", "-f", "main")
}

func benchRepoDir(b *testing.B, name string) string {
	if d := os.Getenv("GITBENCH_DIR"); d != "" {
		return filepath.Join(d, name)
	}
	return filepath.Join(b.TempDir(), name)
}

func benchWalk(b *testing.B, merges bool, name string) {
	dir := benchRepoDir(b, name)
	buildBenchRepo(b, dir, merges)
	r, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	out, err := exec.Command("git", "-C", dir, "rev-list", "--max-parents=0", "main").Output()
	if err != nil {
		b.Fatal(err)
	}
	base := Commit{Hash: strings.TrimSpace(string(out))}
	b.Run("CommitsTouching", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			got, err := r.CommitsTouching(base, benchPaths, 3)
			if err != nil || len(got) == 0 {
				b.Fatal(err, got)
			}
		}
	})
	b.Run("LastCommitted", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if got := r.LastCommitted(benchPaths, 0); len(got) != len(benchPaths) {
				b.Fatal(got)
			}
		}
	})
	b.Run("Compare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.Compare(base, benchPaths); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("git-log-first-parent", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("git", "-C", dir, "log", "--first-parent", "--format=%H", "--", benchPaths[0])
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkWalkLinear(b *testing.B) { benchWalk(b, false, "linear") }
func BenchmarkWalkMerges(b *testing.B) { benchWalk(b, true, "merges") }
