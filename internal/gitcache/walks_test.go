package gitcache

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// FuzzDecodeWalk checks that any value decodes without a panic, and that
// EncodeWalk's values decode back.
func FuzzDecodeWalk(f *testing.F) {
	f.Add([]byte{}, uint8(3), uint8(2))
	f.Add(append([]byte{0, 1}, bytes.Repeat([]byte{1}, 20)...), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, v []byte, npaths, ncommits uint8) {
		paths := make([]string, int(npaths%16))
		for i := range paths {
			paths[i] = fmt.Sprint("p", i%5) // some duplicates
		}
		if out, ok := DecodeWalk(v, paths); ok {
			for p, hs := range out {
				if len(hs) == 0 {
					t.Fatalf("%q: no commit for %s", v, p)
				}
			}
		}
		want := map[string][]plumbing.Hash{}
		for i, p := range paths {
			if i%2 == 0 {
				continue
			}
			for j := 0; j <= int(ncommits%4); j++ {
				var h plumbing.Hash
				h[0], h[1] = byte(i+1), byte(j)
				want[p] = append(want[p], h)
			}
		}
		got, ok := DecodeWalk(EncodeWalk(paths, want), paths)
		if !ok || !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("round trip of %v: %v %v", want, got, ok)
		}
	})
}
