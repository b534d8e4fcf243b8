package source

import (
	"encoding/binary"
	"testing"
)

// A ValueReader reads what was written, and a value cut short, past a bound
// or read on after a failure gives zero values and Bad, never a panic.
func TestValueReader(t *testing.T) {
	v := binary.AppendUvarint(nil, 7)
	v = binary.AppendUvarint(v, 3)
	v = append(v, "abc"...)
	v = binary.AppendUvarint(v, 2)
	for _, s := range []string{"x", "yz"} {
		v = binary.AppendUvarint(v, uint64(len(s)))
		v = append(v, s...)
	}
	r := NewValueReader(v)
	if n, s, l := r.U(7), r.Str(3), r.List(2, 2); n != 7 || s != "abc" || len(l) != 2 || l[0] != "x" || l[1] != "yz" || r.Bad || r.Len() != 0 {
		t.Fatalf("read %d %q %q, bad %v, %d left", n, s, l, r.Bad, r.Len())
	}
	for name, read := range map[string]func(r *ValueReader){
		"past the bound":      func(r *ValueReader) { r.U(6) },
		"a string too long":   func(r *ValueReader) { r.U(7); r.Str(2) },
		"a list too long":     func(r *ValueReader) { r.U(7); r.Str(3); r.List(1, 2) },
		"cut short":           func(r *ValueReader) { r.U(7); r.Str(3); r.List(2, 2); r.U(1) },
		"a negative bound":    func(r *ValueReader) { r.U(-1) },
		"strings past a list": func(r *ValueReader) { r.U(7); r.Str(3); r.List(2, 1) },
	} {
		r := NewValueReader(v)
		read(r)
		if !r.Bad {
			t.Errorf("%s: not Bad", name)
		}
		if n, s := r.U(1<<30), r.Str(1<<30); n != 0 || s != "" {
			t.Errorf("%s: read on after Bad gave %d %q", name, n, s)
		}
	}
	for i := range v {
		r := NewValueReader(v[:i])
		r.U(7)
		r.Str(3)
		r.List(2, 2)
		if !r.Bad {
			t.Errorf("cut at %d: not Bad", i)
		}
	}
}
