package inflate

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/adler32"
	"io"
	"testing"
)

// TestZlibHeader: compress/zlib's checks and errors (the differential test
// of the whole zlib reading is gitobj's TestInflateAsZlib).
func TestZlibHeader(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want error
	}{
		{nil, io.ErrUnexpectedEOF},
		{[]byte{0x78}, io.ErrUnexpectedEOF},
		{[]byte{0x78, 0x9c}, nil},
		{[]byte{0x78, 0x01}, nil},
		{[]byte{0x78, 0x9d}, zlib.ErrHeader},                 // FCHECK
		{[]byte{0x79, 0x9c}, zlib.ErrHeader},                 // CM 9
		{[]byte{0x88, 0x98}, zlib.ErrHeader},                 // CINFO 8: a 64 KiB window
		{[]byte{0x78, 0xbb, 0, 0}, io.ErrUnexpectedEOF},      // FDICT, truncated id
		{[]byte{0x78, 0xbb, 0, 0, 0, 2}, zlib.ErrDictionary}, // FDICT, a dictionary
		{[]byte{0x78, 0xbb, 0, 0, 0, 1}, nil},                // FDICT, the empty one
	} {
		if got := ZlibHeader(bytes.NewReader(tc.in)); got != tc.want {
			t.Errorf("ZlibHeader(% x) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if binary.BigEndian.Uint16([]byte{0x78, 0xbb})%31 != 0 || adler32.Checksum(nil) != 1 {
		t.Fatal("the table's FDICT header is not a valid one")
	}
}
