package gitfixture

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

var t0 = time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)

func TestCommitHistory(t *testing.T) {
	dir := t.TempDir()
	if err := Init(dir); err != nil {
		t.Fatal(err)
	}
	must(t, WriteFile(dir, "a.txt", "one\n"))
	must(t, WriteFile(dir, "docs/b.md", "bee\n"))
	must(t, WriteFile(dir, "docs/deep/c.md", "sea\n"))
	c1, err := Commit(dir, "first\n\nbody", "Ann", "ann@example.com", t0)
	must(t, err)

	// Deterministic: the same content, author and time give the same hash.
	dir2 := t.TempDir()
	must(t, Init(dir2))
	must(t, WriteFile(dir2, "a.txt", "one\n"))
	must(t, WriteFile(dir2, "docs/b.md", "bee\n"))
	must(t, WriteFile(dir2, "docs/deep/c.md", "sea\n"))
	again, err := Commit(dir2, "first\n\nbody", "Ann", "ann@example.com", t0)
	must(t, err)
	if again != c1 {
		t.Fatalf("commit hash not deterministic: %s vs %s", c1, again)
	}

	// Only the named path is staged.
	must(t, WriteFile(dir, "a.txt", "two\n"))
	must(t, WriteFile(dir, "docs/b.md", "bee bee\n"))
	c2, err := Commit(dir, "second", "Bob", "bob@example.com", t0.Add(time.Hour), "a.txt")
	must(t, err)
	// A deletion and the leftover edit, staged by "everything".
	must(t, Remove(dir, "docs/deep/c.md"))
	c3, err := Commit(dir, "third", "Bob", "bob@example.com", t0.Add(2*time.Hour))
	must(t, err)

	repo, err := git.PlainOpen(dir)
	must(t, err)
	files := func(hash string) map[string]string {
		t.Helper()
		c, err := repo.CommitObject(plumbingHash(hash))
		must(t, err)
		tree, err := c.Tree()
		must(t, err)
		out := map[string]string{}
		must(t, tree.Files().ForEach(func(f *object.File) error {
			s, err := f.Contents()
			out[f.Name] = s
			return err
		}))
		return out
	}
	want := map[string]map[string]string{
		c1: {"a.txt": "one\n", "docs/b.md": "bee\n", "docs/deep/c.md": "sea\n"},
		c2: {"a.txt": "two\n", "docs/b.md": "bee\n", "docs/deep/c.md": "sea\n"},
		c3: {"a.txt": "two\n", "docs/b.md": "bee bee\n"},
	}
	for h, w := range want {
		got := files(h)
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("commit %s: files %v, want %v", h[:7], got, w)
		}
	}
	c, err := repo.CommitObject(plumbingHash(c3))
	must(t, err)
	if c.Author.Name != "Bob" || c.Committer.Name != "Bob" || !c.Committer.When.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("signature: %+v / %+v", c.Author, c.Committer)
	}
	if len(c.ParentHashes) != 1 || c.ParentHashes[0].String() != c2 {
		t.Errorf("parents of c3: %v", c.ParentHashes)
	}

	// The git binary, when present, agrees: a sound repository, a clean tree.
	if _, err := exec.LookPath("git"); err == nil {
		gitOut(t, dir, "fsck", "--strict")
		if st := gitOut(t, dir, "status", "--porcelain"); st != "" {
			t.Errorf("git status not clean:\n%s", st)
		}
		if log := gitOut(t, dir, "log", "--format=%H %an %cI %s"); !strings.HasPrefix(log, c3+" Bob 2024-03-01T11:00:00+00:00 third") {
			t.Errorf("git log:\n%s", log)
		}
	}
}

func TestMergeAndReset(t *testing.T) {
	dir := t.TempDir()
	must(t, Init(dir))
	must(t, WriteFile(dir, "f", "1"))
	c1, err := Commit(dir, "c1", "A", "a@x", t0)
	must(t, err)
	must(t, WriteFile(dir, "g", "side"))
	side, err := Commit(dir, "side", "A", "a@x", t0.Add(time.Minute))
	must(t, err)
	must(t, ResetBranch(dir, c1))
	m, err := Merge(dir, "merge", "A", "a@x", t0.Add(2*time.Minute), side)
	must(t, err)
	repo, err := git.PlainOpen(dir)
	must(t, err)
	c, err := repo.CommitObject(plumbingHash(m))
	must(t, err)
	if len(c.ParentHashes) != 2 || c.ParentHashes[0].String() != c1 || c.ParentHashes[1].String() != side {
		t.Errorf("merge parents %v, want [%s %s]", c.ParentHashes, c1, side)
	}
	if err := ResetBranch(dir, "abc"); err == nil {
		t.Error("ResetBranch accepted a short hash")
	}
}

// TestCommitManyFiles commits enough files to take the packfile path and
// checks the result with git fsck when the git binary is present.
func TestCommitManyFiles(t *testing.T) {
	dir := t.TempDir()
	must(t, Init(dir))
	writeMany(t, dir, 600)
	first, err := Commit(dir, "many", "A", "a@x", t0)
	must(t, err)
	must(t, WriteFile(dir, "d00/e00/f00000.txt", "changed\n"))
	second, err := Commit(dir, "one more", "A", "a@x", t0.Add(time.Minute), "d00/e00/f00000.txt")
	must(t, err)
	if first == second {
		t.Fatal("second commit has the first's hash")
	}
	if _, err := exec.LookPath("git"); err == nil {
		gitOut(t, dir, "fsck", "--strict")
		if st := gitOut(t, dir, "status", "--porcelain"); st != "" {
			t.Errorf("git status not clean:\n%s", st)
		}
		if n := strings.Count(gitOut(t, dir, "ls-files"), "\n"); n != 600 {
			t.Errorf("git ls-files: %d files, want 600", n)
		}
	}
}

func writeMany(tb testing.TB, dir string, n int) {
	tb.Helper()
	for i := 0; i < n; i++ {
		must(tb, WriteFile(dir, fmt.Sprintf("d%02d/e%02d/f%05d.txt", i%50, (i/50)%20, i), fmt.Sprintf("file %d\n", i)))
	}
}

// BenchmarkCommit10000 times one commit of 10,000 new files in 1,000
// folders (writing the files is not timed).
func BenchmarkCommit10000(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := b.TempDir()
		must(b, Init(dir))
		writeMany(b, dir, 10000)
		b.StartTimer()
		if _, err := Commit(dir, "many", "A", "a@x", t0); err != nil {
			b.Fatal(err)
		}
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func plumbingHash(s string) plumbing.Hash { return plumbing.NewHash(s) }
