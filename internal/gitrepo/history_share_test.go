package gitrepo

import (
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
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

// TestSharedWalksEqualPlain checks that walks sharing the Repo's tree pair
// differences (every walk after the first) answer as a walk on a fresh Repo
// does, over random histories and random sequences of (base, paths, limit).
func TestSharedWalksEqualPlain(t *testing.T) {
	t.Parallel()
	files := []string{"a/x", "a/y", "a/b/z", "a/b/w", "c", "d/e/f", "d/g"}
	asked := append([]string{"a", "a/b", "d/e", "never", "a/b/none"}, files...)
	for seed := int64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewSource(seed))
			dir := t.TempDir()
			must(t, gitfixture.Init(dir))
			for _, f := range files {
				must(t, gitfixture.WriteFile(dir, f, "0"))
			}
			first, err := gitfixture.Commit(dir, "import", "A", "a@x", t0)
			must(t, err)
			chain := []string{first}
			present := map[string]bool{}
			for _, f := range files {
				present[f] = true
			}
			for i := 1; i <= 24; i++ {
				for n := 1 + rng.Intn(3); n > 0; n-- {
					f := files[rng.Intn(len(files))]
					if present[f] && rng.Intn(4) == 0 {
						must(t, gitfixture.Remove(dir, f))
						present[f] = false
						continue
					}
					// Few contents: paths often come back to an earlier one.
					must(t, gitfixture.WriteFile(dir, f, fmt.Sprint(rng.Intn(3))))
					present[f] = true
				}
				h, err := gitfixture.Commit(dir, fmt.Sprint("step ", i), "A", "a@x", t0.Add(time.Duration(i)*time.Minute))
				if err != nil {
					continue // nothing changed
				}
				chain = append(chain, h)
			}
			if seed != 1 {
				must(t, repack(dir)) // read from a pack, as the shared histories (fixtures_test.go)
			}
			shared := open(t, dir)
			for q := 0; q < 40; q++ {
				base := chain[rng.Intn(len(chain))]
				switch rng.Intn(8) {
				case 0:
					base = strings.Repeat("0", 40) // not a commit
				case 1:
					base = "" // no base
				}
				var paths []string
				for _, p := range asked {
					if rng.Intn(3) == 0 {
						paths = append(paths, p)
					}
				}
				limit := rng.Intn(4)
				got, err := shared.CommitsTouching(Commit{Hash: base}, paths, limit)
				must(t, err)
				want, err := open(t, dir).CommitsTouching(Commit{Hash: base}, paths, limit)
				must(t, err)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("query %d (base %.7s, %v, limit %d):\nshared %v\nplain  %v", q, base, paths, limit, hashMap(got), hashMap(want))
				}
			}
			if shared.walks < 2 || len(shared.pairs.m) == 0 {
				t.Errorf("the walks shared nothing: %d walks, %d pairs", shared.walks, len(shared.pairs.m))
			}
		})
	}
}
