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

// TestDecodeZlib: a zlib stream is decoded whole (in the buffer given when
// it is large enough), its header counted in what it read; a header that is
// not deflate's, or names a preset dictionary (even the empty one, which
// compress/zlib takes: that reading is left to it), and an empty output are
// refused.
func TestDecodeZlib(t *testing.T) {
	want := bytes.Repeat([]byte("tree 1234\x00 the same bytes again "), 40)
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(want)
	w.Close()
	in := append(z.Bytes(), "after"...)
	var d Decoder
	buf := make([]byte, 0, 2*len(want))
	got, used, ok := d.DecodeZlib(in, len(want), buf)
	if !ok || !bytes.Equal(got, want) || &got[0] != &buf[:1][0] {
		t.Fatalf("DecodeZlib: ok %v, equal %v, in buf %v", ok, bytes.Equal(got, want), ok && &got[0] == &buf[:1][0])
	}
	if used < 2 || used > z.Len()-4 { // the header read, not the checksum
		t.Errorf("used %d of %d", used, z.Len())
	}
	if got, _, ok := d.DecodeZlib(in, len(want), nil); !ok || !bytes.Equal(got, want) {
		t.Error("DecodeZlib without a buffer")
	}
	for _, bad := range [][]byte{nil, {0x78}, {0x78, 0x9d, 3, 0}, {0x79, 0x9c, 3, 0}, {0x78, 0xbb, 0, 0, 0, 1, 3, 0}} {
		if _, _, ok := d.DecodeZlib(bad, 1, nil); ok {
			t.Errorf("DecodeZlib(% x) taken", bad)
		}
	}
	if _, _, ok := d.DecodeZlib(in, 0, nil); ok {
		t.Error("an empty output taken")
	}
}
