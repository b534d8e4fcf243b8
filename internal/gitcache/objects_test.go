package gitcache

import (
	"bytes"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// FuzzDecodeObject checks that any value decodes without a panic, and that
// what encodeObject writes decodes back to the same content for its type
// only.
func FuzzDecodeObject(f *testing.F) {
	f.Add([]byte{}, byte(plumbing.TreeObject))
	f.Add([]byte("\x02100644 f\x00aaaaaaaaaaaaaaaaaaaa"), byte(plumbing.TreeObject))
	f.Add([]byte("\x03x"), byte(plumbing.BlobObject))
	f.Fuzz(func(t *testing.T, v []byte, typ byte) {
		tt := plumbing.ObjectType(typ)
		if c, ok := decodeObject(tt, v); ok && !bytes.Equal(c, v[1:]) {
			t.Fatalf("decoded %q from %q", c, v)
		}
		if !tt.Valid() {
			return
		}
		c, ok := decodeObject(tt, encodeObject(tt, v))
		if !ok || !bytes.Equal(c, v) {
			t.Fatalf("round trip of %q: %q %v", v, c, ok)
		}
		other := plumbing.BlobObject
		if tt == other {
			other = plumbing.TreeObject
		}
		if _, ok := decodeObject(other, encodeObject(tt, v)); ok {
			t.Fatalf("a %v decoded as a %v", tt, other)
		}
	})
}
