package gitrepo

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

var datingPaths = []string{
	"src/app/main.go", "src/app/util.go", "README.md", "src/lib/deep/x/y.go",
	"docs/stories", "src/lib", "src/app", "docs", "nope", "../x", "/abs", "src//lib",
}

func lastCommitted(t *testing.T, dir string) map[string]string {
	t.Helper()
	r := open(t, dir)
	got := map[string]string{}
	for p, c := range r.LastCommitted(datingPaths, 0) {
		got[p] = c.Hash
	}
	return got
}

// TestLastCommitted: a file or folder exactly as committed in HEAD is dated by
// the last commit that changed it — the same in the original checkout, a
// fresh clone and a linked worktree — and one with an uncommitted edit (or an
// untracked file in a folder) is not dated.
func TestLastCommitted(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	clone := filepath.Join(t.TempDir(), "clone")
	must(t, gitfixture.Clone(h.dir, clone))
	wt := filepath.Join(t.TempDir(), "wt")
	must(t, gitfixture.AddWorktree(h.dir, wt, "wt"))
	committed := map[string]string{
		"src/app/main.go": h.c4, "src/app/util.go": h.c3, "README.md": h.c1, "src/lib/deep/x/y.go": h.c1,
		"docs/stories": h.c1, "src/lib": h.c1, "src/app": h.c4, "docs": h.c4,
	}
	for _, tc := range []struct {
		name string
		dir  string
		want map[string]string
	}{
		// the original has uncommitted work: util.go and 1.1 edited, README.md deleted
		{"original", h.dir, map[string]string{"src/app/main.go": h.c4, "src/lib/deep/x/y.go": h.c1, "src/lib": h.c1}},
		{"fresh clone", clone, committed},
		{"linked worktree", wt, committed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lastCommitted(t, tc.dir); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
	t.Run("git clone and git worktree add", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git binary")
		}
		real := filepath.Join(t.TempDir(), "real")
		runGit(t, h.dir, "clone", "--quiet", "file://"+filepath.ToSlash(h.dir), real)
		realWT := filepath.Join(t.TempDir(), "realwt")
		runGit(t, h.dir, "worktree", "add", "--quiet", "--detach", realWT, h.c4)
		for _, dir := range []string{real, realWT} {
			if got := lastCommitted(t, dir); !reflect.DeepEqual(got, committed) {
				t.Errorf("%s: got %v\nwant %v", filepath.Base(dir), got, committed)
			}
		}
	})
	t.Run("untracked file in a folder", func(t *testing.T) {
		must(t, gitfixture.WriteFile(clone, "src/lib/extra.go", "package lib\n"))
		got := lastCommitted(t, clone)
		if _, ok := got["src/lib"]; ok {
			t.Errorf("src/lib dated with an untracked file in it: %v", got)
		}
		if got["src/lib/deep/x/y.go"] != h.c1 {
			t.Errorf("y.go: %v", got)
		}
	})
}

// TestRemoval names the commit that deleted or moved a path.
func TestRemoval(t *testing.T) {
	t.Parallel()
	d := t.TempDir()
	must(t, gitfixture.Init(d))
	must(t, gitfixture.WriteFile(d, "docs/stories/epics/plan.yaml", "waves: [1, 2]\n"))
	must(t, gitfixture.WriteFile(d, "b.txt", "b\n"))
	must(t, gitfixture.WriteFile(d, "keep.md", "k\n"))
	_, err := gitfixture.Commit(d, "plan", "Ann", "ann@example.com", t0)
	must(t, err)
	must(t, gitfixture.Remove(d, "docs/stories"))
	must(t, gitfixture.WriteFile(d, "docs/plans/plan.yaml", "waves: [1, 2]\n"))
	moved, err := gitfixture.Commit(d, "move plans", "Bot", "bot@example.com", t0.Add(time.Hour))
	must(t, err)
	must(t, gitfixture.Remove(d, "b.txt"))
	deleted, err := gitfixture.Commit(d, "drop b", "Ann", "ann@example.com", t0.Add(2*time.Hour))
	must(t, err)
	r := open(t, d)
	for _, tc := range []struct {
		path   string
		ok     bool
		commit string
		to     string
	}{
		{"docs/stories/epics/plan.yaml", true, moved, "docs/plans/plan.yaml"},
		{"b.txt", true, deleted, ""},
		{"keep.md", false, "", ""},              // still there
		{"docs/plans/plan.yaml", false, "", ""}, // still there
		{"never.txt", false, "", ""},
		{"../b.txt", false, "", ""},
		{"", false, "", ""},
	} {
		got, ok := r.Removal(tc.path)
		if ok != tc.ok || got.Commit.Hash != tc.commit || got.MovedTo != tc.to {
			t.Errorf("Removal(%q) = %+v, %v; want commit %.7s moved to %q, %v", tc.path, got, ok, tc.commit, tc.to, tc.ok)
		}
	}
}

// TestHistoryMissing: a walk cut short by a shallow boundary or a missing
// ancestor (partial clone) is ErrHistoryMissing as well as ErrNoCommit; a
// time before the first commit of a complete history is ErrNoCommit only.
func TestHistoryMissing(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	r := open(t, h.dir)
	if _, err := r.InterruptionCommit("", t0.Add(-time.Hour)); !errors.Is(err, ErrNoCommit) || errors.Is(err, ErrHistoryMissing) {
		t.Errorf("before the first commit: %v", err)
	}

	partial := filepath.Join(t.TempDir(), "partial")
	must(t, gitfixture.Clone(h.dir, partial))
	must(t, os.Remove(filepath.Join(partial, ".git", "objects", h.c1[:2], h.c1[2:])))
	r = open(t, partial)
	if _, err := r.InterruptionCommit("", t0.Add(30*time.Minute)); !errors.Is(err, ErrNoCommit) || !errors.Is(err, ErrHistoryMissing) {
		t.Errorf("missing ancestor: %v", err)
	}

	shallow := filepath.Join(t.TempDir(), "shallow")
	must(t, gitfixture.Clone(h.dir, shallow))
	must(t, gitfixture.Shallow(shallow, 2))
	r = open(t, shallow)
	if !r.Shallow() {
		t.Fatal("not shallow")
	}
	for _, tc := range []struct {
		recorded string
		at       time.Time
	}{
		{"", t0.Add(90 * time.Minute)}, // C2 is beyond the depth
		{h.c1, time.Time{}},            // pruned
		{h.c2[:7], time.Time{}},
	} {
		if _, err := r.InterruptionCommit(tc.recorded, tc.at); !errors.Is(err, ErrHistoryMissing) || !errors.Is(err, ErrNoCommit) {
			t.Errorf("InterruptionCommit(%.7s, %v) in a depth-2 clone: %v", tc.recorded, tc.at, err)
		}
	}
	c, err := r.InterruptionCommit("", t0.Add(150*time.Minute))
	must(t, err)
	if c.Hash != h.c3 {
		t.Errorf("within the depth: %s", c.Short)
	}
}
