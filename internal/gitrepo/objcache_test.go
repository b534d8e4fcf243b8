package gitrepo

import (
	"bytes"
	"fmt"
	"github.com/orchestrate-dev/orchestrate/internal/gitverify"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/orchestrate-dev/orchestrate/internal/cachetable"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitcache"
)

// lookups is what the path look-ups of every commit of h answer: ReadAt
// and Compare of every asked path at every commit, and entriesAt.
func (h refHistory) lookups(t *testing.T, r *Repo) []string {
	t.Helper()
	var out []string
	for _, c := range h.chain {
		cm := Commit{Hash: c, Short: c[:7]}
		for _, p := range h.asked {
			data, err := r.ReadAt(cm, p)
			out = append(out, fmt.Sprintf("%s %s: %q %v", c[:7], p, data, err))
		}
		st, err := r.Compare(cm, h.asked)
		out = append(out, fmt.Sprintf("compare %s: %+v %v", c[:7], st, err))
		ents, err := r.entriesAt(plumbing.NewHash(c), h.asked)
		out = append(out, fmt.Sprintf("entries %s: %v %v", c[:7], ents, err))
	}
	return out
}

// TestObjectTableSameAnswers checks that ReadAt, Compare and entriesAt
// answer the same with the tables off, cold (written) and warm (every blob
// from the object table and every look-up from the path table, nothing
// added, the tables not rewritten), and with the object table alone.
func TestObjectTableSameAnswers(t *testing.T) {
	t.Parallel()
	h := sharedRefHistory(t, 3)
	want := h.lookups(t, open(t, h.dir))

	c := diskcache.New(t.TempDir())
	run := func(name string, paths bool) (o, m cachetable.Stats) {
		r := open(t, h.dir)
		r.UseCache(c)
		if !paths {
			r.memo = nil
		}
		if got := h.lookups(t, r); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: answers differ from the run without a table", name)
		}
		o, m = r.objs.Table().Stats(), r.memo.Stats()
		must(t, r.SaveCache())
		return o, m
	}
	tables := func() []string {
		names, _ := filepath.Glob(filepath.Join(c.Path("x"), "..", "git-[op]*"))
		return names
	}
	cold, _ := run("cold", false)
	if cold.Hits != 0 || cold.Refused != 0 || cold.Misses == 0 {
		t.Errorf("cold run: %d hits, %d misses, %d refused", cold.Hits, cold.Misses, cold.Refused)
	}
	if names := tables(); len(names) != 1 || !strings.Contains(names[0], "git-objects-") {
		t.Fatalf("tables after the cold run: %v", names)
	}
	before := statAll(t, tables())
	warm, _ := run("warm", false)
	if warm.Hits == 0 || warm.Misses != 0 || warm.Refused != 0 {
		t.Errorf("warm run: %d hits, %d misses, %d refused", warm.Hits, warm.Misses, warm.Refused)
	}
	if after := statAll(t, tables()); !reflect.DeepEqual(before, after) {
		t.Errorf("a warm run rewrote the object table")
	}
	// with the path table
	if _, m := run("cold paths", true); m.Hits != 0 || m.Misses == 0 {
		t.Errorf("cold run: %d path hits, %d misses", m.Hits, m.Misses)
	}
	before = statAll(t, tables())
	o, m := run("warm paths", true)
	if m.Hits == 0 || m.Misses != 0 || o.Hits == 0 || o.Misses != 0 || o.Refused != 0 {
		t.Errorf("warm run: %d path hits, %d misses; objects: %d hits, %d misses, %d refused", m.Hits, m.Misses, o.Hits, o.Misses, o.Refused)
	}
	if after := statAll(t, tables()); len(after) != 2 || !reflect.DeepEqual(before, after) {
		t.Errorf("a warm run rewrote the tables %v", tables())
	}
}

// TestObjectTableBadValuesMiss plants, under every blob a warm run looks
// up, values that are not that blob — another type, nothing, a truncated
// or altered content, another blob's content — and checks that each is
// refused (a miss) and the answers are those without a table.
func TestObjectTableBadValuesMiss(t *testing.T) {
	t.Parallel()
	h := sharedRefHistory(t, 2)
	want := h.lookups(t, open(t, h.dir))
	c := diskcache.New(t.TempDir())
	r := open(t, h.dir)
	r.UseCache(c)
	h.lookups(t, r)
	keys := map[plumbing.Hash]bool{} // every object the run wrote
	for _, k := range r.objs.Table().Keys() {
		keys[k] = true
	}
	must(t, r.SaveCache())
	name := r.objs.Table().Name()
	good, _ := c.Open(name, 20)
	if good.Len() < 2 || good.Len() != len(keys) {
		t.Fatalf("the cold run wrote %d objects of %d", good.Len(), len(keys))
	}
	var other []byte
	spoil := []func(v []byte) []byte{
		func(v []byte) []byte { return append([]byte{byte(plumbing.TreeObject)}, v[1:]...) },
		func(v []byte) []byte { return nil },
		func(v []byte) []byte { return v[:1] },
		func(v []byte) []byte { return v[:len(v)-1] },
		func(v []byte) []byte {
			w := bytes.Clone(v)
			w[len(w)-1] ^= 1
			return w
		},
		func(v []byte) []byte {
			w := other
			other = v
			if w == nil {
				return v[:0]
			}
			return w
		},
		func(v []byte) []byte { return []byte{0xff} },
	}
	for i, f := range spoil {
		t.Run(fmt.Sprint("spoil ", i), func(t *testing.T) {
			bad := diskcache.New(t.TempDir())
			b := diskcache.NewBuilder(20)
			for k := range keys {
				if v, ok := good.Get(k[:]); ok && len(v) >= 2 {
					b.Add(k[:], f(v))
				}
			}
			must(t, bad.Write(name, nil, b))
			r := open(t, h.dir)
			r.UseCache(bad)
			if got := h.lookups(t, r); !reflect.DeepEqual(got, want) {
				t.Fatalf("answers differ with spoilt values")
			}
			if r.objs.Table().Stats().Hits != 0 || r.objs.Table().Stats().Refused == 0 {
				t.Errorf("%d hits, %d refused", r.objs.Table().Stats().Hits, r.objs.Table().Stats().Refused)
			}
		})
	}
}

// TestPathTableBadValuesMiss plants, under every look-up a warm run makes,
// values of another length than an entry's: each is a miss, and the
// answers are those without a table.
func TestPathTableBadValuesMiss(t *testing.T) {
	t.Parallel()
	h := sharedRefHistory(t, 3)
	want := h.lookups(t, open(t, h.dir))
	c := diskcache.New(t.TempDir())
	r := open(t, h.dir)
	r.UseCache(c)
	h.lookups(t, r)
	keys := r.memo.Keys()
	name := r.memo.Name()
	must(t, r.SaveCache())
	const pathValue = 4 + 20 // an entry found: its mode and hash
	for _, v := range [][]byte{{1}, make([]byte, pathValue-1), make([]byte, pathValue+1)} {
		bad := diskcache.New(t.TempDir())
		b := diskcache.NewBuilder(gitcache.PathKeySize)
		for _, k := range keys {
			b.Add(k[:], v)
		}
		must(t, bad.Write(name, nil, b))
		r := open(t, h.dir)
		r.UseCache(bad)
		if got := h.lookups(t, r); !reflect.DeepEqual(got, want) {
			t.Fatalf("answers differ with %d-byte values", len(v))
		}
		if r.memo.Stats().Hits != 0 || r.memo.Stats().Misses == 0 {
			t.Errorf("%d-byte values: %d hits, %d misses", len(v), r.memo.Stats().Hits, r.memo.Stats().Misses)
		}
	}
}

// TestObjectTablePerRepository checks that the object and path tables are
// the repository's own, and that a Repo without a cache has none.
func TestObjectTablePerRepository(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		must(t, initRepoWithFile(d))
	}
	c := diskcache.New(t.TempDir())
	ra, rb := open(t, a), open(t, b)
	ra.UseCache(c)
	rb.UseCache(c)
	if ra.objs.Table().Name() == "" || ra.objs.Table().Name() == rb.objs.Table().Name() {
		t.Errorf("object tables %q and %q", ra.objs.Table().Name(), rb.objs.Table().Name())
	}
	if ra.memo.Name() == "" || ra.memo.Name() == rb.memo.Name() {
		t.Errorf("path tables %q and %q", ra.memo.Name(), rb.memo.Name())
	}
	if rc := open(t, a); rc.objs != nil || rc.memo != nil {
		t.Errorf("a Repo without a cache has an object or path table")
	}
	rd := open(t, a)
	rd.UseCache(diskcache.New(""))
	if rd.objs != nil || rd.memo != nil {
		t.Errorf("a Repo with the cache off has an object or path table")
	}
}

// TestObjectHashIsGits checks objectHash against go-git's hasher.
func TestObjectHashIsGits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ     plumbing.ObjectType
		content string
	}{
		{plumbing.BlobObject, ""},
		{plumbing.BlobObject, "hello\n"},
		{plumbing.TreeObject, "100644 f\x00aaaaaaaaaaaaaaaaaaaa"},
	} {
		if got, want := gitverify.ObjectHash(tc.typ, []byte(tc.content)), plumbing.ComputeHash(tc.typ, []byte(tc.content)); got != want {
			t.Errorf("%v %q: %s, want %s", tc.typ, tc.content, got, want)
		}
	}
}
