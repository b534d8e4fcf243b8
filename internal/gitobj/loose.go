package gitobj

import (
	"bufio"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Loose objects and alternates, read by objectStore (objstore.go) with the
// same bounds as packed objects.

// loose reads h from its loose object file (objects/xx/yyyy…, opened as
// every .git file is, see safeFS): the header's declared size is checked
// against max (unless cut > 0) before the content is inflated, and no more
// than the declared size (or cut bytes) is. errNotHere when there is no such
// file.
func (s *Store) loose(h plumbing.Hash, max uint64, cut int) (plumbing.ObjectType, []byte, bool, error) {
	if s.FS == nil {
		return 0, nil, false, errNotHere
	}
	hex := h.String()
	f, err := s.FS.Open(s.FS.Join("objects", hex[:2], hex[2:]))
	for i := 0; errors.Is(err, fs.ErrNotExist) && i < len(s.alts); i++ {
		f, err = s.alts[i].Open(s.alts[i].Join(hex[:2], hex[2:]))
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil, false, errNotHere
		}
		return 0, nil, false, fmt.Errorf("read loose object %s: %w", h, err)
	}
	defer f.Close()
	typ, data, whole, err := readLoose(f, max, cut)
	if err != nil {
		return 0, nil, false, fmt.Errorf("read loose object %s: %w", h, err)
	}
	return typ, data, whole, nil
}

// readLoose inflates a loose object from r: its "<type> <size>\x00" header,
// then its content (see loose).
func readLoose(r io.Reader, max uint64, cut int) (plumbing.ObjectType, []byte, bool, error) {
	zr, err := zlib.NewReader(r)
	if err != nil {
		return 0, nil, false, err
	}
	defer zr.Close()
	br := bufio.NewReaderSize(zr, 64)
	hdr, err := br.ReadSlice(0)
	if err != nil || len(hdr) > 32 {
		return 0, nil, false, errors.New("bad object header")
	}
	name, num, ok := strings.Cut(string(hdr[:len(hdr)-1]), " ")
	if !ok {
		return 0, nil, false, errors.New("bad object header")
	}
	typ, err := plumbing.ParseObjectType(name)
	if err != nil || typ < plumbing.CommitObject || typ > plumbing.TagObject {
		return 0, nil, false, fmt.Errorf("bad object type %q", name)
	}
	size, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return 0, nil, false, fmt.Errorf("bad object size %q", num)
	}
	n, whole := size, true
	switch {
	case cut > 0 && size > uint64(cut):
		n, whole = uint64(cut), false
	case size > max:
		return 0, nil, false, tooLarge(size, max)
	case size > MaxPackedObject:
		return 0, nil, false, tooLarge(size, MaxPackedObject)
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(br, data); err != nil {
		return 0, nil, false, fmt.Errorf("inflate: %w", err)
	}
	return typ, data, whole, nil
}
