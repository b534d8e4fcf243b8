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
	if runtime.GOOS != "linux" {
		t.Skip("stat data is only compared on Linux")
	}
	dir, paths := indexRepo(t, minIndexPaths+6)
	r := open(t, dir)
	known := r.indexEntries(paths)
	if len(known) != len(paths) {
		t.Fatalf("index entries for %d of %d paths", len(known), len(paths))
	}
	for i, p := range paths {
		if got, want := known[p].hash.String(), contentHash(fmt.Sprintf("content %03d\n", i)); got != want {
			t.Errorf("%s: index hash %s, want %s", p, got, want)
		}
	}
	if got := r.indexEntries(paths[:minIndexPaths-1]); got != nil {
		t.Errorf("%d paths read the index: %d entries", minIndexPaths-1, len(got))
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
	if runtime.GOOS != "linux" {
		t.Skip("stat data is only compared on Linux")
	}
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a"), []byte("a\n"), 0o644))
	fi, err := os.Lstat(filepath.Join(dir, "a"))
	must(t, err)
	st, ok := statOf(fi)
	if !ok {
		t.Fatal("no stat data")
	}
	fake := plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")
	other := st
	other.size++
	r := &Repo{root: dir}
	buf := make([]byte, 64)
	for _, tc := range []struct {
		name  string
		known map[string]indexEntry
		want  string
	}{
		{"matching stat data", map[string]indexEntry{"a": {stat: st, hash: fake}}, fake.String()},
		{"different stat data", map[string]indexEntry{"a": {stat: other, hash: fake}}, contentHash("a\n")},
		{"no entry", nil, contentHash("a\n")},
	} {
		h, onDisk, err := r.diskHashKnown("a", buf, tc.known)
		if err != nil || !onDisk || h.String() != tc.want {
			t.Errorf("%s: %s, %v, %v; want %s", tc.name, h, onDisk, err, tc.want)
		}
	}
}

// A malformed index never panics: every truncation of a real one, a wrong
// signature or an unsupported version gives no entries or only whole ones.
func TestParseIndexMalformed(t *testing.T) {
	dir, paths := indexRepo(t, 3)
	b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	must(t, err)
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	far := ^uint32(0)
	if got := parseIndex(b, want, far, 0); len(got) != len(paths) {
		t.Fatalf("whole index: %d entries, want %d", len(got), len(paths))
	}
	if got := parseIndex(b, want, 0, 0); len(got) != 0 {
		t.Errorf("every entry racily clean, yet %d entries", len(got))
	}
	for n := 0; n < len(b); n++ {
		for _, e := range parseIndex(b[:n], want, far, 0) {
			if e.hash.IsZero() {
				t.Errorf("truncated at %d: a zero hash", n)
			}
		}
	}
	for _, tc := range []struct {
		name string
		edit func([]byte)
	}{
		{"signature", func(c []byte) { c[0] = 'X' }},
		{"version 4", func(c []byte) { c[7] = 4 }},
		{"huge count", func(c []byte) { c[8], c[9] = 0x7f, 0xff }},
		{"no NUL after the name", func(c []byte) {
			for i := 12; i < len(c); i++ {
				c[i] = 'a'
			}
		}},
	} {
		c := append([]byte(nil), b...)
		tc.edit(c)
		if got := parseIndex(c, want, far, 0); got != nil {
			t.Errorf("%s: %d entries, want none", tc.name, len(got))
		}
	}
}
