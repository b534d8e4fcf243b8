package gitrepo

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// searchIdx binary-searches a version 2 pack index for the hashes that start
// with the hex prefix, reading O(log n) entries.
func searchIdx(fs billy.Filesystem, name, prefix string) (_ []plumbing.Hash, err error) {
	f, err := fs.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open pack index %s: %w", name, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close pack index %s: %w", name, cerr)
		}
	}()
	const hashLen = 20
	const fanoutAt = 8
	const namesAt = fanoutAt + 256*4
	var header [8]byte
	if _, err := f.ReadAt(header[:], 0); err != nil {
		return nil, fmt.Errorf("read pack index %s: %w", name, err)
	}
	if !bytes.Equal(header[:], []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}) {
		return nil, fmt.Errorf("pack index %s: not a version 2 index", name)
	}
	first, err := hex.DecodeString(prefix[:2])
	if err != nil {
		return nil, fmt.Errorf("prefix %q: %w", prefix, err)
	}
	readU32 := func(off int64) (uint32, error) {
		var b [4]byte
		if _, err := f.ReadAt(b[:], off); err != nil {
			return 0, fmt.Errorf("read pack index %s: %w", name, err)
		}
		return binary.BigEndian.Uint32(b[:]), nil
	}
	lo := uint32(0)
	if first[0] > 0 {
		if lo, err = readU32(fanoutAt + int64(first[0]-1)*4); err != nil {
			return nil, err
		}
	}
	hi, err := readU32(fanoutAt + int64(first[0])*4)
	if err != nil {
		return nil, err
	}
	readHash := func(i uint32) (plumbing.Hash, error) {
		var h plumbing.Hash
		if _, err := f.ReadAt(h[:], namesAt+int64(i)*hashLen); err != nil {
			return h, fmt.Errorf("read pack index %s: %w", name, err)
		}
		return h, nil
	}
	var searchErr error
	i := sort.Search(int(hi-lo), func(k int) bool {
		h, err := readHash(lo + uint32(k))
		if err != nil {
			searchErr = err
			return true
		}
		return h.String() >= prefix
	})
	if searchErr != nil {
		return nil, searchErr
	}
	var out []plumbing.Hash
	for k := lo + uint32(i); k < hi; k++ {
		h, err := readHash(k)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(h.String(), prefix) {
			break
		}
		out = append(out, h)
	}
	return out, nil
}
