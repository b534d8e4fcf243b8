package pathglob

import (
	"bytes"
	"io/fs"
	"reflect"
	"testing"
)

// A sorted listing survives the round trip; DecodeListing refuses what
// EncodeListing would not have written.
func TestListingCodec(t *testing.T) {
	ents := []DirEntry{{Name: ".openspec.yaml"}, {Name: "link", Type: fs.ModeSymlink}, {Name: "specs", Type: fs.ModeDir}, {Name: "tasks.md"}}
	got, ok := DecodeListing(EncodeListing(ents))
	if !ok || !reflect.DeepEqual(got, ents) {
		t.Fatalf("round trip: %v %v", got, ok)
	}
	if got, ok := DecodeListing(EncodeListing(nil)); !ok || len(got) != 0 {
		t.Fatalf("empty listing: %v %v", got, ok)
	}
	good := EncodeListing(ents)
	for name, v := range map[string][]byte{
		"empty":      nil,
		"kind":       append([]byte{2}, good[1:]...),
		"unsorted":   EncodeListing([]DirEntry{{Name: "b"}, {Name: "a"}}),
		"repeated":   EncodeListing([]DirEntry{{Name: "a"}, {Name: "a"}}),
		"slash":      EncodeListing([]DirEntry{{Name: "a/b"}}),
		"nul":        EncodeListing([]DirEntry{{Name: "a\x00"}}),
		"dot":        EncodeListing([]DirEntry{{Name: "."}}),
		"empty name": EncodeListing([]DirEntry{{Name: ""}}),
		"not a type": EncodeListing([]DirEntry{{Name: "a", Type: 0o644}}),
		"trailing":   append(append([]byte{}, good...), 0),
		"truncated":  good[:len(good)-1],
		"huge":       {listingTag, 0xff, 0xff, 0xff, 0x7f},
	} {
		if _, ok := DecodeListing(v); ok {
			t.Errorf("%s: decoded", name)
		}
	}
}

// FuzzDecodeListing: any bytes decode without panicking, and what decodes
// is a sorted listing of plain names that encodes back to the same bytes.
func FuzzDecodeListing(f *testing.F) {
	f.Add(EncodeListing([]DirEntry{{Name: "a", Type: fs.ModeDir}, {Name: "b"}}))
	f.Add([]byte{listingTag, 0})
	f.Add([]byte{listingTag, 1, 1, 'a', 0x80})
	f.Fuzz(func(t *testing.T, v []byte) {
		ents, ok := DecodeListing(v)
		if !ok {
			return
		}
		if !bytes.Equal(EncodeListing(ents), v) {
			t.Fatalf("%q decodes to %v, which encodes otherwise", v, ents)
		}
		for i, e := range ents {
			if _, _, ok := DecodeName(append([]byte{byte(len(e.Name))}, e.Name...)); len(e.Name) < 128 && !ok {
				t.Fatalf("name %q is not plain", e.Name)
			}
			if i > 0 && ents[i-1].Name >= e.Name {
				t.Fatalf("not sorted: %v", ents)
			}
		}
	})
}
