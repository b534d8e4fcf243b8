package gitrepo

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// CompareWith, given the run's lstats and an index read once for more
// paths (or for others), answers as Compare does: for unchanged, edited and removed files.
func TestCompareWithMatchesCompare(t *testing.T) {
	t.Parallel()
	dir, paths := indexRepo(t, gitobj.MinIndexPaths+10)
	r := open(t, dir)
	head, err := r.Head()
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, paths[2]), []byte("edited\n"), 0o644))
	must(t, os.Remove(filepath.Join(dir, paths[5])))
	lstats := map[string]fs.FileInfo{}
	for _, p := range paths {
		if fi, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			lstats[p] = fi
		}
	}
	idx := r.IndexFor(paths, len(paths))
	if idx == nil {
		t.Fatal("IndexFor: nil for a small index")
	}
	if runtime.GOOS == "linux" && len(idx.entries) < len(paths)-2 {
		t.Errorf("IndexFor: %d entries for %d paths", len(idx.entries), len(paths))
	}
	if got := r.IndexFor(paths, gitobj.MinIndexPaths-1); got != nil {
		t.Errorf("IndexFor for %d expected paths read the index", gitobj.MinIndexPaths-1)
	}
	want, err := r.Compare(head, paths)
	must(t, err)
	lstat := func(p string) (fs.FileInfo, bool) { fi, ok := lstats[p]; return fi, ok }
	for _, tc := range []struct {
		name  string
		paths []string
		o     CompareOptions
	}{
		{"nothing known", paths, CompareOptions{}},
		{"lstats", paths, CompareOptions{Lstat: lstat}},
		{"index", paths, CompareOptions{Index: idx}},
		{"both, a few paths", paths[:8], CompareOptions{Lstat: lstat, Index: idx}},
		{"index for other paths", paths, CompareOptions{Index: r.IndexFor(paths[:gitobj.MinIndexPaths], gitobj.MinIndexPaths)}},
	} {
		got, err := r.CompareWith(head, tc.paths, tc.o)
		must(t, err)
		if !reflect.DeepEqual(got, want[:len(tc.paths)]) {
			t.Errorf("%s: %+v\nwant %+v", tc.name, got, want[:len(tc.paths)])
		}
	}
}

// An Index holds HEAD as it was when it was read, for every Compare of the
// command: a commit made since does not change what those Compares answer,
// while a Compare without it resolves HEAD again.
func TestIndexKeepsHead(t *testing.T) {
	t.Parallel()
	dir, paths := indexRepo(t, gitobj.MinIndexPaths+10)
	r := open(t, dir)
	base, err := r.Head()
	must(t, err)
	idx := r.IndexFor(paths, len(paths))
	if idx == nil || idx.head.hash.String() != base.Hash {
		t.Fatalf("IndexFor: HEAD %v, want %s", idx, base.Hash)
	}
	must(t, gitfixture.WriteFile(dir, paths[0], "edited\n"))
	if _, err := gitfixture.Commit(dir, "edit", "A", "a@x", time.Now()); err != nil {
		t.Fatal(err)
	}
	edited := plumbing.ComputeHash(plumbing.BlobObject, []byte("edited\n")).String()
	for _, tc := range []struct {
		name                  string
		o                     CompareOptions
		head                  string
		committed, uncommited bool
	}{
		{"HEAD of the index", CompareOptions{Index: idx}, contentHash("content 000\n"), false, true},
		{"HEAD now", CompareOptions{}, edited, true, false},
	} {
		got, err := r.CompareWith(base, paths[:1], tc.o)
		must(t, err)
		if st := got[0]; st.HeadHash != tc.head || st.Committed != tc.committed || st.Uncommited != tc.uncommited || st.DiskHash != edited {
			t.Errorf("%s: %+v", tc.name, st)
		}
	}
}

// When the index's cache-tree is HEAD's tree, Compare takes HEAD's blobs
// from the index (no HEAD tree read) and answers as it does from the trees:
// committed, edited, removed, added, symbolic link, absent and folder
// paths. A staged change (the cache-tree then no longer HEAD's) turns it off.
func TestIndexHeadsMatchTrees(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	g := func(args ...string) {
		runGit(t, dir, append([]string{"-c", "user.name=A", "-c", "user.email=a@x"}, args...)...)
	}
	g("init", "-q")
	var paths []string
	for i := 0; i < gitobj.MinIndexPaths+6; i++ {
		p := fmt.Sprintf("d%d/f%02d.txt", i%4, i)
		must(t, gitfixture.WriteFile(dir, p, fmt.Sprint("v1 ", i)))
		paths = append(paths, p)
	}
	must(t, os.Symlink("f00.txt", filepath.Join(dir, "d0", "link")))
	g("add", "-A")
	g("commit", "-qm", "one")
	r := open(t, dir)
	base, err := r.Head()
	must(t, err)
	must(t, gitfixture.WriteFile(dir, paths[1], "v2"))    // committed
	must(t, os.Remove(filepath.Join(dir, paths[2])))      // removal committed
	must(t, gitfixture.WriteFile(dir, "d9/new.txt", "n")) // added
	must(t, os.Remove(filepath.Join(dir, "d0", "link")))
	must(t, os.Symlink("f04.txt", filepath.Join(dir, "d0", "link"))) // retargeted
	g("add", "-A")
	g("commit", "-qm", "two")
	must(t, gitfixture.WriteFile(dir, paths[3], "edited")) // not committed
	asked := append([]string{"d9/new.txt", "d0/link", "d0", "nowhere.txt"}, paths...)
	want, err := r.CompareWith(base, asked, CompareOptions{})
	must(t, err)
	idx := r.IndexFor(asked, len(asked))
	if idx == nil || idx.heads == nil {
		t.Fatalf("IndexFor after a commit: index read %v, HEAD's blobs none", idx != nil)
	}
	got, err := r.CompareWith(base, asked, CompareOptions{Index: idx})
	must(t, err)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("with the index's HEAD:\n%+v\nwant\n%+v", got, want)
	}
	g("add", paths[3])
	if idx := r.IndexFor(asked, len(asked)); idx == nil || idx.heads != nil {
		t.Errorf("IndexFor with a staged change: index read %v, HEAD's blobs taken from it %v", idx != nil, idx != nil && idx.heads != nil)
	}
}
