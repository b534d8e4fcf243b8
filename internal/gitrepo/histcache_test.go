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
	for seed := int64(1); seed <= 2; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			h := buildRefHistory(t, seed)
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
	h := buildRefHistory(t, 4)
	c := diskcache.New(t.TempDir())
	r := open(t, h.dir)
	r.UseCache(c)
	hc := r.hist()

	badLinks := [][]byte{nil, make([]byte, 19), make([]byte, 21), make([]byte, 20), make([]byte, 40),
		append(bytes.Repeat([]byte{1}, 20), make([]byte, 20)...), make([]byte, 39)}
	// values that do not decode as one level (nest's is too deep only for
	// decodePair, and a lie as a level: a walk never meets one it did not
	// write)
	bad := badPairValues[:len(badPairValues)-1]
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
			node := &pairNode{d: gitobj.DiffForCache(ta, tb)}
			node.subRaw = make([][]byte, len(node.d.Names))
			for x := range node.subRaw {
				node.subRaw[x] = bad[(i+x)%len(bad)]
				if node.subRaw[x] == nil {
					node.subRaw[x] = []byte{0x07}
				}
			}
			v = appendPair(v, node)
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

// badPairValues are descriptions that must not decode.
var badPairValues = [][]byte{
	nil,
	{0x05},                         // five names, none there
	{0x80},                         // a cut count
	{0x01, 0x00},                   // an empty name
	{0x01, 0x05, 'a', 'b'},         // a name cut short
	{0x01, 0x01, '/', 0x00, 0x00},  // a name with '/'
	{0x01, 0x01, 0x00, 0x00, 0x00}, // a name with NUL
	{0x01, 0x01, 'a', 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00, 0x00},       // a mode past 32 bits
	encodePair(onePair())[:len(encodePair(onePair()))-1],              // a hash cut short
	{0x01, 0x01, 'a', 0x00, 0x00, 0x01, 0x00},                         // a nested description of files
	{0x01, 0x01, 'a', 0x80, 0x80, 0x01, 0x80, 0x80, 0x01, 0x05, 0x00}, // a nested description past the end
	append(encodePair(onePair()), 0),                                  // trailing bytes
	encodePair(onePair())[:10],                                        // cut
	nest(maxPairDepth + 2),                                            // nested too deep
}

// onePair is a description of one name, a folder in the first tree only.
func onePair() *pairNode {
	return &pairNode{d: &gitobj.PairDiff{Names: []string{"d0"}, A: []gitobj.RawEntry{{Mode: filemode.Dir, Hash: hashOf(1)}}, B: []gitobj.RawEntry{{}}}}
}

// dirPair is a description of one name, a folder in both trees.
func dirPair() *pairNode {
	return &pairNode{d: &gitobj.PairDiff{Names: []string{"d0"}, A: []gitobj.RawEntry{{Mode: filemode.Dir, Hash: hashOf(1)}}, B: []gitobj.RawEntry{{Mode: filemode.Dir, Hash: hashOf(2)}}}}
}

// nest is a description nested depth deep.
func nest(depth int) []byte {
	n := onePair()
	for i := 0; i < depth; i++ {
		up := dirPair()
		up.setSub(0, n)
		n = up
	}
	return encodePair(n)
}

func TestDecodePairRejects(t *testing.T) {
	for i, v := range badPairValues {
		if d, err := decodePair(v); err == nil {
			t.Errorf("value %d (%x) decoded: %+v", i, v, d)
		}
	}
	good := (&pairNode{d: &gitobj.PairDiff{Names: []string{"a", "b.c", "sub"},
		A: []gitobj.RawEntry{{Mode: filemode.Regular, Hash: hashOf(1)}, {}, {Mode: filemode.Dir, Hash: hashOf(3)}},
		B: []gitobj.RawEntry{{Mode: filemode.Executable, Hash: hashOf(1)}, {Mode: filemode.Symlink, Hash: hashOf(2)}, {Mode: filemode.Dir, Hash: hashOf(4)}}}})
	good.setSub(2, onePair())
	d, err := decodePair(encodePair(good))
	if err != nil || !bytes.Equal(encodePair(d), encodePair(good)) || !reflect.DeepEqual(d.sub[2].d, good.sub[2].d) {
		t.Errorf("round trip: %+v, %v", d, err)
	}
	if _, err := decodePair(nest(maxPairDepth - 1)); err != nil {
		t.Errorf("nested %d deep: %v", maxPairDepth-1, err)
	}
}

func TestDecodeCommit(t *testing.T) {
	c, tr, p := hashOf(1), hashOf(2), hashOf(3)
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	tests := []struct {
		name string
		v    []byte
		want links
		ok   bool
	}{
		{"root commit", tr[:], links{hash: c, tree: tr}, true},
		{"tree and parent", cat(tr[:], p[:]), links{hash: c, tree: tr, parent: p}, true},
		{"with a description", cat(tr[:], p[:], []byte{0}), links{hash: c, tree: tr, parent: p}, true},
		{"empty", nil, links{}, false},
		{"short", tr[:19], links{}, false},
		{"between", cat(tr[:], []byte{1}), links{}, false},
		{"zero tree", make([]byte, 20), links{}, false},
		{"zero parent", cat(tr[:], make([]byte, 20)), links{}, false},
		{"zero tree, a parent", cat(make([]byte, 20), p[:]), links{}, false},
	}
	for _, tt := range tests {
		l, diff, ok := decodeCommit(c, tt.v)
		if ok != tt.ok || (ok && (l != tt.want || !bytes.Equal(diff, tt.v[min(40, len(tt.v)):]))) {
			t.Errorf("%s: %+v %v", tt.name, l, ok)
		}
		if ok && len(tt.v) <= 40 && !bytes.Equal(encodeCommit(l, nil), tt.v) {
			t.Errorf("%s: encodes as %x", tt.name, encodeCommit(l, nil))
		}
	}
}

// TestDiffForCacheMatchesDiffIndexes compares the cache's merge with
// diffIndexes on random pairs of trees, files and folders of one name
// included.
func TestDiffForCacheMatchesDiffIndexes(t *testing.T) {
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

func FuzzPairValue(f *testing.F) {
	for _, v := range badPairValues {
		f.Add(v)
	}
	good := dirPair()
	good.setSub(0, onePair())
	f.Add(encodePair(good))
	f.Add(encodePair(dirPair()))
	f.Fuzz(func(t *testing.T, v []byte) {
		d, err := decodePair(v)
		if err != nil {
			return
		}
		again, err := decodePair(encodePair(d))
		if err != nil || !bytes.Equal(encodePair(again), encodePair(d)) {
			t.Fatalf("round trip of %x: %+v, %v", v, again, err)
		}
		// the walk's reader agrees with the decoder, level by level
		lv, err := decodeLevel(v)
		if err != nil || !reflect.DeepEqual(lv.d, d.d) {
			t.Fatalf("level of %x: %+v, %v", v, lv, err)
		}
		rd := newPairReader(v)
		k := 0
		for {
			name, ea, eb, sub, ok := rd.next()
			if !ok {
				break
			}
			if string(name) != d.d.Names[k] || ea != d.d.A[k] || eb != d.d.B[k] || (sub == nil) != (k >= len(d.sub) || d.sub[k] == nil) {
				t.Fatalf("reader entry %d differs", k)
			}
			k++
		}
		if !rd.done() || k != len(d.d.Names) {
			t.Fatalf("reader stopped at %d of %d", k, len(d.d.Names))
		}
	})
}

func FuzzCommitValue(f *testing.F) {
	tr, p := hashOf(2), hashOf(3)
	f.Add(tr[:])
	f.Add(append(append([]byte{}, tr[:]...), p[:]...))
	f.Add(append(append(append([]byte{}, tr[:]...), p[:]...), encodePair(onePair())...))
	f.Add([]byte("x"))
	f.Fuzz(func(t *testing.T, v []byte) {
		l, diff, ok := decodeCommit(hashOf(1), v)
		if !ok {
			return
		}
		enc := append(encodeCommit(l, nil), diff...)
		if !bytes.Equal(enc, v) {
			t.Fatalf("round trip of %x: %x", v, enc)
		}
		if d, err := decodePair(diff); err == nil {
			if !bytes.Equal(encodeCommit(l, d), append(encodeCommit(l, nil), encodePair(d)...)) {
				t.Fatalf("encodeCommit of %x", v)
			}
		}
	})
}

// TestHistCacheShallowLater warms the cache on a full history, then makes
// the repository shallow: the walks stop at the boundary as without the
// cache (the boundary is never cached; a boundary commit's description of
// its parent is not used).
func TestHistCacheShallowLater(t *testing.T) {
	h := buildRefHistory(t, 5)
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
