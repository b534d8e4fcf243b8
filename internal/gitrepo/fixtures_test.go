package gitrepo

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The random histories most tests here read (buildRefHistory,
// buildMergeHistory) take a few hundred commits of go-git to build: most
// of this package's test time under -race when every test built its own.
// Tests that only read a history share one built once per test binary
// and seed (sharedRefHistory, sharedMergeHistory), in a folder TestMain
// removes; a test that changes its repository (a shallow file) takes a
// copy of the shared one (copyRefHistory).
//
// The shared histories of every seed but the first are packed (git
// repack, deltas included) once built: reading loose objects, each
// opened through the confined file system, was half of the remaining time
// under -race. So the random histories are read both ways — seed 1 from
// loose objects, the others from a pack — and loose objects stay covered
// by every test that builds its own repository (newHistory, the shared
// walks, the cost and verify tests); TestPackedWalksMatchLoose compares
// the two. Without a git binary every history stays loose.

// fixtureRoot is the folder of the shared histories.
var fixtureRoot string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gitrepo-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fixtureRoot = dir
	code := m.Run()
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

// shared is one history built at most once; built is set only when the
// build finished (a build that failed fails every test that asks again).
type shared[H any] struct {
	once  sync.Once
	h     H
	built bool
}

var refHistories, mergeHistories sync.Map // seed → *shared[…]

// sharedHistory returns the history of seed of kind, built by build in
// its own folder on the first call. The caller must not change it.
func sharedHistory[H any](t *testing.T, all *sync.Map, kind string, seed int64, build func(t testing.TB, dir string, seed int64) H) H {
	t.Helper()
	v, _ := all.LoadOrStore(seed, &shared[H]{})
	s := v.(*shared[H])
	s.once.Do(func() {
		dir := filepath.Join(fixtureRoot, fmt.Sprint(kind, seed))
		must(t, os.Mkdir(dir, 0o755))
		s.h = build(t, dir, seed)
		if seed != 1 {
			must(t, repack(dir))
		}
		s.built = true
	})
	if !s.built {
		t.Fatalf("the %s history of seed %d could not be built", kind, seed)
	}
	return s.h
}

// sharedRefHistory is buildRefHistory's history of seed, shared: read it
// only.
func sharedRefHistory(t *testing.T, seed int64) refHistory {
	t.Helper()
	return sharedHistory(t, &refHistories, "ref", seed, buildRefHistory)
}

// sharedMergeHistory is buildMergeHistory's history of seed, shared: read
// it only.
func sharedMergeHistory(t *testing.T, seed int64) mergeHistory {
	t.Helper()
	return sharedHistory(t, &mergeHistories, "merge", seed, buildMergeHistory)
}

// copyRefHistory is buildRefHistory's history of seed in a folder of the
// test's own, a copy of the shared one: the test may change it.
func copyRefHistory(t *testing.T, seed int64) refHistory {
	t.Helper()
	h := sharedRefHistory(t, seed)
	src := h.dir
	h.dir = t.TempDir()
	must(t, copyTree(src, h.dir))
	return h
}

// repack packs every object of the repository in dir and removes the
// loose ones; nothing without a git binary.
func repack(dir string) error {
	if _, err := exec.LookPath("git"); err != nil {
		return nil
	}
	cmd := exec.Command("git", "-C", dir, "repack", "-adq")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_TERMINAL_PROMPT=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git repack: %v\n%s", err, out)
	}
	return nil
}

// copyTree copies the folders and regular files under src into dst, which
// exists.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(to, info.Mode().Perm())
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, data, info.Mode().Perm())
		}
		return fmt.Errorf("%s: not a folder or a regular file", p)
	})
}
