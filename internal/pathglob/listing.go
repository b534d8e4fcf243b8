package pathglob

import (
	"encoding/binary"
	"io/fs"
	"slices"
	"strings"
)

// A folder's listing, as a cache keeps it (the OpenSpec and Kiro folder
// caches, keyed on the folder's stat): its entries, sorted by name, each
// with its type bits. DecodeListing takes the bytes as hostile.

// listingTag is an encoded listing's first byte.
const listingTag = 1

// MaxListing bounds the entries of an encoded listing (a value past it
// does not decode).
const MaxListing = 1 << 16

// EncodeListing encodes a sorted listing: its kind, its number of entries,
// then each entry's name (length first) and type bits.
func EncodeListing(ents []DirEntry) []byte {
	b := []byte{listingTag}
	b = binary.AppendUvarint(b, uint64(len(ents)))
	for _, e := range ents {
		b = binary.AppendUvarint(b, uint64(len(e.Name)))
		b = append(b, e.Name...)
		b = binary.AppendUvarint(b, uint64(e.Type))
	}
	return b
}

// DecodeListing decodes EncodeListing's value; ok is false for anything
// it would not have written: another kind, a count past MaxListing, a
// name that is no plain name, names out of order or repeated, type bits
// that are no type, or bytes left over.
func DecodeListing(v []byte) (ents []DirEntry, ok bool) {
	if len(v) == 0 || v[0] != listingTag {
		return nil, false
	}
	v = v[1:]
	n, k := Uvarint(v)
	if k <= 0 || n > MaxListing || n > uint64(len(v)) {
		return nil, false
	}
	v = v[k:]
	ents = make([]DirEntry, 0, n)
	for range n {
		name, rest, ok := DecodeName(v)
		if !ok {
			return nil, false
		}
		typ, k := Uvarint(rest)
		if k <= 0 || typ != uint64(fs.FileMode(typ).Type()) {
			return nil, false
		}
		if len(ents) > 0 && ents[len(ents)-1].Name >= name {
			return nil, false
		}
		ents = append(ents, DirEntry{Name: name, Type: fs.FileMode(typ)})
		v = rest[k:]
	}
	if len(v) != 0 {
		return nil, false
	}
	return ents, true
}

// DecodeName reads one length-prefixed plain name (not empty, ".", "..",
// nor holding a slash or a NUL) off v.
func DecodeName(v []byte) (name string, rest []byte, ok bool) {
	l, k := Uvarint(v)
	if k <= 0 || l == 0 || l > uint64(len(v)-k) {
		return "", nil, false
	}
	name = string(v[k : k+int(l)])
	if name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return "", nil, false
	}
	return name, v[k+int(l):], true
}

// SortListing sorts a listing by name, as EncodeListing wants it.
func SortListing(ents []DirEntry) {
	slices.SortFunc(ents, func(a, b DirEntry) int { return strings.Compare(a.Name, b.Name) })
}

// Uvarint is binary.Uvarint taking only the shortest encoding (the one
// binary.AppendUvarint writes): k <= 0 otherwise.
func Uvarint(v []byte) (uint64, int) {
	n, k := binary.Uvarint(v)
	if k > 1 && v[k-1] == 0 {
		return 0, 0
	}
	return n, k
}
