package gitcache

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

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
	EncodePair(onePair())[:len(EncodePair(onePair()))-1],              // a hash cut short
	{0x01, 0x01, 'a', 0x00, 0x00, 0x01, 0x00},                         // a nested description of files
	{0x01, 0x01, 'a', 0x80, 0x80, 0x01, 0x80, 0x80, 0x01, 0x05, 0x00}, // a nested description past the end
	append(EncodePair(onePair()), 0),                                  // trailing bytes
	EncodePair(onePair())[:10],                                        // cut
	nest(maxPairDepth + 2),                                            // nested too deep
}

// onePair is a description of one name, a folder in the first tree only.
func onePair() *Pair {
	return &Pair{D: &gitobj.PairDiff{Names: []string{"d0"}, A: []gitobj.RawEntry{{Mode: filemode.Dir, Hash: hashOf(1)}}, B: []gitobj.RawEntry{{}}}}
}

// dirPair is a description of one name, a folder in both trees.
func dirPair() *Pair {
	return &Pair{D: &gitobj.PairDiff{Names: []string{"d0"}, A: []gitobj.RawEntry{{Mode: filemode.Dir, Hash: hashOf(1)}}, B: []gitobj.RawEntry{{Mode: filemode.Dir, Hash: hashOf(2)}}}}
}

// nest is a description nested depth deep.
func nest(depth int) []byte {
	n := onePair()
	for i := 0; i < depth; i++ {
		up := dirPair()
		up.SetSub(0, n)
		n = up
	}
	return EncodePair(n)
}

func TestDecodePairRejects(t *testing.T) {
	for i, v := range badPairValues {
		if d, err := DecodePair(v); err == nil {
			t.Errorf("value %d (%x) decoded: %+v", i, v, d)
		}
	}
	good := (&Pair{D: &gitobj.PairDiff{Names: []string{"a", "b.c", "sub"},
		A: []gitobj.RawEntry{{Mode: filemode.Regular, Hash: hashOf(1)}, {}, {Mode: filemode.Dir, Hash: hashOf(3)}},
		B: []gitobj.RawEntry{{Mode: filemode.Executable, Hash: hashOf(1)}, {Mode: filemode.Symlink, Hash: hashOf(2)}, {Mode: filemode.Dir, Hash: hashOf(4)}}}})
	good.SetSub(2, onePair())
	d, err := DecodePair(EncodePair(good))
	if err != nil || !bytes.Equal(EncodePair(d), EncodePair(good)) || !reflect.DeepEqual(d.Sub[2].D, good.Sub[2].D) {
		t.Errorf("round trip: %+v, %v", d, err)
	}
	if _, err := DecodePair(nest(maxPairDepth - 1)); err != nil {
		t.Errorf("nested %d deep: %v", maxPairDepth-1, err)
	}
}

func TestDecodeCommit(t *testing.T) {
	tr, p := hashOf(2), hashOf(3)
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	tests := []struct {
		name string
		v    []byte
		want Links
		ok   bool
	}{
		{"root commit", tr[:], Links{Tree: tr}, true},
		{"tree and parent", cat(tr[:], p[:]), Links{Tree: tr, Parent: p}, true},
		{"with a description", cat(tr[:], p[:], []byte{0}), Links{Tree: tr, Parent: p}, true},
		{"empty", nil, Links{}, false},
		{"short", tr[:19], Links{}, false},
		{"between", cat(tr[:], []byte{1}), Links{}, false},
		{"zero tree", make([]byte, 20), Links{}, false},
		{"zero parent", cat(tr[:], make([]byte, 20)), Links{}, false},
		{"zero tree, a parent", cat(make([]byte, 20), p[:]), Links{}, false},
	}
	for _, tt := range tests {
		l, diff, ok := DecodeCommit(tt.v)
		if ok != tt.ok || (ok && (l != tt.want || !bytes.Equal(diff, tt.v[min(40, len(tt.v)):]))) {
			t.Errorf("%s: %+v %v", tt.name, l, ok)
		}
		if ok && len(tt.v) <= 40 && !bytes.Equal(EncodeCommit(l, nil), tt.v) {
			t.Errorf("%s: encodes as %x", tt.name, EncodeCommit(l, nil))
		}
	}
}

func FuzzPairValue(f *testing.F) {
	for _, v := range badPairValues {
		f.Add(v)
	}
	good := dirPair()
	good.SetSub(0, onePair())
	f.Add(EncodePair(good))
	f.Add(EncodePair(dirPair()))
	f.Fuzz(func(t *testing.T, v []byte) {
		d, err := DecodePair(v)
		if err != nil {
			return
		}
		again, err := DecodePair(EncodePair(d))
		if err != nil || !bytes.Equal(EncodePair(again), EncodePair(d)) {
			t.Fatalf("round trip of %x: %+v, %v", v, again, err)
		}
		// the walk's reader agrees with the decoder, level by level
		lv, err := DecodeLevel(v)
		if err != nil || !reflect.DeepEqual(lv.D, d.D) {
			t.Fatalf("level of %x: %+v, %v", v, lv, err)
		}
		rd := NewPairReader(v)
		k := 0
		for {
			name, ea, eb, sub, ok := rd.Next()
			if !ok {
				break
			}
			if string(name) != d.D.Names[k] || ea != d.D.A[k] || eb != d.D.B[k] || (sub == nil) != (k >= len(d.Sub) || d.Sub[k] == nil) {
				t.Fatalf("reader entry %d differs", k)
			}
			k++
		}
		if !rd.Done() || k != len(d.D.Names) {
			t.Fatalf("reader stopped at %d of %d", k, len(d.D.Names))
		}
	})
}

func FuzzCommitValue(f *testing.F) {
	tr, p := hashOf(2), hashOf(3)
	f.Add(tr[:])
	f.Add(append(append([]byte{}, tr[:]...), p[:]...))
	f.Add(append(append(append([]byte{}, tr[:]...), p[:]...), EncodePair(onePair())...))
	f.Add([]byte("x"))
	f.Fuzz(func(t *testing.T, v []byte) {
		l, diff, ok := DecodeCommit(v)
		if !ok {
			return
		}
		enc := append(EncodeCommit(l, nil), diff...)
		if !bytes.Equal(enc, v) {
			t.Fatalf("round trip of %x: %x", v, enc)
		}
		if d, err := DecodePair(diff); err == nil {
			if !bytes.Equal(EncodeCommit(l, d), append(EncodeCommit(l, nil), EncodePair(d)...)) {
				t.Fatalf("encodeCommit of %x", v)
			}
		}
	})
}

func hashOf(b byte) plumbing.Hash {
	var h plumbing.Hash
	for j := range h {
		h[j] = b
	}
	return h
}
