package templates

import (
	"reflect"
	"strings"
	"sync"

	"github.com/orchestrate-dev/orchestrate/internal/redact"
	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
)

// Safe is how every string of the data a template renders is shown: secrets
// redacted (internal/redact) and control characters escaped
// (internal/termsafe), so a value read from a file, git or the environment
// can neither leak a secret nor drive the terminal. The template's own text
// (its colours among it) is not touched. See docs/SECURITY.md.
func Safe(s string) string {
	if len(s) > safeMemoLen {
		return safe(s)
	}
	safeMemo.mu.Lock()
	out, ok := safeMemo.m[s]
	safeMemo.mu.Unlock()
	if ok {
		return out
	}
	out = safe(s)
	safeMemo.mu.Lock()
	if len(safeMemo.m) < safeMemoMax {
		if safeMemo.m == nil {
			safeMemo.m = make(map[string]string, 256)
		}
		// its own copy: s may be a slice of a larger text
		k := strings.Clone(s)
		if out == s {
			out = k
		}
		safeMemo.m[k] = out
	}
	safeMemo.mu.Unlock()
	return out
}

func safe(s string) string { return termsafe.String(redact.String(s)) }

// safeMemo holds Safe's answers (a pure function) for short strings, up to
// safeMemoMax of them a process: status shows every row's strings through
// Safe twice (made to fit, then rendered), and redaction is most of a
// large table's rendering (1,000 rows: 16,000 calls, 8,000 of them again).
var safeMemo struct {
	mu sync.Mutex
	m  map[string]string
}

const (
	safeMemoLen = 256
	safeMemoMax = 1 << 15
)

// maxSanitizeDepth bounds the walk of sanitize (a cycle through pointers
// ends there with a zero value).
const maxSanitizeDepth = 64

// sanitizeData returns a deep copy of data with every string passed through
// Safe: strings in structs (exported fields), slices, arrays, maps (keys
// too), pointers and interfaces. Other values are copied as they are.
func sanitizeData(data any) any {
	if data == nil {
		return nil
	}
	return sanitize(reflect.ValueOf(data), 0).Interface()
}

func sanitize(v reflect.Value, depth int) reflect.Value {
	t := v.Type()
	if depth > maxSanitizeDepth {
		return reflect.Zero(t)
	}
	switch v.Kind() {
	case reflect.String:
		nv := reflect.New(t).Elem()
		nv.SetString(Safe(v.String()))
		return nv
	case reflect.Struct:
		nv := reflect.New(t).Elem()
		nv.Set(v)
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).IsExported() {
				nv.Field(i).Set(sanitize(v.Field(i), depth+1))
			}
		}
		return nv
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		nv := reflect.MakeSlice(t, v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			nv.Index(i).Set(sanitize(v.Index(i), depth+1))
		}
		return nv
	case reflect.Array:
		nv := reflect.New(t).Elem()
		for i := 0; i < v.Len(); i++ {
			nv.Index(i).Set(sanitize(v.Index(i), depth+1))
		}
		return nv
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		nv := reflect.MakeMapWithSize(t, v.Len())
		it := v.MapRange()
		for it.Next() {
			nv.SetMapIndex(sanitize(it.Key(), depth+1), sanitize(it.Value(), depth+1))
		}
		return nv
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		nv := reflect.New(t.Elem())
		nv.Elem().Set(sanitize(v.Elem(), depth+1))
		return nv
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		nv := reflect.New(t).Elem()
		nv.Set(sanitize(v.Elem(), depth+1))
		return nv
	}
	return v
}
