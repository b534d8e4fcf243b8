// Package strmem tells, for tests, whether strings share memory: a value
// kept for a whole run must not hold a substring of a large text it was
// parsed from (discover/kiro's and discover/openspec's settle), since one
// substring keeps the whole text alive (docs/ARCHITECTURE.md, "Sixth pass").
package strmem

import (
	"reflect"
	"unsafe"
)

// Strings returns every non-empty string reachable from v (fields,
// slices, arrays, pointers, maps, interfaces).
func Strings(v any) []string {
	var out []string
	collect(reflect.ValueOf(v), &out)
	return out
}

func collect(v reflect.Value, out *[]string) {
	switch v.Kind() {
	case reflect.String:
		if v.Len() > 0 {
			*out = append(*out, v.String())
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			collect(v.Elem(), out)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			collect(v.Field(i), out)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			collect(v.Index(i), out)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			collect(it.Key(), out)
			collect(it.Value(), out)
		}
	}
}

// Overlap reports whether the bytes of a and b share memory.
func Overlap(a, b string) bool {
	pa, pb := uintptr(unsafe.Pointer(unsafe.StringData(a))), uintptr(unsafe.Pointer(unsafe.StringData(b)))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}
