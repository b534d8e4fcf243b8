package gitcache

import (
	"reflect"
	"testing"
)

// TestDecodeChanged: values round-trip, and malformed ones do not decode.
func TestDecodeChanged(t *testing.T) {
	for _, a := range []ChangedAnswer{
		{Max: 200},
		{Max: 1, More: true, Paths: []string{"a"}},
		{Max: 3, Paths: []string{"src/x/one.ts", "é/b", "a.txt"}},
	} {
		got, ok := decodeChanged(encodeChanged(nil, a))
		if !ok || got.Max != a.Max || got.More != a.More || len(got.Paths) != len(a.Paths) ||
			(len(a.Paths) > 0 && !reflect.DeepEqual(got.Paths, a.Paths)) {
			t.Errorf("round trip of %+v: %+v %v", a, got, ok)
		}
	}
	good := encodeChanged(nil, ChangedAnswer{Max: 2, Paths: []string{"ab", "c"}})
	bad := map[string][]byte{
		"empty":          nil,
		"version":        append([]byte{9}, good[1:]...),
		"zero max":       {changedVersion, 0, 0, 0},
		"more 2":         {changedVersion, 2, 2, 0},
		"more than max":  encodeChanged(nil, ChangedAnswer{Max: 1, Paths: []string{"a", "b"}}),
		"empty path":     {changedVersion, 2, 0, 1, 0},
		"truncated":      good[:len(good)-1],
		"left over":      append(append([]byte{}, good...), 'x'),
		"length too big": {changedVersion, 2, 0, 1, 9, 'a'},
	}
	for name, v := range bad {
		if _, ok := decodeChanged(v); ok {
			t.Errorf("%s: decoded", name)
		}
	}
}

// FuzzChangedValue: any value decodes or not without panicking, and what
// decodes encodes to a value that decodes to the same answer.
func FuzzChangedValue(f *testing.F) {
	f.Add(encodeChanged(nil, ChangedAnswer{Max: 3, Paths: []string{"src/x/one.ts", "a.txt"}}))
	f.Add([]byte{changedVersion, 1, 1, 0})
	f.Fuzz(func(t *testing.T, v []byte) {
		a, ok := decodeChanged(v)
		if !ok {
			return
		}
		got, ok := decodeChanged(encodeChanged(nil, a))
		if !ok || !reflect.DeepEqual(got, a) {
			t.Fatalf("%x decodes to %+v, which encodes to a value that decodes to %+v (%v)", v, a, got, ok)
		}
	})
}
