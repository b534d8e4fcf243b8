package gitrepo

import (
	"errors"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// failingStorer reads nothing: a walk that still answers reads no object.
type failingStorer struct{ storer.EncodedObjectStorer }

func (failingStorer) EncodedObject(plumbing.ObjectType, plumbing.Hash) (plumbing.EncodedObject, error) {
	return nil, errors.New("read after the cache was filled")
}

// TestLinksRemembered checks that a walk reads each commit's links once per
// Repo: once read, readLinks and commitInfo answer without the object store
// and without allocating.
func TestLinksRemembered(t *testing.T) {
	h := newHistory(t)
	r := open(t, h.dir)
	if _, err := r.CommitsTouching(Commit{Hash: h.c1}, []string{"src/app/main.go"}, 0); err != nil {
		t.Fatal(err)
	}
	packs, objects := r.packs, r.objects
	r.packs, r.objects = nil, failingStorer{}
	defer func() { r.packs, r.objects = packs, objects }()
	for _, c := range []string{h.c4, h.c3, h.c2, h.c1} {
		l, err := r.readLinks(plumbing.NewHash(c))
		if err != nil || l.hash.String() != c {
			t.Fatalf("readLinks(%s) = %v, %v", c[:7], l.hash, err)
		}
	}
	for _, c := range []string{h.c4, h.c2} { // the commits that changed main.go
		if info, err := r.commitInfo(plumbing.NewHash(c)); err != nil || info.Hash != c {
			t.Fatalf("commitInfo(%s) = %v, %v", c[:7], info.Hash, err)
		}
	}
	c3 := plumbing.NewHash(h.c3)
	if n := testing.AllocsPerRun(100, func() { _, _ = r.readLinks(c3) }); n != 0 {
		t.Errorf("readLinks of a remembered commit: %v allocations", n)
	}
	if len(r.linkCache) > maxCachedLinks || len(r.infoCache) > maxCachedInfos {
		t.Errorf("caches over their bounds: %d links, %d infos", len(r.linkCache), len(r.infoCache))
	}
}
