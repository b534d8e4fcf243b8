package tolerant

import (
	"encoding/binary"
	"math"
	"time"
)

// A compact, exact encoding of the values DecodeYAMLMap gives, so a cache
// can keep a decoded document instead of its text (see
// discover/wfstate/cache.go). Each value is a tag byte and its data:
// nil, false, true; a string (uvarint length, bytes); int, int64 (zigzag
// varint); uint64 (uvarint); float64 (its 8 IEEE bits, little endian, so
// NaN payloads and -0 survive); a list (uvarint count, values); a mapping
// (uvarint count, then key as a string's data and value); a time.Time in
// UTC (zigzag seconds, uvarint nanoseconds). Anything else (a time in
// another zone, a map with other keys, …) is refused by EncodeValue: such a
// document is simply not cached. A time with an offset is refused because
// the YAML decoder (time.Parse) gives it the local zone when the offset is
// the local one, so its value depends on the environment; a time written
// with Z or no zone is in UTC whatever the environment.
const (
	vtNil byte = iota
	vtFalse
	vtTrue
	vtString
	vtInt
	vtInt64
	vtUint64
	vtFloat
	vtList
	vtMap
	vtTimeUTC
)

// maxValueDepth bounds the nesting EncodeValue and DecodeValue accept
// (normalize already cuts values deeper than 2 × MaxDepth).
const maxValueDepth = 2*MaxDepth + 2

// EncodeValue appends the encoding of v to dst; nil (and dst unchanged in
// its content) when v holds a type the encoding does not know or is nested
// deeper than maxValueDepth.
func EncodeValue(dst []byte, v any) []byte {
	out, ok := encodeValue(dst, v, 0)
	if !ok {
		return nil
	}
	return out
}

func encodeValue(b []byte, v any, depth int) ([]byte, bool) {
	if depth > maxValueDepth {
		return b, false
	}
	switch t := v.(type) {
	case nil:
		return append(b, vtNil), true
	case bool:
		if t {
			return append(b, vtTrue), true
		}
		return append(b, vtFalse), true
	case string:
		b = append(b, vtString)
		b = binary.AppendUvarint(b, uint64(len(t)))
		return append(b, t...), true
	case int:
		b = append(b, vtInt)
		return binary.AppendVarint(b, int64(t)), true
	case int64:
		b = append(b, vtInt64)
		return binary.AppendVarint(b, t), true
	case uint64:
		b = append(b, vtUint64)
		return binary.AppendUvarint(b, t), true
	case float64:
		b = append(b, vtFloat)
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(t)), true
	case []any:
		if t == nil {
			return b, false // decodes as an empty list: not exact
		}
		b = append(b, vtList)
		b = binary.AppendUvarint(b, uint64(len(t)))
		for _, x := range t {
			var ok bool
			if b, ok = encodeValue(b, x, depth+1); !ok {
				return b, false
			}
		}
		return b, true
	case map[string]any:
		if t == nil {
			return b, false
		}
		b = append(b, vtMap)
		b = binary.AppendUvarint(b, uint64(len(t)))
		for k, x := range t {
			b = binary.AppendUvarint(b, uint64(len(k)))
			b = append(b, k...)
			var ok bool
			if b, ok = encodeValue(b, x, depth+1); !ok {
				return b, false
			}
		}
		return b, true
	case time.Time:
		return encodeTime(b, t)
	}
	return b, false
}

// encodeTime encodes a time in UTC without a monotonic reading; any
// other is refused.
func encodeTime(b []byte, t time.Time) ([]byte, bool) {
	if t != t.Round(0) || t.Location() != time.UTC {
		return b, false
	}
	b = append(b, vtTimeUTC)
	b = binary.AppendVarint(b, t.Unix())
	return binary.AppendUvarint(b, uint64(t.Nanosecond())), true
}

// DecodeValue decodes what EncodeValue wrote, as untrusted input: false
// for anything that is not exactly one well-formed value (unknown tag,
// truncation, trailing bytes, a count larger than the bytes left, a
// repeated mapping key, nesting deeper than maxValueDepth). The strings
// share one copy of data: nothing returned points into data.
func DecodeValue(data []byte) (any, bool) {
	d := valueDecoder{s: string(data)}
	v, ok := d.value(0)
	if !ok || d.off != len(d.s) {
		return nil, false
	}
	return v, true
}

// DecodeMapValue is DecodeValue for a value that must be a mapping.
func DecodeMapValue(data []byte) (map[string]any, bool) {
	v, ok := DecodeValue(data)
	m, isMap := v.(map[string]any)
	return m, ok && isMap
}

// DecodeMapValueCount is DecodeMapValue that also gives what
// CountEntries(m, limit) gives, counted while decoding instead of by a walk
// of the mapping after: the entries of its lists and mappings at every
// depth CountEntries counts (at most 2 × MaxDepth). Past limit,
// CountEntries stops wherever its walk is, so the count is then its own.
func DecodeMapValueCount(data []byte, limit int) (m map[string]any, entries int, ok bool) {
	d := valueDecoder{s: string(data)}
	v, ok := d.value(0)
	if !ok || d.off != len(d.s) {
		return nil, 0, false
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		return nil, 0, false
	}
	if d.entries > limit {
		return m, CountEntries(m, limit), true
	}
	return m, d.entries, true
}

// DecodeMapValuePrefix decodes the mapping EncodeValue wrote at the start
// of s, as untrusted input (as DecodeValue, but what follows it is left to
// the caller): the mapping and how many bytes of s it took; false when s
// does not start with one well-formed mapping. The strings are views of s.
func DecodeMapValuePrefix(s string) (m map[string]any, n int, ok bool) {
	d := valueDecoder{s: s}
	v, ok := d.value(0)
	m, isMap := v.(map[string]any)
	if !ok || !isMap {
		return nil, 0, false
	}
	return m, d.off, true
}

type valueDecoder struct {
	s       string
	off     int
	entries int // the list and mapping entries at depths CountEntries counts
}

func (d *valueDecoder) uvarint() (uint64, bool) {
	var x uint64
	var shift uint
	for i := 0; i < binary.MaxVarintLen64; i++ {
		if d.off >= len(d.s) {
			return 0, false
		}
		c := d.s[d.off]
		d.off++
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				return 0, false // overflow
			}
			return x | uint64(c)<<shift, true
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, false
}

func (d *valueDecoder) varint() (int64, bool) {
	ux, ok := d.uvarint()
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x, ok
}

// count reads a length or count of items of at least one byte each.
func (d *valueDecoder) count() (int, bool) {
	n, ok := d.uvarint()
	if !ok || n > uint64(len(d.s)-d.off) {
		return 0, false
	}
	return int(n), true
}

func (d *valueDecoder) str() (string, bool) {
	n, ok := d.count()
	if !ok {
		return "", false
	}
	s := d.s[d.off : d.off+n]
	d.off += n
	return s, true
}

func (d *valueDecoder) value(depth int) (any, bool) {
	if depth > maxValueDepth || d.off >= len(d.s) {
		return nil, false
	}
	tag := d.s[d.off]
	d.off++
	switch tag {
	case vtNil:
		return nil, true
	case vtFalse:
		return false, true
	case vtTrue:
		return true, true
	case vtString:
		return d.str()
	case vtInt:
		x, ok := d.varint()
		if !ok || int64(int(x)) != x {
			return nil, false
		}
		return int(x), true
	case vtInt64:
		return d.varint()
	case vtUint64:
		return d.uvarint()
	case vtFloat:
		if len(d.s)-d.off < 8 {
			return nil, false
		}
		var u uint64
		for i := 7; i >= 0; i-- {
			u = u<<8 | uint64(d.s[d.off+i])
		}
		d.off += 8
		return math.Float64frombits(u), true
	case vtTimeUTC:
		sec, ok := d.varint()
		if !ok {
			return nil, false
		}
		nsec, ok := d.uvarint()
		if !ok || nsec >= 1e9 {
			return nil, false
		}
		return time.Unix(sec, int64(nsec)).UTC(), true
	case vtList:
		n, ok := d.count()
		if !ok {
			return nil, false
		}
		if depth <= 2*MaxDepth {
			d.entries += n
		}
		out := make([]any, n)
		for i := range out {
			if out[i], ok = d.value(depth + 1); !ok {
				return nil, false
			}
		}
		return out, true
	case vtMap:
		n, ok := d.count()
		if !ok {
			return nil, false
		}
		if depth <= 2*MaxDepth {
			d.entries += n
		}
		out := make(map[string]any, n)
		for i := 0; i < n; i++ {
			k, ok := d.str()
			if !ok {
				return nil, false
			}
			if _, dup := out[k]; dup {
				return nil, false
			}
			if out[k], ok = d.value(depth + 1); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}
