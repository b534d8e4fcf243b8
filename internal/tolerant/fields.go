package tolerant

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

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
