package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// cachedOpener opens repositories of dir that use cache c, and saves what
// their walks derived when told to.
type cachedOpener struct {
	dir   string
	c     *diskcache.Cache
	repos []*Repo
	// walks keeps the walk table on (off, the walks of a warm run are
	// walked, through the history table, instead of answered by it)
	walks bool
}

func (o *cachedOpener) open(t *testing.T) *Repo {
	r := open(t, o.dir)
	r.UseCache(o.c)
	if !o.walks {
		r.wmemo = nil
	}
	o.repos = append(o.repos, r)
	return r
}

// save writes the repositories' caches and returns the look-up counts.
func (o *cachedOpener) save(t *testing.T) (linkHits, linkMisses, pairHits, pairMisses int) {
	t.Helper()
	for _, r := range o.repos {
		must(t, r.SaveCache())
		if h := r.histc; h != nil {
			linkHits += h.linkHits
			linkMisses += h.linkMisses
			pairHits += h.pairHits
			pairMisses += h.pairMisses
		}
	}
	o.repos = nil
	return
}

// TestWalksMatchReferenceCached runs the reference comparison twice through
// one cache folder: cold (the tables are written), then warm (every commit's
// links and every tree pair come from the tables), with the same answers.
func TestWalksMatchReferenceCached(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= 2; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			h := sharedRefHistory(t, seed)
			o := &cachedOpener{dir: h.dir, c: diskcache.New(t.TempDir())}
			h.check(t, o.open)
			if _, _, _, pairMisses := o.save(t); pairMisses != 0 {
				t.Errorf("cold run: %d description misses", pairMisses)
			}
			names, _ := filepath.Glob(filepath.Join(o.c.Path("x"), "..", "git-*"))
			if len(names) != 2 { // git-commits-, and git-paths- (entriesAt)
				t.Fatalf("tables after the cold run: %v", names)
			}
			h.check(t, o.open)
			linkHits, linkMisses, pairHits, pairMisses := o.save(t)
			if linkMisses != 0 || pairMisses != 0 || linkHits == 0 || pairHits == 0 {
				t.Errorf("warm run: links %d hits %d misses, pairs %d hits %d misses", linkHits, linkMisses, pairHits, pairMisses)
			}
			// A warm run adds nothing: the tables are not rewritten.
			before := statAll(t, names)
			h.check(t, o.open)
			o.save(t)
			if after := statAll(t, names); !reflect.DeepEqual(before, after) {
				t.Errorf("a warm run rewrote the tables")
			}
		})
	}
}

func statAll(t *testing.T, names []string) []string {
	var out []string
	for _, n := range names {
		fi, err := os.Stat(n)
		must(t, err)
		out = append(out, fmt.Sprint(n, fi.Size(), fi.ModTime().UnixNano()))
	}
	return out
}

// TestHistCachePerRepository checks that two repositories never share
// tables (a repository that lies about an object cannot plant an entry
// another one reads).
func TestHistCachePerRepository(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		must(t, initRepoWithFile(d))
	}
	c := diskcache.New(t.TempDir())
	ra, rb := open(t, a), open(t, b)
	ra.UseCache(c)
	rb.UseCache(c)
	ha, hb := ra.hist(), rb.hist()
	if ha == nil || hb == nil || ha.t.Name() == hb.t.Name() {
		t.Fatalf("tables: %+v %+v", ha, hb)
	}
	if again := open(t, a); func() string { again.UseCache(c); return again.hist().t.Name() }() != ha.t.Name() {
		t.Errorf("the same repository opened again names other tables")
	}
	rc := open(t, a)
	if rc.hist() != nil {
		t.Errorf("a Repo without a cache has history tables")
	}
}

func initRepoWithFile(dir string) error {
	if err := gitfixture.Init(dir); err != nil {
		return err
	}
	if err := gitfixture.WriteFile(dir, "f", "x"); err != nil {
		return err
	}
	_, err := gitfixture.Commit(dir, "one", "A", "a@x", t0)
	return err
}

// TestHistCacheBadValuesMiss plants, under the commits a walk looks up,
// values this reader never writes (wrong lengths, zero hashes,
// descriptions that do not decode, at the top or nested) and a foreign
// table: each is a miss, and the walks answer as without a cache.
func TestHistCacheBadValuesMiss(t *testing.T) {
	t.Parallel()
	h := sharedRefHistory(t, 2)
	c := diskcache.New(t.TempDir())
	r := open(t, h.dir)
	r.UseCache(c)
	hc := r.hist()

	badLinks := [][]byte{nil, make([]byte, 19), make([]byte, 21), make([]byte, 20), make([]byte, 40),
		append(bytes.Repeat([]byte{1}, 20), make([]byte, 20)...), make([]byte, 39)}
	// values that do not decode as one level (internal/gitcache's
	// TestDecodePairRejects has these and more)
	bad := plantedPairValues
	b := diskcache.NewBuilder(20)
	for i, ch := range h.chain {
		hash := plumbing.NewHash(ch)
		l, err := r.readLinksUncached(hash)
		must(t, err)
		if i%2 == 0 || l.parent.IsZero() {
			b.Add(hash[:], badLinks[i%len(badLinks)])
			continue
		}
		p, err := r.readLinksUncached(l.parent)
		must(t, err)
		v := append(append([]byte{}, l.tree[:]...), l.parent[:]...)
		if i%4 == 1 {
			v = append(v, bad[(i/4)%len(bad)]...)
		} else {
			// a true top level whose nested descriptions do not decode
			ta, err := r.trees.Get(l.tree)
			must(t, err)
			tb, err := r.trees.Get(p.tree)
			must(t, err)
			node := &gitcache.Pair{D: gitobj.DiffForCache(ta, tb)}
			node.SubRaw = make([][]byte, len(node.D.Names))
			for x := range node.SubRaw {
				node.SubRaw[x] = bad[(i+x)%len(bad)]
				if node.SubRaw[x] == nil {
					node.SubRaw[x] = []byte{0x07}
				}
			}
			v = gitcache.AppendPair(v, node)
		}
		b.Add(hash[:], v)
	}
	must(t, c.Write(hc.t.Name(), nil, b))

	o := &cachedOpener{dir: h.dir, c: c}
	h.check(t, o.open)
	_, linkMisses, _, pairMisses := o.save(t)
	if linkMisses == 0 || pairMisses == 0 {
		t.Errorf("planted values: %d link misses, %d description misses", linkMisses, pairMisses)
	}
	// What the walks learned replaces the bad values. Two Repos open at
	// once each write what they learned over the value both read (the last
	// one wins), so a fix can take another run.
	for run := 1; ; run++ {
		h.check(t, o.open)
		_, linkMisses, _, pairMisses := o.save(t)
		if linkMisses == 0 && pairMisses == 0 {
			break
		}
		if run == 3 {
			t.Fatalf("after %d runs: %d link misses, %d description misses", run, linkMisses, pairMisses)
		}
	}

	// A foreign table (another key size) under the table's name reads as empty.
	must(t, c.Write(hc.t.Name(), nil, func() *diskcache.Builder {
		b := diskcache.NewBuilder(40)
		b.Add(make([]byte, 40), []byte("x"))
		return b
	}()))
	h.check(t, o.open)
	o.save(t)
}

// plantedPairValues are descriptions that do not decode as one level.
var plantedPairValues = func() [][]byte {
	one := gitcache.EncodePair(&gitcache.Pair{D: &gitobj.PairDiff{Names: []string{"d0"},
		A: []gitobj.RawEntry{{Mode: filemode.Dir, Hash: hashOf(1)}}, B: []gitobj.RawEntry{{}}}})
	return [][]byte{
		nil,
		{0x05},                         // five names, none there
		{0x80},                         // a cut count
		{0x01, 0x00},                   // an empty name
		{0x01, 0x05, 'a', 'b'},         // a name cut short
		{0x01, 0x01, '/', 0x00, 0x00},  // a name with '/'
		{0x01, 0x01, 0x00, 0x00, 0x00}, // a name with NUL
		{0x01, 0x01, 'a', 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00, 0x00}, // a mode past 32 bits
		one[:len(one)-1], // a hash cut short
		{0x01, 0x01, 'a', 0x00, 0x00, 0x01, 0x00},                         // a nested description of files
		{0x01, 0x01, 'a', 0x80, 0x80, 0x01, 0x80, 0x80, 0x01, 0x05, 0x00}, // a nested description past the end
		append(one, 0), // trailing bytes
		one[:10],       // cut
	}
}()

// TestDiffForCacheMatchesDiffIndexes compares the cache's merge with
// diffIndexes on random pairs of trees, files and folders of one name
// included.
func TestDiffForCacheMatchesDiffIndexes(t *testing.T) {
	t.Parallel()
	names := []string{"a", "a-b", "a.c", "a0", "b", "foo", "foo.c", "foo-bar", "foo0", "z"}
	modes := []string{"100644", "100755", "40000", "120000", "160000"}
	rng := rand.New(rand.NewSource(1))
	randTree := func() []byte {
		type ent struct{ mode, name string }
		var es []ent
		seen := map[string]bool{}
		for _, n := range names {
			for k := rng.Intn(3); k > 0; k-- {
				m := modes[rng.Intn(len(modes))]
				key := n + fmt.Sprint(m == "40000")
				if seen[key] {
					continue
				}
				seen[key] = true
				es = append(es, ent{m, n})
			}
		}
		sort.Slice(es, func(i, j int) bool {
			return gitobj.CompareNames([]byte(es[i].name), es[i].mode == "40000", []byte(es[j].name), es[j].mode == "40000") < 0
		})
		var raw []byte
		for _, e := range es {
			raw = append(raw, e.mode+" "+e.name+"\x00"...)
			h := hashOf(byte(1 + rng.Intn(2)))
			raw = append(raw, h[:]...)
		}
		return raw
	}
	twins, derived := 0, 0
	trie := gitobj.NewTrie([]string{"a", "foo", "z/x"})
	for i := 0; i < 3000; i++ {
		ra, rb := randTree(), randTree()
		switch rng.Intn(3) {
		case 0:
			rb = ra
		case 1: // b is a with an entry's hash changed: the common case
			rb = append([]byte{}, ra...)
			if len(rb) > 0 {
				rb[len(rb)-1-rng.Intn(min(len(rb), 20))] ^= 1
			}
		}
		ta, tb := gitobj.NewTreeIndex(ra), gitobj.NewTreeIndex(rb)
		want, got := gitobj.DiffIndexes(ta, tb), gitobj.DiffForCache(ta, tb)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trees\n%q\n%q\ndiffForCache %+v\ndiffIndexes  %+v", ra, rb, got, want)
		}
		// derive's differences, when it derives b from a
		near := gitobj.ScanFull(ra, trie.Root)
		var moved []int32
		if tr := gitobj.Derive(near, rb, trie.Root, &moved); tr != nil {
			derived++
			if g := gitobj.DiffFromDerive(near, tr); !reflect.DeepEqual(pairSet(g), pairSet(want)) {
				t.Fatalf("trees\n%q\n%q\ndiffFromDerive %+v\ndiffIndexes    %+v", ra, rb, g, want)
			}
		}
		if strings.Contains(string(ra), "40000 a\x00") && strings.Contains(string(ra), "100644 a\x00") {
			twins++
		}
	}
	if twins == 0 || derived < 100 {
		t.Errorf("%d trees with a file and a folder of one name, %d derived", twins, derived)
	}
	if gitobj.DiffForCache(gitobj.NewTreeIndex(rawTree("100644", "b", "100644", "a")), gitobj.NewTreeIndex(nil)) != nil {
		t.Errorf("a tree out of order gave differences")
	}
}

// pairSet is d as a set of names with their entries.
func pairSet(d *gitobj.PairDiff) map[string][2]gitobj.RawEntry {
	if d == nil {
		return nil
	}
	out := map[string][2]gitobj.RawEntry{}
	for i, n := range d.Names {
		out[n] = [2]gitobj.RawEntry{d.A[i], d.B[i]}
	}
	return out
}

// TestHistCacheShallowLater warms the cache on a full history, then makes
// the repository shallow: the walks stop at the boundary as without the
// cache (the boundary is never cached; a boundary commit's description of
// its parent is not used).
func TestHistCacheShallowLater(t *testing.T) {
	t.Parallel()
	h := copyRefHistory(t, 2) // made shallow below
	o := &cachedOpener{dir: h.dir, c: diskcache.New(t.TempDir())}
	h.check(t, o.open)
	o.save(t)
	boundary := h.chain[len(h.chain)/2]
	must(t, os.WriteFile(filepath.Join(h.dir, ".git", "shallow"), []byte(boundary+"\n"), 0o644))
	cached, plain := o.open(t), open(t, h.dir)
	if got, want := hashesOf(cached.LastChange(h.asked, 0)), hashesOf(plain.LastChange(h.asked, 0)); !reflect.DeepEqual(got, want) {
		t.Errorf("LastChange: cached %v\nwant %v", got, want)
	}
	for _, b := range []int{0, 1, len(h.chain) / 3, len(h.chain) / 2, len(h.chain) - 2} {
		for _, limit := range []int{0, 1} {
			// a base beyond the boundary: ErrHistoryMissing from both
			got, gerr := cached.CommitsTouching(Commit{Hash: h.chain[b]}, h.asked, limit)
			want, werr := plain.CommitsTouching(Commit{Hash: h.chain[b]}, h.asked, limit)
			if !errors.Is(gerr, ErrHistoryMissing) && gerr != nil || fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Errorf("CommitsTouching(base %d, limit %d): errors %v, want %v", b, limit, gerr, werr)
			}
			if !reflect.DeepEqual(hashMap(got), hashMap(want)) {
				t.Errorf("CommitsTouching(base %d, limit %d): cached %v\nwant %v", b, limit, hashMap(got), hashMap(want))
			}
		}
	}
	if _, linkMisses, pairHits, _ := o.save(t); linkMisses != 0 || pairHits == 0 {
		t.Errorf("the warm walks missed commits (%d) or used no description", linkMisses)
	}
}

func hashesOf(m map[string]Commit) map[string]string {
	out := map[string]string{}
	for p, c := range m {
		out[p] = c.Hash
	}
	return out
}

// rawTree builds a tree object's content from mode/name pairs in the order
// given; entry i gets the hash with every byte i+1.
func rawTree(entries ...string) []byte {
	var raw []byte
	for i := 0; i+1 < len(entries); i += 2 {
		raw = append(raw, entries[i]+" "+entries[i+1]+"\x00"...)
		var h plumbing.Hash
		for j := range h {
			h[j] = byte(i/2 + 1)
		}
		raw = append(raw, h[:]...)
	}
	return raw
}

func hashOf(b byte) plumbing.Hash {
	var h plumbing.Hash
	for j := range h {
		h[j] = b
	}
	return h
}
