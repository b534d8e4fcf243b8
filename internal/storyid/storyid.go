// Package storyid reads story ids ("4.2") out of references and keeps ids
// safe on a command line and in file names: the one id sanitiser.
package storyid

import (
	"path"
	"regexp"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/refpath"
)

// Sanitize keeps an id usable on a command line and in file names:
// letters, digits and ._:@+- are kept, anything else becomes '-'.
func Sanitize(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.TrimSpace(s) {
		ok := r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._:@+-", r))
		if !ok {
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
				dash = true
			}
			continue
		}
		b.WriteRune(r)
		dash = r == '-'
		if b.Len() >= 128 {
			break
		}
	}
	out := strings.Trim(b.String(), "-.")
	if out == "" {
		out = "state"
	}
	return out
}

// NumRe matches the dotted story number ("4.2", "1.10.3") a story file name
// starts with.
var NumRe = regexp.MustCompile(`^(\d+(?:\.\d+)+)`)

// FromRef turns a story reference (an id, or a story file path) into an id
// and the path when it was one.
func FromRef(s string) (id, file string) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 512 || strings.ContainsAny(s, "\n\r\x00") {
		return "", ""
	}
	if strings.Contains(s, "/") || strings.HasSuffix(strings.ToLower(s), ".md") {
		file = refpath.CleanPath(s)
		base := path.Base(file)
		base = strings.TrimSuffix(base, path.Ext(base))
		base = strings.TrimSuffix(base, ".story")
		if m := NumRe.FindStringSubmatch(base); m != nil {
			return m[1], file
		}
		return base, file
	}
	return s, ""
}

// Loose is a story id for loose matching: lower case, without a "story"
// prefix ("STORY-3.4", "story 3.4" and "3.4" match).
func Loose(id string) string {
	s := strings.ToLower(strings.TrimSpace(id))
	if t := strings.TrimPrefix(s, "story"); t != s {
		s = strings.TrimLeft(t, " -_:#")
	}
	return s
}

// EpicNumber is the number of an epic id ("3", "EPIC-3", "epic 3" → "3"),
// or "" when the id holds no number.
func EpicNumber(id string) string {
	s := strings.ToLower(strings.TrimSpace(id))
	if t := strings.TrimPrefix(s, "epic"); t != s {
		s = strings.TrimLeft(t, " -_:#")
	}
	if s == "" {
		return ""
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return ""
		}
	}
	return strings.TrimLeft(s, "0")
}

// SameEpic reports whether two epic ids name the same epic.
func SameEpic(a, b string) bool {
	if na, nb := EpicNumber(a), EpicNumber(b); na != "" || nb != "" {
		return na == nb
	}
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}
