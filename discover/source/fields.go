package source

import (
	"fmt"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
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

// Wrong records a warning: the value under key is not what the field
// wants.
func (f *Fields) Wrong(key, want string, v any) {
	f.Findings = append(f.Findings, workflow.Finding{
		Check:    workflow.CheckParse,
		Severity: workflow.Warning,
		Code:     "wrong-type",
		Message:  fmt.Sprintf("field %s: want %s, got %s", key, want, tolerant.TypeName(v)),
		Path:     f.Path,
	})
}

// Has reports whether any of keys is present (and not null).
func (f *Fields) Has(m map[string]any, keys ...string) bool {
	_, _, ok := tolerant.Lookup(m, keys)
	return ok
}

// Str returns the first present key as text. Numbers and booleans are
// rendered as text; mappings and lists are a wrong type.
func (f *Fields) Str(m map[string]any, keys ...string) string {
	v, k, ok := tolerant.Lookup(m, keys)
	if !ok {
		return ""
	}
	s, ok := tolerant.ScalarString(v)
	if !ok {
		f.Wrong(k, "text", v)
		return ""
	}
	return s
}

// StrKey is Str that also returns the key it used.
func (f *Fields) StrKey(m map[string]any, keys ...string) (string, string) {
	v, k, ok := tolerant.Lookup(m, keys)
	if !ok {
		return "", ""
	}
	s, ok := tolerant.ScalarString(v)
	if !ok {
		f.Wrong(k, "text", v)
		return "", ""
	}
	return s, k
}

// Int returns the first present key as an integer. Integral floats and
// numeric text are accepted. ok is false when absent or unusable.
func (f *Fields) Int(m map[string]any, keys ...string) (int, bool) {
	v, k, ok := tolerant.Lookup(m, keys)
	if !ok {
		return 0, false
	}
	n, ok := tolerant.ToInt(v)
	if !ok {
		f.Wrong(k, "a whole number", v)
		return 0, false
	}
	return n, true
}

// Bool returns the first present key as a boolean ("true"/"yes" text accepted).
func (f *Fields) Bool(m map[string]any, keys ...string) (bool, bool) {
	v, k, ok := tolerant.Lookup(m, keys)
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
	v, k, ok := tolerant.Lookup(m, keys)
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
	v, k, ok := tolerant.Lookup(m, keys)
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
	return f.textList(m, keys, "a list of text", nil)
}

// textList reads the first present key as Strings does; other, when not
// nil, reads a value that is not text (the whole value or an item) as
// text too: ok false when it is not of its form. A whole value of its form
// that reads as empty text is a wrong type (what it should have been), an
// item of its form that does is skipped.
func (f *Fields) textList(m map[string]any, keys []string, what string, other func(any) (s string, ok bool)) []string {
	v, k, ok := tolerant.Lookup(m, keys)
	if !ok {
		return nil
	}
	if s, ok := tolerant.ScalarString(v); ok {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	l, ok := v.([]any)
	if !ok {
		if other != nil {
			if s, ok := other(v); ok && s != "" {
				return []string{s}
			}
		}
		f.Wrong(k, what, v)
		return nil
	}
	var out []string
	for _, it := range l {
		s, ok := tolerant.ScalarString(it)
		if !ok && other != nil {
			s, ok = other(it)
		}
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
	v, k, ok := tolerant.Lookup(m, keys)
	if !ok {
		return time.Time{}, ""
	}
	t, ok := tolerant.ToTime(v)
	if !ok {
		f.Wrong(k, "a timestamp", v)
		return time.Time{}, ""
	}
	return t, k
}
