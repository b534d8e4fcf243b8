package gitrepo

import (
	"os/exec"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage"
)

// forbidStorer fails the test when a look-up falls through the pack reader
// to go-git's storage, whose first packed look-up builds a reverse index of
// the whole pack (46 % of a run at 1,000,000 files).
type forbidStorer struct {
	storage.Storer
	t *testing.T
}

func (f forbidStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	f.t.Errorf("object %s (%s) read through go-git's storage", h, t)
	return f.Storer.EncodedObject(t, h)
}

// TestReadAtUsesThePackReader: reading a file as it was in a packed commit
// goes through the pack reader only.
func TestReadAtUsesThePackReader(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary")
	}
	h := newHistory(t)
	if out, err := exec.Command("git", "-C", h.dir, "repack", "-adq").CombinedOutput(); err != nil {
		t.Fatalf("git repack: %v\n%s", err, out)
	}
	r, err := Open(h.dir)
	must(t, err)
	defer r.Close()
	forbid := forbidStorer{r.repo.Storer, t}
	r.repo.Storer, r.packs.EncodedObjectStorer = forbid, forbid
	got, err := r.ReadAt(Commit{Hash: h.c2, Short: h.c2[:7]}, "src/app/main.go")
	must(t, err)
	if string(got) != "package main // v2\n" {
		t.Errorf("ReadAt = %q", got)
	}
}
