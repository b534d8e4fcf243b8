package verdict

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// putAll puts the memos of r's candidates at indexes which in m.
func (r *lookupRepo) putAll(m *Memo, which ...int) {
	r.t.Helper()
	for _, i := range which {
		c := &r.cands[i]
		_, k, ok := m.Get(c, r.now, false)
		if ok {
			r.t.Fatalf("%s: a memo before any was kept", c.ID)
		}
		m.Put(k, c, r.report(c), r.now)
	}
}

// savedPaths is the saved path table of r's verdict table.
func (r *lookupRepo) savedPaths() ([genSize]byte, []string) {
	r.t.Helper()
	m := r.open()
	raw, ok := m.tab.Saved(pathsKey)
	if !ok {
		r.t.Fatal("no path table saved")
	}
	gen, paths, ok := decodePaths(raw)
	if !ok {
		r.t.Fatal("the saved path table does not decode")
	}
	return gen, slices.Clone(paths)
}

// writePaths replaces the saved path table of r's verdict table.
func (r *lookupRepo) writePaths(gen [genSize]byte, paths []string) {
	r.t.Helper()
	base := make([]slot, len(paths))
	for i, p := range paths {
		base[i].path = p
	}
	m := r.open()
	if !m.tab.Put(pathsKey, encodePathTable(gen, base, nil)) {
		r.t.Fatal("path table not put")
	}
	if err := m.tab.Save(); err != nil {
		r.t.Fatal(err)
	}
}

// TestPathTableKeptOnceAndReadBack: the memos of a run name their paths by
// index in one path table saved with them, each path once; a later run
// reads it back and uses every memo.
func TestPathTableKeptOnceAndReadBack(t *testing.T) {
	r := newLookupRepo(t)
	r.keep()
	gen, paths := r.savedPaths()
	if gen == ([genSize]byte{}) || len(paths) == 0 {
		t.Fatalf("path table: generation %x, %d paths", gen, len(paths))
	}
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			t.Errorf("%q in the path table twice", p)
		}
		seen[p] = true
	}
	for _, want := range []string{".", "src", "src/a/s.go", "src/missing.go", ".orchestrate/workflows/w3.yaml"} {
		if !seen[want] {
			t.Errorf("%q not in the path table %q", want, paths)
		}
	}
	if got := r.hits(r.open()); fmt.Sprint(got) != "[true true true true]" {
		t.Fatalf("memos used %v, want all", got)
	}
}

// TestPathTableChangedIsRefused: a path table whose indexes name other
// paths than those a memo was kept with (its paths reordered, one
// renamed), or of another generation, or one that is not there, makes
// the memos misses: never one used for the paths it did not check.
func TestPathTableChangedIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(gen [genSize]byte, paths []string) ([genSize]byte, []string)
		want   string
	}{
		{"reversed", func(g [genSize]byte, p []string) ([genSize]byte, []string) { slices.Reverse(p); return g, p }, "[false false false false]"},
		{"one renamed", func(g [genSize]byte, p []string) ([genSize]byte, []string) {
			i := slices.Index(p, "src/w1/f2.go")
			p[i] = "src/w1/f2.go.x"
			return g, p
		}, "[true false true true]"},
		{"another generation", func(g [genSize]byte, p []string) ([genSize]byte, []string) { g[0]++; return g, p }, "[false false false false]"},
		{"cut short", func(g [genSize]byte, p []string) ([genSize]byte, []string) { return g, p[:1] }, "[false false false false]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newLookupRepo(t)
			r.keep()
			r.writePaths(tc.change(r.savedPaths()))
			m := r.open()
			if got := r.hits(m); fmt.Sprint(got) != tc.want {
				t.Fatalf("memos used %v, want %v", got, tc.want)
			}
		})
	}
}

// TestPathTableRewrittenByAnotherRun: two runs that read the same path
// table and each add paths of their own give the same indexes to other
// paths; the table the last one writes is kept, and the first one's
// memos, whose new indexes now name the other's paths, are refused (a
// change to a file only they read included), the last one's used.
func TestPathTableRewrittenByAnotherRun(t *testing.T) {
	r := newLookupRepo(t)
	if err := r.open().Save(); err != nil { // the seeding run
		t.Fatal(err)
	}
	m := r.open()
	r.putAll(m, 3)
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	a, b := r.open(), r.open()
	r.putAll(a, 0, 1)
	r.putAll(b, 2)
	if err := a.Save(); err != nil {
		t.Fatal(err)
	}
	if err := b.Save(); err != nil {
		t.Fatal(err)
	}
	m = r.open()
	if got := r.hits(m); fmt.Sprint(got) != "[false false true true]" {
		t.Fatalf("memos used %v, want w2's and w3's", got)
	}
	if m.tab.Stats().Refused < 2 {
		t.Errorf("stats %+v: the first run's memos not refused", m.tab.Stats())
	}
	r.write("src/w0/f1.go")
	if got := r.hits(r.open()); fmt.Sprint(got) != "[false false true true]" {
		t.Fatalf("after a change: memos used %v", got)
	}
}

// TestPathTableStartedAnewPastHalfItsBound: a saved path table over half
// its bound is not read; the next run that keeps memos starts a new
// generation holding only its own paths.
func TestPathTableStartedAnewPastHalfItsBound(t *testing.T) {
	r := newLookupRepo(t)
	r.keep()
	gen, paths := r.savedPaths()
	big := append(paths, string(bytes.Repeat([]byte{'x'}, maxPathBytes/2)))
	r.writePaths(gen, big)
	if got := r.hits(r.open()); fmt.Sprint(got) != "[false false false false]" {
		t.Fatalf("memos used %v with the path table past half its bound", got)
	}
	m := r.open()
	r.putAll(m, 0, 1, 2, 3)
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	gen2, paths2 := r.savedPaths()
	if gen2 == gen || len(paths2) != len(paths) {
		t.Fatalf("new table: generation %x (was %x), %d paths (want %d)", gen2, gen, len(paths2), len(paths))
	}
	if got := r.hits(r.open()); fmt.Sprint(got) != "[true true true true]" {
		t.Fatalf("memos used %v, want all", got)
	}
}

// TestDecodePathsRefusesDamagedValues: every truncation of a path table
// and a trailing byte are refused, a zero generation too; a changed byte
// never panics.
func TestDecodePathsRefusesDamagedValues(t *testing.T) {
	base := []slot{{path: "."}, {path: "src"}, {path: "src/a.go"}, {path: ""}}
	gen := [genSize]byte{1}
	v := encodePathTable(gen, base[:2], []*slot{&base[2], &base[3]})
	g, ps, ok := decodePaths(v)
	if !ok || g != gen || fmt.Sprint(ps) != "[. src src/a.go ]" {
		t.Fatalf("round trip: %v %x %q", ok, g, ps)
	}
	for n := range len(v) {
		if _, _, ok := decodePaths(v[:n]); ok {
			t.Fatalf("cut to %d of %d bytes: decoded", n, len(v))
		}
	}
	if _, _, ok := decodePaths(append(bytes.Clone(v), 0)); ok {
		t.Error("a trailing byte: decoded")
	}
	if _, _, ok := decodePaths(encodePathTable([genSize]byte{}, base, nil)); ok {
		t.Error("a zero generation: decoded")
	}
	for i := range v {
		for _, b := range []byte{0, 0x7f, 0x80, 0xff} {
			w := bytes.Clone(v)
			w[i] = b
			decodePaths(w)
		}
	}
}

func FuzzDecodePaths(f *testing.F) {
	base := []slot{{path: "."}, {path: "src/a.go"}}
	f.Add(encodePathTable([genSize]byte{1}, base, nil))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		gen, paths, ok := decodePaths(data)
		if !ok {
			return
		}
		slots := make([]slot, len(paths))
		for i, p := range paths {
			slots[i].path = p
		}
		gen2, paths2, ok := decodePaths(encodePathTable(gen, slots, nil))
		if !ok || gen2 != gen || !slices.Equal(paths2, paths) {
			t.Fatal("a decoded path table re-encoded does not decode to it")
		}
	})
}
