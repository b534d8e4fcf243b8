package gitobj

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// SearchIdx binary-searches a version 2 pack index for the hashes that start
// with the hex prefix, reading O(log n) entries.
func SearchIdx(fs billy.Filesystem, name, prefix string) (_ []plumbing.Hash, err error) {
	f, err := fs.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open pack index %s: %w", name, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close pack index %s: %w", name, cerr)
		}
	}()
	const hashLen, fanoutAt, namesAt = 20, 8, 8 + 256*4
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
	readAt := func(b []byte, off int64) error {
		if _, err := f.ReadAt(b, off); err != nil {
			return fmt.Errorf("read pack index %s: %w", name, err)
		}
		return nil
	}
	var fan [2][4]byte // the fan-out's counts before first[0] and at it
	if first[0] > 0 {
		if err := readAt(fan[0][:], fanoutAt+int64(first[0]-1)*4); err != nil {
			return nil, err
		}
	}
	if err := readAt(fan[1][:], fanoutAt+int64(first[0])*4); err != nil {
		return nil, err
	}
	lo, hi := binary.BigEndian.Uint32(fan[0][:]), binary.BigEndian.Uint32(fan[1][:])
	readHash := func(i uint32) (h plumbing.Hash, err error) {
		err = readAt(h[:], namesAt+int64(i)*hashLen)
		return h, err
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

// find binary-searches the index for h and returns its offset in the pack.
func (p *packFile) find(h plumbing.Hash) (int64, bool) {
	off, ok, _ := p.findAt(h)
	return off, ok
}

// findAt is find, and the entry of the index where the search ended (h's,
// or where it would be).
func (p *packFile) findAt(h plumbing.Hash) (int64, bool, int) {
	lo := 0
	if h[0] > 0 {
		lo = int(p.fanout[h[0]-1])
	}
	hi := int(p.fanout[h[0]])
	key := binary.BigEndian.Uint64(h[:8])
	// Hashes are uniform: a few probes by interpolation narrow the range
	// (a hostile index only costs the probes), then the binary search ends
	// it. The entries of [lo, hi) are taken to lie between vlo and vhi: at
	// first those of the fan-out's byte, then the keys probed, so that a
	// probe reads one entry (one cache miss), not the range's ends too.
	vlo := uint64(h[0]) << 56
	vhi := vlo | (1<<56 - 1)
	for probes := 0; probes < 3 && hi-lo > 16; probes++ {
		// m = lo + (key-vlo)*(hi-lo)/(vhi-vlo+1), in 128-bit arithmetic:
		// vlo <= key <= vhi holds, so the quotient is under hi-lo
		up, low := bits.Mul64(key-vlo, uint64(hi-lo))
		q, _ := bits.Div64(up, low, vhi-vlo+1)
		m := lo + int(q)
		switch v := binary.BigEndian.Uint64(p.idx[idxHeaderLen+m*20:]); {
		case v < key:
			lo, vlo = m+1, v
		case v > key:
			hi, vhi = m, v
		default:
			probes = 3 // equal first 8 bytes: the binary search decides
		}
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		name := p.idx[idxHeaderLen+m*20 : idxHeaderLen+m*20+20]
		c := 0
		if v := binary.BigEndian.Uint64(name); v < key {
			c = -1
		} else if v > key {
			c = 1
		} else {
			c = bytes.Compare(name[8:], h[8:])
		}
		switch {
		case c == 0:
			off, ok := p.offset(m)
			return off, ok, m
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return 0, false, lo
}

func (p *packFile) offset(i int) (int64, bool) {
	v := binary.BigEndian.Uint32(p.idx[p.off32+4*i:])
	if v&0x80000000 == 0 {
		return int64(v), true
	}
	at := p.off64 + 8*int(v&0x7fffffff)
	if at+8 > len(p.idx)-40 {
		return 0, false
	}
	off := binary.BigEndian.Uint64(p.idx[at:])
	if off > 1<<62 {
		return 0, false
	}
	return int64(off), true
}
