package verdict

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// digest is the SHA-256 of a canonical encoding of v: every field of
// every struct (exported or not), in order; maps with their entries sorted
// by their encoded keys; pointers and interfaces by what they hold (an
// interface with its dynamic type's name); times as their instant and
// zone. Two values with the same encoding are equal as validation reads
// them. ok is false for what has no such encoding (a func, a channel, a
// value nested deeper than maxDepth): the caller then keeps no memo.
func digest(v any) (sum [32]byte, ok bool) {
	e := encoder{b: make([]byte, 0, 1024), hashed: true}
	e.value(reflect.ValueOf(v), 0)
	if e.h == nil {
		e.h = sha256.New()
	}
	e.h.Write(e.b)
	copy(sum[:], e.h.Sum(nil))
	return sum, e.ok()
}

// flushAt is how many encoded bytes digest hashes at a time.
const flushAt = 32 << 10

// maxDepth bounds the nesting canon follows (a cycle of pointers ends
// there, unencoded).
const maxDepth = 64

type encoder struct {
	b []byte
	// hashed: b is hashed, written to h (made then) past flushAt bytes
	hashed bool
	h      hash.Hash
	bad    bool
}

// flush writes b to the hash when it holds more than flushAt bytes.
func (e *encoder) flush() {
	if e.hashed && len(e.b) > flushAt {
		if e.h == nil {
			e.h = sha256.New()
		}
		e.h.Write(e.b)
		e.b = e.b[:0]
	}
}

func (e *encoder) ok() bool { return !e.bad }

func (e *encoder) uint(u uint64) { e.b = binary.AppendUvarint(e.b, u) }

func (e *encoder) str(s string) {
	e.uint(uint64(len(s)))
	e.b = append(e.b, s...)
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	refFileType = reflect.TypeFor[[]workflow.RefFile]()
)

func (e *encoder) value(v reflect.Value, depth int) {
	if e.bad {
		return
	}
	e.flush()
	if depth > maxDepth {
		e.bad = true
		return
	}
	if !v.IsValid() {
		e.b = append(e.b, 0)
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			e.b = append(e.b, 1)
		} else {
			e.b = append(e.b, 0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.b = binary.AppendVarint(e.b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.uint(v.Uint())
	case reflect.Float32, reflect.Float64:
		e.uint(math.Float64bits(v.Float()))
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		e.uint(math.Float64bits(real(c)))
		e.uint(math.Float64bits(imag(c)))
	case reflect.String:
		e.str(v.String())
	case reflect.Slice:
		if v.IsNil() {
			e.b = append(e.b, 0)
			return
		}
		e.b = append(e.b, 1)
		if v.Type() == refFileType && v.CanInterface() {
			e.refFiles(v.Interface().([]workflow.RefFile)) // 300 a workflow: no reflection
			return
		}
		e.list(v, depth)
	case reflect.Array:
		e.list(v, depth)
	case reflect.Map:
		e.mapValue(v, depth)
	case reflect.Pointer:
		if v.IsNil() {
			e.b = append(e.b, 0)
			return
		}
		e.b = append(e.b, 1)
		e.value(v.Elem(), depth+1)
	case reflect.Interface:
		if v.IsNil() {
			e.b = append(e.b, 0)
			return
		}
		e.b = append(e.b, 1)
		e.str(v.Elem().Type().String())
		e.value(v.Elem(), depth+1)
	case reflect.Struct:
		if v.Type() == timeType {
			e.time(v)
			return
		}
		for i := range v.NumField() {
			e.value(v.Field(i), depth+1)
		}
	default: // func, chan, unsafe pointer: no encoding
		e.bad = true
	}
}

// time encodes a time.Time (read through its methods: its fields are
// unexported) as its instant and its zone's name and offset.
func (e *encoder) time(v reflect.Value) {
	if !v.CanInterface() { // an unexported field: not read
		e.bad = true
		return
	}
	t := v.Interface().(time.Time)
	e.b = binary.AppendVarint(e.b, t.Unix())
	e.uint(uint64(t.Nanosecond()))
	name, off := t.Zone()
	e.str(name)
	e.b = binary.AppendVarint(e.b, int64(off))
}

func (e *encoder) list(v reflect.Value, depth int) {
	e.uint(uint64(v.Len()))
	if v.Type().Elem().Kind() == reflect.Uint8 && v.Kind() == reflect.Slice {
		e.b = append(e.b, v.Bytes()...)
		return
	}
	for i := range v.Len() {
		e.value(v.Index(i), depth+1)
	}
}

func (e *encoder) mapValue(v reflect.Value, depth int) {
	if v.IsNil() {
		e.b = append(e.b, 0)
		return
	}
	e.b = append(e.b, 1)
	if v.Type().Key().Kind() == reflect.String {
		// string keys (a saved context's JSON objects): sorted as strings
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		e.uint(uint64(len(keys)))
		for _, k := range keys {
			e.str(k.String())
			e.value(v.MapIndex(k), depth+1)
		}
		return
	}
	type kv struct{ k, v []byte }
	pairs := make([]kv, 0, v.Len())
	it := v.MapRange()
	for it.Next() {
		ke := encoder{}
		ke.value(it.Key(), depth+1)
		ve := encoder{}
		ve.value(it.Value(), depth+1)
		if ke.bad || ve.bad {
			e.bad = true
			return
		}
		pairs = append(pairs, kv{ke.b, ve.b})
	}
	slices.SortFunc(pairs, func(a, b kv) int { return compareBytes(a.k, b.k) })
	e.uint(uint64(len(pairs)))
	for _, p := range pairs {
		e.uint(uint64(len(p.k)))
		e.b = append(e.b, p.k...)
		e.uint(uint64(len(p.v)))
		e.b = append(e.b, p.v...)
	}
}

// refFiles is value for a []workflow.RefFile, field by field.
func (e *encoder) refFiles(fs []workflow.RefFile) {
	e.uint(uint64(len(fs)))
	for i := range fs {
		f := &fs[i]
		e.str(f.Path)
		e.str(f.Phase)
		e.str(f.Hash)
		e.str(f.From)
		flags := byte(0)
		if f.Critical {
			flags |= 1
		}
		if f.Produced {
			flags |= 2
		}
		e.b = append(e.b, flags)
	}
}

func compareBytes(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
	}
	return len(a) - len(b)
}
