package refpath

import (
	"path"
	"strings"
)

// Clean trims and cleans a referenced path without judging it: an
// unsafe path stays unsafe for validation to report.
func Clean(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	p = strings.ReplaceAll(p, `\`, "/")
	for { // cleaning can expose spaces ("a /" -> "a "): repeat until stable
		next := strings.TrimSpace(path.Clean(p))
		if next == p {
			break
		}
		p = next
	}
	if p == "." || p == "" {
		return ""
	}
	return p
}

// LooksLikePath tells a file path from a description ("validated story",
// a URL): it must name a folder or have an extension, on one line.
func LooksLikePath(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 1024 || strings.ContainsAny(s, "\n\r") || strings.Contains(s, "://") {
		return false
	}
	if strings.ContainsAny(s, "/\\") {
		return !strings.Contains(s, ": ")
	}
	ext := path.Ext(s)
	if len(ext) < 2 || len(ext) > 9 || strings.Contains(s, " ") {
		return false
	}
	for _, r := range ext[1:] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Output reads a phase output as a path, dropping trailing
// commentary ("docs/stories/4.2.md (Draft)", "spec.md - revised"); ok is
// false for a description or a URL.
func Output(s string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, sep := range []string{" (", " - ", " — ", " # "} {
		if i := strings.Index(s, sep); i > 0 {
			s = strings.TrimSpace(s[:i])
		}
	}
	s = strings.Trim(s, "`'\"")
	return s, LooksLikePath(s)
}

// CleanKeepUnsafe trims a referenced path and cleans it when it is a plain
// relative path. Anything validation must refuse (absolute, escaping the
// repository, control characters, backslashes, drive letters) is kept
// verbatim after trimming so the finding shows what the state wrote.
func CleanKeepUnsafe(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	if strings.ContainsAny(p, "\x00\r\n\\") || strings.HasPrefix(p, "/") || (len(p) > 1 && p[1] == ':') {
		return p
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return p
	}
	return c
}
