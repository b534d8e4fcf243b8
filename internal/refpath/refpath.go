// Package refpath cleans the file paths state files and stories reference,
// the same way everywhere, without judging them: validation reports what is
// unsafe.
package refpath

import (
	"path"
	"strings"
)

// Clean is the one rule for a path a state file or a story references: it
// trims the path, turns backslashes into slashes and cleans it ("./a//b"
// and "a/x/../b" become "a/b"; "." becomes ""), repeating until the result
// is stable. safe is false for a path validation must refuse: absolute, a
// drive letter, leaving the repository, or holding control characters (the
// path is cleaned all the same, so two spellings of one unsafe path are one
// reference). Clean never judges whether the file exists.
//
// The formats differ only in what they do around it: a leading "/" in a
// story's File List means the repository root (the story format strips it
// before calling Clean and ignores unsafe paths); epic and QA-loop states
// show an unsafe path as written (KeepUnsafe).
func Clean(p string) (clean string, safe bool) {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	for p != "" { // cleaning can expose spaces ("a /" -> "a "): repeat until stable
		next := strings.TrimSpace(path.Clean(p))
		if next == p {
			break
		}
		p = next
	}
	if p == "." || p == "" {
		return "", true
	}
	unsafe := strings.ContainsAny(p, "\x00\r\n") || strings.HasPrefix(p, "/") || (len(p) > 1 && p[1] == ':') ||
		p == ".." || strings.HasPrefix(p, "../")
	return p, !unsafe
}

// CleanPath is Clean without the verdict.
func CleanPath(p string) string {
	c, _ := Clean(p)
	return c
}

// KeepUnsafe is Clean for a format that shows an unsafe path the way the
// file wrote it: a path Clean finds unsafe, or one written with
// backslashes, is returned trimmed but otherwise verbatim, so that the
// finding validation reports names it as written.
func KeepUnsafe(p string) string {
	t := strings.TrimSpace(p)
	if strings.ContainsRune(t, '\\') {
		return t
	}
	if c, safe := Clean(t); safe {
		return c
	}
	return t
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
