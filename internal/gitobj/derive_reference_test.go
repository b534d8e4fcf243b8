package gitobj

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// deriveReference is Derive as it was before it recorded the runs of
// entries it skips rather than each entry, and shared its neighbour's
// offsets: the answer Derive must give (TestDeriveAsReference,
// FuzzDeriveAsReference).
func deriveReference(near *Scanned, raw []byte, n *TrieNode, scratch *[]int32) *Scanned {
	if near == nil || near.offs == nil || len(raw) >= 1<<31 {
		return nil
	}
	a, offs := near.raw, near.offs
	end := func(i int) int { // where entry i of a ends
		if i+1 < len(offs) {
			return int(offs[i+1])
		}
		return len(a)
	}
	t := &Scanned{Ents: make([]RawEntry, len(n.Names)), raw: raw, at: make([]int32, len(n.Names)),
		offs: make([]uint32, 0, len(offs)+4)}
	for i := range t.at {
		t.at[i] = -1
	}
	if cap(*scratch) < len(offs) {
		*scratch = make([]int32, len(offs))
	}
	moved := (*scratch)[:len(offs)] // the index in raw of each entry of a, or -1
	for i := range moved {
		moved[i] = -1
	}
	var parsed []int32 // indexes in raw of the entries parsed
	var gone []int32   // indexes in a of the entries not found in raw
	prevParsed := false
	i, x := 0, 0 // the next entry of a, the next offset in raw
	for i < len(offs) || x < len(raw) {
		// Skip the longest run of a's entries found as they are in raw,
		// in chunks halved on a mismatch.
		for k := 64; k > 0 && i < len(offs); {
			k = min(k, len(offs)-i)
			s, e := int(offs[i]), end(i+k-1)
			if x+e-s > len(raw) || !bytes.Equal(a[s:e], raw[x:x+e-s]) {
				k /= 2
				continue
			}
			if prevParsed && len(t.offs) > 0 && !inOrder(raw, int(t.offs[len(t.offs)-1]), x) {
				return nil
			}
			for j := i; j < i+k; j++ {
				moved[j] = int32(len(t.offs))
				t.offs = append(t.offs, uint32(int(offs[j])-s+x))
			}
			i, x, prevParsed = i+k, x+e-s, false
		}
		if x >= len(raw) {
			break // a's entries from i on are gone
		}
		// raw's entry at x is not a's entry i: parse it.
		e := raw[x:]
		sp, nul := entryBounds(e)
		if sp < 0 {
			return nil
		}
		if len(t.offs) > 0 && !inOrder(raw, int(t.offs[len(t.offs)-1]), x) {
			return nil
		}
		name, dir := e[sp+1:sp+1+nul], IsDirMode(e[:sp])
		// a's entries that sort before it are gone from raw; one of its
		// name and kind is replaced.
		for i < len(offs) {
			an, ad := entryName(a[offs[i]:])
			c := CompareNames(an, ad, name, dir)
			if c > 0 {
				break
			}
			gone = append(gone, int32(i))
			i++
			if c == 0 {
				break
			}
		}
		parsed = append(parsed, int32(len(t.offs)))
		t.offs = append(t.offs, uint32(x))
		x += sp + 1 + nul + 21
		prevParsed = true
	}
	for ; i < len(offs); i++ {
		gone = append(gone, int32(i))
	}
	for pos, ia := range near.at {
		if ia >= 0 && moved[ia] >= 0 {
			t.Ents[pos], t.at[pos] = near.Ents[pos], moved[ia]
		}
	}
	t.parsed, t.gone = parsed, gone
	for _, bi := range parsed {
		e := raw[t.offs[bi]:]
		name, _ := entryName(e)
		child, want := n.Children[string(name)]
		if !want {
			continue
		}
		if t.at[child.Pos] >= 0 {
			return nil // a file and a folder of one name: scan
		}
		sp := entrySpace(e)
		t.Ents[child.Pos] = ParseEntry(e[:sp], e[sp+1+len(name)+1:sp+1+len(name)+21])
		t.at[child.Pos] = bi
	}
	return t
}

// sameDerived reports whether two answers of Derive are the same: both
// nil, or the same entries, offsets, places, parsed and gone entries over
// the same raw tree.
func sameDerived(a, b *Scanned) bool {
	if a == nil || b == nil {
		return a == b
	}
	return reflect.DeepEqual(a.Ents, b.Ents) && reflect.DeepEqual(a.at, b.at) &&
		slices.Equal(a.offs, b.offs) && (a.offs == nil) == (b.offs == nil) &&
		slices.Equal(a.parsed, b.parsed) && slices.Equal(a.gone, b.gone) &&
		len(a.raw) == len(b.raw) && (len(a.raw) == 0 || &a.raw[0] == &b.raw[0])
}

// TestDeriveAsReference: Derive gives deriveReference's answer on chains of
// trees of up to 400 entries (runs longer than a chunk), each derived from
// the one before (its offsets often shared with it), changed in place (a
// few hashes, a mode), by entries added, removed, renamed, a file made a
// folder of the same name, cut short or given junk; and near's offsets are
// never written.
func TestDeriveAsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 7))
	names := make([]string, 600)
	for i := range names {
		names[i] = fmt.Sprintf("pkg%03d", i)
	}
	names = append(names, "a", "a.b", "a-b", "a0", "pkg", "pkg.go", "pkg-x")
	type ent struct {
		mode, name string
		h          byte
	}
	build := func(ents []ent) []byte {
		var raw []byte
		for _, e := range ents {
			raw = append(raw, e.mode+" "+e.name+"\x00"...)
			for k := 0; k < 20; k++ {
				raw = append(raw, e.h)
			}
		}
		return raw
	}
	sortEnts := func(ents []ent) []ent {
		sort.SliceStable(ents, func(a, b int) bool {
			return CompareNames([]byte(ents[a].name), IsDirMode([]byte(ents[a].mode)), []byte(ents[b].name), IsDirMode([]byte(ents[b].mode))) < 0
		})
		return slices.CompactFunc(ents, func(a, b ent) bool { return a.name == b.name && rng.IntN(8) != 0 })
	}
	var scratch, refScratch []int32
	derived, shared := 0, 0
	for i := 0; i < 400; i++ {
		var ents []ent
		for j := rng.IntN(400); j > 0; j-- {
			mode := "100644"
			if rng.IntN(3) == 0 {
				mode = "40000"
			}
			ents = append(ents, ent{mode, names[rng.IntN(len(names))], byte(rng.IntN(200))})
		}
		ents = sortEnts(ents)
		var paths []string
		for _, nm := range names {
			if rng.IntN(20) == 0 {
				paths = append(paths, nm+"/f", nm)
			}
		}
		n := NewTrie(paths).Root
		near := ScanFull(build(ents), n)
		for step := 0; step < 8; step++ {
			next := append([]ent(nil), ents...)
			for c := 1 + rng.IntN(3); c > 0 && len(next) > 0; c-- {
				x := rng.IntN(len(next))
				switch k := rng.IntN(10); {
				case k < 5:
					next[x].h++
				case k == 5:
					next = sortEnts(append(next, ent{"100644", names[rng.IntN(len(names))], 1}))
				case k == 6:
					next = append(next[:x], next[x+1:]...)
				case k == 7:
					next[x].name = names[rng.IntN(len(names))]
					next = sortEnts(next)
				case k == 8:
					next[x].mode = map[string]string{"100644": "40000", "40000": "100644"}[next[x].mode]
					next = sortEnts(next)
				default:
					next[x].mode = map[string]string{"100644": "100755", "100755": "100644", "40000": "40000"}[next[x].mode]
				}
			}
			raw := build(next)
			switch rng.IntN(30) {
			case 0:
				raw = raw[:rng.IntN(len(raw)+1)]
			case 1:
				raw = append(raw, "junk"...)
			}
			offs := slices.Clone(near.offs)
			want := deriveReference(near, raw, n, &refScratch)
			got := Derive(near, raw, n, &scratch)
			if !sameDerived(got, want) {
				t.Fatalf("tree %d step %d: Derive = %+v\nreference %+v", i, step, got, want)
			}
			if !slices.Equal(offs, near.offs) {
				t.Fatalf("tree %d step %d: near's offsets written", i, step)
			}
			if got != nil {
				derived++
				if len(got.offs) > 0 && len(near.offs) > 0 && &got.offs[0] == &near.offs[0] {
					shared++
				}
				near = got
			} else {
				near = ScanFull(raw, n)
			}
			ents = next
		}
	}
	if derived < 1500 || shared < 500 {
		t.Errorf("%d trees derived, %d sharing their neighbour's offsets: too few to tell", derived, shared)
	}
	t.Logf("%d derived, %d shared", derived, shared)
}

// FuzzDeriveAsReference: on any pair of byte strings (hostile trees
// included) Derive gives deriveReference's answer, from a neighbour
// scanned or itself derived (its offsets shared).
func FuzzDeriveAsReference(f *testing.F) {
	trees := fuzzTrees()
	for i, a := range trees {
		f.Add(a, trees[(i+1)%len(trees)], trees[(i+2)%len(trees)], "a,foo,z,b")
		f.Add(a, bytes.Replace(a, []byte("foo0"), []byte("foo1"), 1), a, "foo0,foo1,mod")
	}
	f.Fuzz(func(t *testing.T, a, b, c []byte, names string) {
		if len(a) > 4096 || len(b) > 4096 || len(c) > 4096 || len(names) > 200 {
			return
		}
		paths := strings.Split(names, ",")
		if len(paths) > 8 {
			return
		}
		n := NewTrie(paths).Root
		near := ScanFull(a, n)
		var s1, s2 []int32
		for _, raw := range [][]byte{b, c} {
			got, want := Derive(near, raw, n, &s1), deriveReference(near, raw, n, &s2)
			if !sameDerived(got, want) {
				t.Fatalf("Derive = %+v, reference %+v", got, want)
			}
			if got == nil {
				return
			}
			near = got
		}
	})
}
