package gitobj

import (
	"fmt"
	"github.com/orchestrate-dev/orchestrate/internal/gitdelta"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// openStore opens the object store of the repository at dir as
// gitrepo.Open does: .git read through SafeFS, go-git's storage beneath.
func openStore(t testing.TB, dir string) *Store {
	t.Helper()
	d, err := FindDotGit(dir)
	must(t, err)
	var dot billy.Filesystem = osfs.New(d.GitDir)
	st := filesystem.NewStorageWithOptions(SafeFS{dot}, cache.NewObjectLRUDefault(), filesystem.Options{MaxOpenDescriptors: 16})
	s := NewStore(st, st.Filesystem())
	s.ObjDir = filepath.Join(d.GitDir, "objects")
	t.Cleanup(func() { _ = s.Close(); _ = st.Close() })
	return s
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// gitDir is a new repository (branch main) made by the git binary, and a
// function running git there as author A; the test is skipped without git.
func gitDir(t *testing.T) (string, func(args ...string)) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary")
	}
	dir := t.TempDir()
	g := func(args ...string) {
		runGit(t, dir, append([]string{"-c", "user.name=A", "-c", "user.email=a@x"}, args...)...)
	}
	g("init", "-q", "-b", "main")
	return dir, g
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(), "GIT_TERMINAL_PROMPT=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

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

// graphRepo is a repository with merges (one of them an octopus) and a
// commit-graph written by git; it returns its folder and every commit.
func graphRepo(t *testing.T) (string, []plumbing.Hash) {
	t.Helper()
	dir, g := gitDir(t)
	write := func(p, c string) {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644))
	}
	for i := 0; i < 6; i++ {
		write(fmt.Sprintf("src/a/f%d.go", i%3), fmt.Sprint("main ", i))
		g("add", "-A")
		g("commit", "-qm", fmt.Sprint("main ", i))
		if i == 2 {
			for _, b := range []string{"x", "y", "z"} {
				g("checkout", "-qb", b)
				write("src/"+b+"/g.go", b)
				g("add", "-A")
				g("commit", "-qm", b)
				g("checkout", "-q", "main")
			}
			g("merge", "-q", "--no-ff", "-m", "merge x", "x")
			g("merge", "-q", "--no-ff", "-m", "octopus", "y", "z")
		}
	}
	g("commit-graph", "write", "--reachable")
	out, err := exec.Command("git", "-C", dir, "rev-list", "--all").Output()
	must(t, err)
	var all []plumbing.Hash
	for _, l := range strings.Fields(string(out)) {
		all = append(all, plumbing.NewHash(l))
	}
	return dir, all
}

// applyDelta is gitdelta.Apply of a whole object.
func applyDelta(src, delta []byte, max uint64) ([]byte, error) {
	out, _, err := gitdelta.Apply(src, delta, max, 0, nil)
	return out, err
}
