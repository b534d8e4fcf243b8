package gitrepo

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// folderAsCommittedRef is folderAsCommitted as it was written with go-git's
// tree walker and filepath.WalkDir: the reference the tree-cache walk must
// agree with on every folder.
func (r *Repo) folderAsCommittedRef(p string, h plumbing.Hash) bool {
	obj, err := r.objects.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return false
	}
	t, err := object.DecodeTree(r.objects, obj)
	if err != nil {
		return false
	}
	want := map[string]plumbing.Hash{}
	walker := object.NewTreeWalker(t, true, nil)
	defer walker.Close()
	for {
		name, e, err := walker.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return false
			}
			break
		}
		switch {
		case e.Mode == filemode.Dir:
			continue
		case !gitobj.IsBlob(e.Mode):
			return false
		}
		want[name] = e.Hash
		if len(want) > maxFolderFiles {
			return false
		}
	}
	base := filepath.Join(r.root, filepath.FromSlash(p))
	fi, err := os.Lstat(base)
	if err != nil || !fi.IsDir() {
		return false
	}
	seen := 0
	buf := make([]byte, 32<<10)
	err = filepath.WalkDir(base, func(abs string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(base, abs)
		if err != nil {
			return err
		}
		wh, found := want[filepath.ToSlash(rel)]
		if !found {
			return errors.New("untracked")
		}
		seen++
		dh, onDisk, err := r.diskHashStat(p+"/"+filepath.ToSlash(rel), &buf, nil, nil)
		if err != nil || !onDisk || dh != wh {
			return errors.New("differs")
		}
		return nil
	})
	return err == nil && seen == len(want)
}

// TestFolderAsCommitted: a folder is as committed exactly when the files
// under it on disk are HEAD's, with HEAD's content — an edit, a missing or
// an untracked file, a link retargeted or a folder turned into a link, a
// submodule inside, or more than maxFolderFiles files each make it not; an
// empty folder git cannot hold does not. Each answer is also the one the
// go-git tree walker and filepath.WalkDir gave.
func TestFolderAsCommitted(t *testing.T) {
	t.Parallel()
	d := t.TempDir()
	must(t, gitfixture.Init(d))
	folders := []string{"clean", "edited", "untracked", "missing", "emptydir", "link", "relinked", "linkdir", "subtolink", "nested", "max", "over"}
	for _, f := range folders {
		must(t, gitfixture.WriteFile(d, "f/"+f+"/a.txt", "a of "+f+"\n"))
		must(t, gitfixture.WriteFile(d, "f/"+f+"/sub/b.txt", "b\n"))
	}
	must(t, gitfixture.WriteFile(d, "f/nested/sub/deeper/still/c.txt", "c\n"))
	for i := 2; i < maxFolderFiles; i++ {
		must(t, gitfixture.WriteFile(d, fmt.Sprintf("f/max/many/%04d", i), "x\n"))
	}
	for i := 2; i <= maxFolderFiles; i++ {
		must(t, gitfixture.WriteFile(d, fmt.Sprintf("f/over/many/%04d", i), "x\n"))
	}
	for _, f := range []string{"link", "relinked"} {
		must(t, os.Symlink("a.txt", filepath.Join(d, "f", f, "l")))
	}
	must(t, gitfixture.WriteFile(d, "f/file.txt", "not a folder\n"))
	_, err := gitfixture.Commit(d, "all", "Ann", "ann@example.com", t0)
	must(t, err)

	must(t, gitfixture.WriteFile(d, "f/edited/sub/b.txt", "b, edited\n"))
	must(t, gitfixture.WriteFile(d, "f/untracked/sub/new.txt", "new\n"))
	must(t, os.Remove(filepath.Join(d, "f/missing/sub/b.txt")))
	must(t, os.MkdirAll(filepath.Join(d, "f/emptydir/sub/empty/er"), 0o755))
	must(t, os.Remove(filepath.Join(d, "f/relinked/l")))
	must(t, os.Symlink("sub/b.txt", filepath.Join(d, "f/relinked/l")))
	// a folder, and a subfolder, replaced by links to identical copies
	must(t, os.Rename(filepath.Join(d, "f/linkdir"), filepath.Join(d, "linkdir-copy")))
	must(t, os.Symlink(filepath.Join(d, "linkdir-copy"), filepath.Join(d, "f/linkdir")))
	must(t, os.Rename(filepath.Join(d, "f/subtolink/sub"), filepath.Join(d, "sub-copy")))
	must(t, os.Symlink(filepath.Join(d, "sub-copy"), filepath.Join(d, "f/subtolink/sub")))

	want := map[string]bool{"clean": true, "emptydir": true, "link": true, "nested": true, "max": true}
	r := open(t, d)
	head, err := r.headObject()
	must(t, err)
	tree := r.pathTree(head.TreeHash)
	for _, f := range folders {
		p := "f/" + f
		e, err := tree.entry(p)
		if err != nil || e == nil {
			t.Fatalf("%s: %v %v", p, e, err)
		}
		buf := make([]byte, 32<<10)
		got := r.folderAsCommitted(p, e.Hash, &buf)
		if got != want[f] {
			t.Errorf("%s: as committed %v, want %v", p, got, want[f])
		}
		if ref := r.folderAsCommittedRef(p, e.Hash); ref != got {
			t.Errorf("%s: %v, the go-git walk said %v", p, got, ref)
		}
	}
	// the same answers through LastCommitted, and a file is no folder
	dated := r.LastCommitted([]string{"f/clean", "f/edited", "f/max", "f/over", "f/file.txt", "f/linkdir"}, 0)
	if len(dated) != 3 || dated["f/clean"].Hash == "" || dated["f/max"].Hash == "" || dated["f/file.txt"].Hash == "" {
		t.Errorf("LastCommitted = %v", dated)
	}

	t.Run("submodule", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git binary")
		}
		s := t.TempDir()
		runGit(t, s, "init", "--quiet")
		must(t, gitfixture.WriteFile(s, "f/a.txt", "a\n"))
		runGit(t, s, "add", "f/a.txt")
		runGit(t, s, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("1", 40)+",f/mod")
		runGit(t, s, "-c", "user.name=A", "-c", "user.email=a@x", "commit", "--quiet", "-m", "sub")
		must(t, os.MkdirAll(filepath.Join(s, "f/mod"), 0o755))
		r := open(t, s)
		head, err := r.headObject()
		must(t, err)
		e, err := r.pathTree(head.TreeHash).entry("f")
		if err != nil || e == nil {
			t.Fatalf("f: %v %v", e, err)
		}
		if got, ref := r.folderAsCommitted("f", e.Hash, new([]byte)), r.folderAsCommittedRef("f", e.Hash); got || ref {
			t.Errorf("a folder holding a submodule: as committed %v (go-git walk %v), want false", got, ref)
		}
	})
}
