package gitchanged

import (
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// TestDiffPlainEqualsMaps: diffPlain (binary search over plain
// trees) gives the paths, the order, the cut (max, the tree bound) and the
// errors of the map comparison, on random tree pairs: names that sort
// around '/' and '.', files turned into folders, symlinks, submodules,
// twins (a file and a folder of one name), unsorted trees, unknown and
// unusual modes, and missing subtrees.
func TestDiffPlainEqualsMaps(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= 400; seed++ {
		rng := rand.New(rand.NewSource(seed))
		st := memory.NewStorage()
		g := treeGen{rng: rng, st: st, t: t}
		a := g.tree(3)
		b := g.mutate(a, 3)
		src := gitobj.NewTreeIndexCache(st, gitobj.TreeIndexBudget)
		var plain Plain
		for _, max := range []int{1, 3, 1000} {
			for _, pair := range [][2]plumbing.Hash{{a, b}, {b, a}, {plumbing.ZeroHash, b}, {a, plumbing.ZeroHash}} {
				ref := pathsDiff{src: src, max: max, mapsOnly: true}
				refErr := ref.diff(pair[0], pair[1], "")
				got := pathsDiff{src: src, plain: &plain, max: max}
				gotErr := got.diff(pair[0], pair[1], "")
				if (refErr == nil) != (gotErr == nil) || !reflect.DeepEqual(got.out, ref.out) || got.more != ref.more || got.trees != ref.trees {
					t.Fatalf("seed %d max %d: plain %v more %v trees %d err %v; maps %v more %v trees %d err %v",
						seed, max, got.out, got.more, got.trees, gotErr, ref.out, ref.more, ref.trees, refErr)
				}
				out, more, err := Diff(src, nil, pair[0], pair[1], max)
				if (err == nil) != (gotErr == nil) || !reflect.DeepEqual(out, got.out) || more != got.more {
					t.Fatalf("seed %d max %d: Diff %v more %v err %v; walk %v more %v err %v", seed, max, out, more, err, got.out, got.more, gotErr)
				}
			}
		}
	}
}

// treeGen writes random trees into a memory storage.
type treeGen struct {
	rng *rand.Rand
	st  *memory.Storage
	t   *testing.T
}

type genEntry struct {
	mode string
	name string
	hash plumbing.Hash
}

var genNames = []string{"a", "a.b", "a-b", "a0", "ab", "b", "b.txt", "c", "src", "src.go", "z", "é"}

func (g *treeGen) blob() plumbing.Hash {
	return plumbing.NewHash(fmt.Sprintf("%040x", g.rng.Intn(6)+1))
}

// tree writes a random tree of at most depth levels and returns its hash.
func (g *treeGen) tree(depth int) plumbing.Hash {
	var es []genEntry
	for _, n := range genNames {
		if g.rng.Intn(3) == 0 {
			continue
		}
		es = append(es, g.entry(n, depth))
	}
	return g.write(es)
}

func (g *treeGen) entry(name string, depth int) genEntry {
	switch k := g.rng.Intn(20); {
	case depth > 0 && k < 6:
		return genEntry{"40000", name, g.tree(depth - 1)}
	case k == 6:
		return genEntry{"120000", name, g.blob()}
	case k == 7:
		return genEntry{"160000", name, g.blob()}
	case k == 8:
		return genEntry{"100755", name, g.blob()}
	case k == 9 && g.rng.Intn(4) == 0:
		return genEntry{"12x4", name, g.blob()} // not a mode
	case k == 10 && g.rng.Intn(4) == 0:
		return genEntry{"040000", name, g.tree(0)} // a folder's mode, written long
	case k == 11 && g.rng.Intn(4) == 0:
		return genEntry{"40000", name, plumbing.NewHash("00000000000000000000000000000000000000ff")} // missing
	}
	return genEntry{"100644", name, g.blob()}
}

// mutate returns a tree like h's with some entries changed, added, removed
// or twinned, sometimes written out of order.
func (g *treeGen) mutate(h plumbing.Hash, depth int) plumbing.Hash {
	es := g.read(h)
	out := es[:0:0]
	for _, e := range es {
		switch g.rng.Intn(8) {
		case 0:
			continue
		case 1:
			e = g.entry(e.name, depth)
		case 2:
			if e.mode == "40000" && depth > 0 {
				e.hash = g.mutate(e.hash, depth-1)
			}
		case 3:
			if g.rng.Intn(3) == 0 { // a twin: the name as a file and as a folder
				twin := genEntry{"100644", e.name, g.blob()}
				if e.mode == "100644" {
					twin = genEntry{"40000", e.name, g.tree(0)}
				}
				out = append(out, twin)
			}
		}
		out = append(out, e)
	}
	if g.rng.Intn(3) == 0 {
		out = append(out, g.entry(genNames[g.rng.Intn(len(genNames))]+"x", depth))
	}
	return g.write(out)
}

func (g *treeGen) write(es []genEntry) plumbing.Hash {
	sort.SliceStable(es, func(i, j int) bool {
		return gitobj.CompareNames([]byte(es[i].name), gitobj.IsDirMode([]byte(es[i].mode)),
			[]byte(es[j].name), gitobj.IsDirMode([]byte(es[j].mode))) < 0
	})
	if len(es) > 1 && g.rng.Intn(10) == 0 {
		i := g.rng.Intn(len(es) - 1)
		es[i], es[i+1] = es[i+1], es[i] // out of order
	}
	var raw []byte
	for _, e := range es {
		raw = append(raw, e.mode+" "+e.name+"\x00"...)
		raw = append(raw, e.hash[:]...)
	}
	obj := g.st.NewEncodedObject()
	obj.SetType(plumbing.TreeObject)
	w, err := obj.Writer()
	must(g.t, err)
	_, err = w.Write(raw)
	must(g.t, err)
	must(g.t, w.Close())
	h, err := g.st.SetEncodedObject(obj)
	must(g.t, err)
	return h
}

func (g *treeGen) read(h plumbing.Hash) []genEntry {
	obj, err := g.st.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil // a missing tree: mutated into an empty one
	}
	raw, err := gitobj.ObjectBytes(obj)
	must(g.t, err)
	idx := gitobj.NewTreeIndex(raw)
	var es []genEntry
	for i := range idx.Offs {
		mode, name, at := idx.At(i)
		var hh plumbing.Hash
		copy(hh[:], raw[at:at+20])
		es = append(es, genEntry{string(mode), string(name), hh})
	}
	return es
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
