package gitrepo

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// indexRepo is a repository of n committed files f000.txt…, staged with
// modification times an hour old (so no entry is racily clean), and the paths
// of its files. It is staged by git itself when git is installed, else by
// go-git (which writes the same index format), so the tests run on a machine
// with only Go.
func indexRepo(t *testing.T, n int) (string, []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return indexRepoGoGit(t, n)
	}
	dir := t.TempDir()
	runGit(t, dir, "init", "-q")
	old := time.Now().Add(-time.Hour)
	var paths []string
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("f%03d.txt", i)
		must(t, os.WriteFile(filepath.Join(dir, p), []byte(fmt.Sprintf("content %03d\n", i)), 0o644))
		must(t, os.Chtimes(filepath.Join(dir, p), old, old))
		paths = append(paths, p)
	}
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "-c", "user.name=A", "-c", "user.email=a@x", "commit", "-q", "-m", "c")
	return dir, paths
}

// indexRepoGoGit is indexRepo staged and committed with go-git.
func indexRepoGoGit(t *testing.T, n int) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	must(t, err)
	w, err := repo.Worktree()
	must(t, err)
	old := time.Now().Add(-time.Hour)
	var paths []string
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("f%03d.txt", i)
		must(t, os.WriteFile(filepath.Join(dir, p), []byte(fmt.Sprintf("content %03d\n", i)), 0o644))
		must(t, os.Chtimes(filepath.Join(dir, p), old, old))
		_, err := w.Add(p)
		must(t, err)
		paths = append(paths, p)
	}
	_, err = w.Commit("c", &git.CommitOptions{Author: &object.Signature{Name: "A", Email: "a@x", When: old}})
	must(t, err)
	return dir, paths
}

// The index gives the hash of every unchanged file; a file edited behind a
// restored modification time (same size) is still seen as changed, since
// its change time no longer matches; too few paths do not read the index.
func TestCompareUsesIndexStatData(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("stat data is only compared on Linux")
	}
	dir, paths := indexRepo(t, gitobj.MinIndexPaths+6)
	r := open(t, dir)
	known := r.indexEntriesFor(paths, len(paths))
	if len(known) != len(paths) {
		t.Fatalf("index entries for %d of %d paths", len(known), len(paths))
	}
	for i, p := range paths {
		if got, want := known[p].Hash.String(), contentHash(fmt.Sprintf("content %03d\n", i)); got != want {
			t.Errorf("%s: index hash %s, want %s", p, got, want)
		}
	}
	if got := r.indexEntriesFor(paths[:gitobj.MinIndexPaths-1], gitobj.MinIndexPaths-1); got != nil {
		t.Errorf("%d paths read the index: %d entries", gitobj.MinIndexPaths-1, len(got))
	}

	// A same-size edit with the old modification time put back.
	fi, err := os.Stat(filepath.Join(dir, paths[3]))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, paths[3]), []byte("CONTENT 003\n"), 0o644))
	must(t, os.Chtimes(filepath.Join(dir, paths[3]), fi.ModTime(), fi.ModTime()))

	head, err := r.Head()
	must(t, err)
	got, err := r.Compare(head, paths)
	must(t, err)
	for i, st := range got {
		edited := i == 3
		if st.Changed != edited || st.Uncommited != edited || !st.OnDisk {
			t.Errorf("%s: %+v", st.Path, st)
		}
	}
	if want := contentHash("CONTENT 003\n"); got[3].DiskHash != want {
		t.Errorf("edited file hashes as %s, want %s", got[3].DiskHash, want)
	}
}

// A file whose stat data matches its entry takes the entry's hash without
// being read; one whose stat data differs is hashed.
func TestDiskHashKnown(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("stat data is only compared on Linux")
	}
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a"), []byte("a\n"), 0o644))
	fi, err := os.Lstat(filepath.Join(dir, "a"))
	must(t, err)
	st, ok := gitobj.StatOf(fi)
	if !ok {
		t.Fatal("no stat data")
	}
	fake := plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")
	other := st
	other.Size++
	r := &Repo{root: dir}
	buf := make([]byte, 64)
	for _, tc := range []struct {
		name  string
		known map[string]gitobj.IndexEntry
		want  string
	}{
		{"matching stat data", map[string]gitobj.IndexEntry{"a": {Stat: st, Hash: fake}}, fake.String()},
		{"different stat data", map[string]gitobj.IndexEntry{"a": {Stat: other, Hash: fake}}, contentHash("a\n")},
		{"no entry", nil, contentHash("a\n")},
	} {
		h, onDisk, err := r.diskHashStat("a", &buf, tc.known, nil)
		if err != nil || !onDisk || h.String() != tc.want {
			t.Errorf("%s: %s, %v, %v; want %s", tc.name, h, onDisk, err, tc.want)
		}
	}
}
