package tolerant

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Fields reads tolerantly from decoded state files: each accessor takes every
// known spelling of a field, accepts the value types real files use, and
// records a "wrong-type" finding (instead of failing) when a field holds
// something unusable.
type Fields struct {
	Path     string
	Findings []workflow.Finding
}

// Lookup returns the value and the key of the first key present in m.
func Lookup(m map[string]any, keys []string) (any, string, bool) {
	if m == nil {
		return nil, "", false
	}
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			return v, k, true
		}
	}
	return nil, "", false
}

// Wrong records a warning: the value under key is not what the field
// wants.
func (f *Fields) Wrong(key, want string, v any) {
	f.Findings = append(f.Findings, workflow.Finding{
		Check:    workflow.CheckParse,
		Severity: workflow.Warning,
		Code:     "wrong-type",
		Message:  fmt.Sprintf("field %s: want %s, got %s", key, want, TypeName(v)),
		Path:     f.Path,
	})
}

// TypeName names the type of a decoded value for a finding ("a list", …).
func TypeName(v any) string {
	switch v.(type) {
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case string:
		return "text"
	case bool:
		return "a boolean"
	case int, int64, float64, uint64:
		return "a number"
	case time.Time:
		return "a timestamp"
	}
	return fmt.Sprintf("%T", v)
}

// Has reports whether any of keys is present (and not null).
func (f *Fields) Has(m map[string]any, keys ...string) bool {
	_, _, ok := Lookup(m, keys)
	return ok
}

// Str returns the first present key as text. Numbers and booleans are
// rendered as text; mappings and lists are a wrong type.
func (f *Fields) Str(m map[string]any, keys ...string) string {
	v, k, ok := Lookup(m, keys)
	if !ok {
		return ""
	}
	s, ok := ScalarString(v)
	if !ok {
		f.Wrong(k, "text", v)
		return ""
	}
	return s
}

// StrKey is Str that also returns the key it used.
func (f *Fields) StrKey(m map[string]any, keys ...string) (string, string) {
	v, k, ok := Lookup(m, keys)
	if !ok {
		return "", ""
	}
	s, ok := ScalarString(v)
	if !ok {
		f.Wrong(k, "text", v)
		return "", ""
	}
	return s, k
}

// ScalarString returns a scalar (text, number, boolean) as text; ok is
// false for a mapping, a list or null.
func ScalarString(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return strings.TrimSpace(t), true
	case bool:
		return strconv.FormatBool(t), true
	case int:
		return strconv.Itoa(t), true
	case int64:
		return strconv.FormatInt(t, 10), true
	case uint64:
		return strconv.FormatUint(t, 10), true
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1e15 {
			return strconv.FormatInt(int64(t), 10), true
		}
		return strconv.FormatFloat(t, 'f', -1, 64), true
	case time.Time:
		return t.UTC().Format(time.RFC3339), true
	}
	return "", false
}

// Int returns the first present key as an integer. Integral floats and
// numeric text are accepted. ok is false when absent or unusable.
func (f *Fields) Int(m map[string]any, keys ...string) (int, bool) {
	v, k, ok := Lookup(m, keys)
	if !ok {
		return 0, false
	}
	n, ok := ToInt(v)
	if !ok {
		f.Wrong(k, "a whole number", v)
		return 0, false
	}
	return n, true
}

// ToInt reads an integer from a number or from text holding one.
func ToInt(v any) (int, bool) {
	switch t := v.(type) {
	case int:
		if t > math.MaxInt32 || t < math.MinInt32 {
			return 0, false
		}
		return t, true
	case int64:
		if t > math.MaxInt32 || t < math.MinInt32 {
			return 0, false
		}
		return int(t), true
	case uint64:
		if t > math.MaxInt32 {
			return 0, false
		}
		return int(t), true
	case float64:
		if t != math.Trunc(t) || math.IsNaN(t) || math.Abs(t) > math.MaxInt32 {
			return 0, false
		}
		return int(t), true
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(t))
		if err != nil || n > math.MaxInt32 || n < math.MinInt32 {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// Bool returns the first present key as a boolean ("true"/"yes" text accepted).
func (f *Fields) Bool(m map[string]any, keys ...string) (bool, bool) {
	v, k, ok := Lookup(m, keys)
	if !ok {
		return false, false
	}
	switch t := v.(type) {
	case bool:
		return t, true
	case string:
		switch strings.ToLower(strings.TrimSpace(t)) {
		case "true", "yes", "y", "1":
			return true, true
		case "false", "no", "n", "0":
			return false, true
		}
	}
	f.Wrong(k, "a boolean", v)
	return false, false
}

// Map returns the first present key as a mapping.
func (f *Fields) Map(m map[string]any, keys ...string) map[string]any {
	v, k, ok := Lookup(m, keys)
	if !ok {
		return nil
	}
	mm, ok := v.(map[string]any)
	if !ok {
		f.Wrong(k, "a mapping", v)
		return nil
	}
	return mm
}

// List returns the first present key as a list. A single scalar or mapping
// is not wrapped: it is a wrong type.
func (f *Fields) List(m map[string]any, keys ...string) []any {
	v, k, ok := Lookup(m, keys)
	if !ok {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		f.Wrong(k, "a list", v)
		return nil
	}
	return l
}

// Strings returns the first present key as a list of text (a single text
// value is accepted as a one-item list; non-text items are skipped with a
// finding).
func (f *Fields) Strings(m map[string]any, keys ...string) []string {
	v, k, ok := Lookup(m, keys)
	if !ok {
		return nil
	}
	if s, ok := ScalarString(v); ok {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	l, ok := v.([]any)
	if !ok {
		f.Wrong(k, "a list of text", v)
		return nil
	}
	var out []string
	for _, it := range l {
		s, ok := ScalarString(it)
		if !ok {
			f.Wrong(k+"[]", "text", it)
			continue
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Time returns the first present key as a time, and the key used. Text in
// RFC 3339 and the common variants, YAML timestamps, and Unix seconds or
// milliseconds are accepted.
func (f *Fields) Time(m map[string]any, keys ...string) (time.Time, string) {
	v, k, ok := Lookup(m, keys)
	if !ok {
		return time.Time{}, ""
	}
	t, ok := ToTime(v)
	if !ok {
		f.Wrong(k, "a timestamp", v)
		return time.Time{}, ""
	}
	return t, k
}

var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	"2006-01-02",
}

// ToTime converts a decoded value to a UTC time.
func ToTime(v any) (time.Time, bool) {
	switch t := v.(type) {
	case time.Time:
		return t.UTC(), true
	case string:
		s := strings.TrimSpace(t)
		for _, l := range timeLayouts {
			if tt, err := time.Parse(l, s); err == nil {
				return tt.UTC(), true
			}
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return unixTime(n)
		}
	case int:
		return unixTime(int64(t))
	case int64:
		return unixTime(t)
	case float64:
		if t == math.Trunc(t) && !math.IsNaN(t) && math.Abs(t) < 1e16 {
			return unixTime(int64(t))
		}
	}
	return time.Time{}, false
}

func unixTime(n int64) (time.Time, bool) {
	switch {
	case n <= 0:
		return time.Time{}, false
	case n > 1e11: // milliseconds
		return time.UnixMilli(n).UTC(), true
	default:
		return time.Unix(n, 0).UTC(), true
	}
}
