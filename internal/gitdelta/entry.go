package gitdelta

import "errors"

// The header of a pack entry, before its data: the entry's type and size,
// and an offset delta's base offset; each parse bounded by its input.

// EntryHeader parses the type (3 bits: git's object type numbers) and size
// that start an entry in a pack, and returns how many bytes of b they take.
func EntryHeader(b []byte) (typ uint8, size uint64, n int, err error) {
	if len(b) == 0 {
		return 0, 0, 0, errors.New("truncated object header")
	}
	c := b[0]
	i := 1
	typ = (c >> 4) & 7
	size = uint64(c & 0x0f)
	for shift := uint(4); c&0x80 != 0; shift += 7 {
		if i >= len(b) {
			return 0, 0, 0, errors.New("truncated object header")
		}
		c = b[i]
		i++
		if shift > 56 {
			return 0, 0, 0, errors.New("object size overflows")
		}
		size |= uint64(c&0x7f) << shift
	}
	return typ, size, i, nil
}

// BaseOffset parses the base offset of an offset delta (how far before the
// entry its base starts), and returns how many bytes of b it takes.
func BaseOffset(b []byte) (int64, int, error) {
	if len(b) == 0 {
		return 0, 0, errors.New("truncated object header")
	}
	c := b[0]
	i := 1
	rel := int64(c & 0x7f)
	for c&0x80 != 0 {
		if i >= len(b) {
			return 0, 0, errors.New("truncated object header")
		}
		c = b[i]
		i++
		if rel > 1<<48 {
			return 0, 0, errors.New("delta base offset overflows")
		}
		rel = ((rel + 1) << 7) | int64(c&0x7f)
	}
	return rel, i, nil
}
