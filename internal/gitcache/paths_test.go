package gitcache

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// FuzzDecodeEntryValue checks that any value decodes without a panic, and
// that encodeEntryValue's values decode back.
func FuzzDecodeEntryValue(f *testing.F) {
	f.Add([]byte{}, uint32(0o100644), []byte("aaaaaaaaaaaaaaaaaaaa"))
	f.Add([]byte("\x00\x40\x00\x00aaaaaaaaaaaaaaaaaaaa"), uint32(0o40000), []byte{})
	f.Fuzz(func(t *testing.T, v []byte, mode uint32, hash []byte) {
		if e, ok := decodeEntryValue(v); ok && e.OK != (len(v) > 0) {
			t.Fatalf("%q decoded as %+v", v, e)
		}
		var e PathEntry
		if len(hash) > 0 {
			e.OK, e.E.Mode = true, filemode.FileMode(mode)
			copy(e.E.Hash[:], hash)
		}
		got, ok := decodeEntryValue(encodeEntryValue(nil, e))
		if !ok || got != e {
			t.Fatalf("round trip of %+v: %+v %v", e, got, ok)
		}
	})
}
