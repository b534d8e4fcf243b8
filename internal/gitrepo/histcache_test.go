package gitrepo

import (
	"bytes"
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
)

// cachedOpener opens repositories of dir that use cache c, and saves what
// their walks derived when told to.
type cachedOpener struct {
	dir   string
	c     *diskcache.Cache
	repos []*Repo
}

func (o *cachedOpener) open(t *testing.T) *Repo {
	r := open(t, o.dir)
	r.UseCache(o.c)
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
			_, _, pairHits, _ := o.save(t)
			if pairHits != 0 {
				t.Errorf("cold run: %d pair hits", pairHits)
			}
			names, _ := filepath.Glob(filepath.Join(o.c.Path("x"), "..", "git-*"))
			if len(names) != 2 {
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
	if ha == nil || hb == nil || ha.linksName == hb.linksName || ha.pairsName == hb.pairsName {
		t.Fatalf("tables: %+v %+v", ha, hb)
	}
	if again := open(t, a); func() string { again.UseCache(c); return again.hist().linksName }() != ha.linksName {
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

// TestHistCacheBadValuesMiss plants, under the keys a walk looks up, values
// this reader never writes (wrong lengths, zero hashes, pair values that do
// not parse) and a foreign table: each is a miss, and the walks answer as
// without a cache.
func TestHistCacheBadValuesMiss(t *testing.T) {
	h := buildRefHistory(t, 4)
	dir := t.TempDir()
	c := diskcache.New(dir)
	r := open(t, h.dir)
	r.UseCache(c)
	hc := r.hist()

	badLinks := [][]byte{nil, make([]byte, 19), make([]byte, 21), make([]byte, 20), make([]byte, 40), append(bytes.Repeat([]byte{1}, 20), make([]byte, 20)...), make([]byte, 60)}
	lb := diskcache.NewBuilder(20)
	pb := diskcache.NewBuilder(40)
	folders := []string{"d0", "d1", "d2", "d0/s0", "d1/s1", "d2/s2", "d0/s3", "d1/s4", "d2/s0", "d0/s1"}
	n := 0
	for i, ch := range h.chain {
		hash := plumbing.NewHash(ch)
		lb.Add(hash[:], badLinks[i%len(badLinks)])
		if i == 0 {
			continue
		}
		l, err := r.readLinksUncached(hash)
		must(t, err)
		p, err := r.readLinksUncached(l.parent)
		must(t, err)
		add := func(a, b plumbing.Hash) {
			var k [40]byte
			copy(k[:20], a[:])
			copy(k[20:], b[:])
			pb.Add(k[:], badPairValues[n%len(badPairValues)])
			n++
		}
		add(l.tree, p.tree)
		ea, err := r.entriesOf(l.tree, folders)
		must(t, err)
		eb, err := r.entriesOf(p.tree, folders)
		must(t, err)
		for _, f := range folders {
			if a, b := ea[f].dir(), eb[f].dir(); !a.IsZero() && !b.IsZero() && a != b {
				add(a, b)
			}
		}
	}
	must(t, c.Write(hc.linksName, nil, lb))
	must(t, c.Write(hc.pairsName, nil, pb))

	o := &cachedOpener{dir: h.dir, c: c}
	h.check(t, o.open)
	linkHits, linkMisses, pairHits, pairMisses := o.save(t)
	if linkHits != 0 || pairHits != 0 || linkMisses == 0 || pairMisses == 0 {
		t.Errorf("planted values: links %d hits %d misses, pairs %d hits %d misses", linkHits, linkMisses, pairHits, pairMisses)
	}

	// A foreign table (another key size) under a table's name reads as empty.
	must(t, c.Write(hc.pairsName, nil, func() *diskcache.Builder {
		b := diskcache.NewBuilder(20)
		b.Add(make([]byte, 20), []byte("x"))
		return b
	}()))
	h.check(t, o.open)
	o.save(t)
}

// badPairValues are pair values that must not decode.
var badPairValues = [][]byte{
	nil,
	{0x05},                   // five names, none there
	{0x80},                   // a cut count
	{0x01, 0x00},             // an empty name
	{0x01, 0x05, 'a', 'b'},   // a name cut short
	{0x01, 0x01, '/', 0x00},  // a name with '/'
	{0x01, 0x01, 0x00, 0x00}, // a name with NUL
	append([]byte{0x01, 0x01, 'a', 0xff, 0xff, 0xff, 0xff, 0x7f}, make([]byte, 20)...),                                     // a mode past 32 bits
	append([]byte{0x01, 0x01, 'a', 0x00}, make([]byte, 19)...),                                                             // a hash cut short
	append(encodePair(&pairDiff{names: []string{"d0"}, ea: []rawEntry{{filemode.Dir, hashOf(1)}}, eb: []rawEntry{{}}}), 0), // trailing bytes
	encodePair(&pairDiff{names: []string{"d0"}, ea: []rawEntry{{filemode.Dir, hashOf(1)}}, eb: []rawEntry{{}}})[:10],       // cut
}

func TestDecodePairRejects(t *testing.T) {
	for i, v := range badPairValues {
		if d, err := decodePair(v); err == nil {
			t.Errorf("value %d (%x) decoded: %+v", i, v, d)
		}
	}
	good := &pairDiff{names: []string{"a", "b.c", "sub"},
		ea: []rawEntry{{filemode.Regular, hashOf(1)}, {}, {filemode.Dir, hashOf(3)}},
		eb: []rawEntry{{filemode.Executable, hashOf(1)}, {filemode.Symlink, hashOf(2)}, {filemode.Dir, hashOf(4)}}}
	d, err := decodePair(encodePair(good))
	if err != nil || !reflect.DeepEqual(d, good) {
		t.Errorf("round trip: %+v, %v", d, err)
	}
}

func TestDecodeLinks(t *testing.T) {
	c, tr, p := hashOf(1), hashOf(2), hashOf(3)
	tests := []struct {
		name string
		v    []byte
		want links
		ok   bool
	}{
		{"root commit", tr[:], links{hash: c, tree: tr}, true},
		{"tree and parent", append(append([]byte{}, tr[:]...), p[:]...), links{hash: c, tree: tr, parent: p}, true},
		{"empty", nil, links{}, false},
		{"short", tr[:19], links{}, false},
		{"between", append(append([]byte{}, tr[:]...), 1), links{}, false},
		{"zero tree", make([]byte, 20), links{}, false},
		{"zero parent", append(append([]byte{}, tr[:]...), make([]byte, 20)...), links{}, false},
		{"long", make([]byte, 41), links{}, false},
	}
	for _, tt := range tests {
		l, ok := decodeLinks(c, tt.v)
		if ok != tt.ok || (ok && l != tt.want) {
			t.Errorf("%s: %+v %v", tt.name, l, ok)
		}
		if ok && !bytes.Equal(encodeLinks(l), tt.v) {
			t.Errorf("%s: encodes as %x", tt.name, encodeLinks(l))
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
			return compareNames([]byte(es[i].name), es[i].mode == "40000", []byte(es[j].name), es[j].mode == "40000") < 0
		})
		var raw []byte
		for _, e := range es {
			raw = append(raw, e.mode+" "+e.name+"\x00"...)
			h := hashOf(byte(1 + rng.Intn(2)))
			raw = append(raw, h[:]...)
		}
		return raw
	}
	twins := 0
	for i := 0; i < 3000; i++ {
		ra, rb := randTree(), randTree()
		if rng.Intn(3) == 0 {
			rb = ra
		}
		ta, tb := newTreeIndex(ra), newTreeIndex(rb)
		want, got := diffIndexes(ta, tb), diffForCache(ta, tb)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trees\n%q\n%q\ndiffForCache %+v\ndiffIndexes  %+v", ra, rb, got, want)
		}
		if strings.Contains(string(ra), "40000 a\x00") && strings.Contains(string(ra), "100644 a\x00") {
			twins++
		}
	}
	if twins == 0 {
		t.Errorf("no tree with a file and a folder of one name")
	}
	if diffForCache(newTreeIndex(rawTree("100644", "b", "100644", "a")), newTreeIndex(nil)) != nil {
		t.Errorf("a tree out of order gave differences")
	}
}

func FuzzPairValue(f *testing.F) {
	for _, v := range badPairValues {
		f.Add(v)
	}
	f.Add(encodePair(&pairDiff{names: []string{"a", "b"}, ea: []rawEntry{{filemode.Regular, hashOf(1)}, {}}, eb: []rawEntry{{}, {filemode.Dir, hashOf(2)}}}))
	f.Fuzz(func(t *testing.T, v []byte) {
		d, err := decodePair(v)
		if err != nil {
			return
		}
		again, err := decodePair(encodePair(d))
		if err != nil || !reflect.DeepEqual(again, d) {
			t.Fatalf("round trip of %x: %+v, %v (was %+v)", v, again, err, d)
		}
		// the walk's reader agrees with the decoder
		rd := newPairReader(v)
		k := 0
		for {
			name, ea, eb, ok := rd.next()
			if !ok {
				break
			}
			if string(name) != d.names[k] || ea != d.ea[k] || eb != d.eb[k] {
				t.Fatalf("reader entry %d differs", k)
			}
			k++
		}
		if !rd.done() || k != len(d.names) {
			t.Fatalf("reader stopped at %d of %d", k, len(d.names))
		}
	})
}

func FuzzLinksValue(f *testing.F) {
	tr, p := hashOf(2), hashOf(3)
	f.Add(tr[:])
	f.Add(append(append([]byte{}, tr[:]...), p[:]...))
	f.Add([]byte("x"))
	f.Fuzz(func(t *testing.T, v []byte) {
		l, ok := decodeLinks(hashOf(1), v)
		if !ok {
			return
		}
		if !bytes.Equal(encodeLinks(l), v) {
			t.Fatalf("round trip of %x: %x", v, encodeLinks(l))
		}
	})
}
