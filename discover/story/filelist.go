package story

import (
	"strings"
	"unicode"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// fileListLine reads one line of the File List section.
func (s *storyState) fileListLine(lineNo int, line string, blank bool) {
	t := strings.TrimSpace(line)
	if blank || t[0] != '|' {
		s.table = storyTable{}
	}
	if blank {
		return
	}
	var cand string
	if t[0] == '|' {
		cand = s.tableCell(t)
	} else if body, ok := Bullet(t); ok {
		cand = body
	} else {
		return
	}
	p, ok := storyFileListPath(cand)
	if !ok {
		return
	}
	s.addFile(lineNo, p)
}

// addFile keeps a File List path: de-duplicated, in file order, bounded.
func (s *storyState) addFile(lineNo int, p string) {
	clean, ok := storyCleanPath(p)
	if clean == "" {
		return
	}
	if !ok {
		s.unsafe++
		if s.unsafe <= storyMaxPathFindings {
			f := source.ParseFinding(s.path, lineNo, "unsafe-path", "File List path %q is absolute or leaves the repository; ignored", workflow.Truncate(p, 200))
			f.Severity = workflow.Warning
			s.findings = append(s.findings, f)
		}
		return
	}
	if s.fileSeen[clean] {
		return
	}
	if len(s.files) >= storyMaxFileList {
		s.truncated = true
		return
	}
	s.fileSeen[clean] = true
	s.files = append(s.files, clean)
}

// storyCleanPath turns a File List path into a clean repository-relative
// one. Story files write repository paths with a leading "/"
// ("/packages/app/x.ts"): one is dropped, since a File List is
// repository-relative by convention. ok is false for a path that is still
// absolute or leaves the repository; clean is "" for one that names nothing.
func storyCleanPath(p string) (clean string, ok bool) {
	return refpath.Clean(strings.TrimPrefix(strings.ReplaceAll(p, "\\", "/"), "/"))
}

// storyFileListPath extracts the path a File List item names. A
// backtick-quoted path wins ("Extended `src/a.ts` - note"); otherwise the
// link text of a leading markdown link, or the first word, with emphasis
// and trailing punctuation removed. Only things that look like paths (a '/'
// or a file extension) count: not URLs, npm scopes ("@scope/pkg"), globs,
// or words.
func storyFileListPath(item string) (string, bool) {
	if strings.IndexByte(item, '`') >= 0 {
		rest := item
		for {
			i := strings.IndexByte(rest, '`')
			if i < 0 {
				return "", false
			}
			rest = rest[i+1:]
			j := strings.IndexByte(rest, '`')
			if j < 0 {
				return "", false
			}
			span := rest[:j]
			rest = rest[j+1:]
			if p := storyTrimPath(span); storyLooksLikePath(p) {
				return p, true
			}
		}
	}
	t := strings.TrimSpace(item)
	if i := strings.IndexAny(t, " \t"); i >= 0 {
		t = t[:i]
	}
	t = Unemphasize(t)
	if strings.HasPrefix(t, "[") {
		if j := strings.IndexByte(t, ']'); j > 0 {
			t = Unemphasize(t[1:j])
		}
	}
	p := storyTrimPath(storyUnescape(t))
	if !storyLooksLikePath(p) {
		return "", false
	}
	return p, true
}

// storyUnescape removes markdown backslash escapes ("my\_file.ts").
func storyUnescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("_*[]()#+-.!`", s[i+1]) >= 0 {
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// storyTrimPath removes quotes, trailing punctuation and unbalanced
// brackets around a path, one character at a time from either end, in
// linear time.
func storyTrimPath(p string) string {
	if len(p) > 2*storyMaxPathLen {
		return "" // far too long for a path
	}
	p = strings.TrimSpace(p)
	opens, closes := strings.Count(p, "("), strings.Count(p, ")")
	for p != "" {
		first, last := p[0], p[len(p)-1]
		switch {
		case strings.IndexByte(" \t\"',;:.!", last) >= 0:
			p = p[:len(p)-1]
		case last == ')' && closes > opens:
			p = p[:len(p)-1]
			closes--
		case first == ' ' || first == '\t' || first == '"' || first == '\'':
			p = p[1:]
		case first == '(' && opens > closes:
			p = p[1:]
			opens--
		default:
			return p
		}
	}
	return p
}

// storyLooksLikePath reports whether p looks like a file path: none of
// the things a File List mentions that are not files (URLs, npm scopes,
// globs, option flags), and refpath.IsPath, the one rule telling a path
// from an identifier or code ("item.notes" and "obj.method()" are not
// paths).
func storyLooksLikePath(p string) bool {
	if p == "" || len(p) > storyMaxPathLen || p[0] == '@' || p[0] == '-' {
		return false
	}
	if strings.Contains(p, "://") || strings.ContainsAny(p, "*?|<>{}\t\n\r\x00") ||
		strings.Contains(p, " /") || strings.Contains(p, "/ ") || strings.HasPrefix(p, "www.") {
		return false
	}
	for _, r := range p {
		if unicode.IsControl(r) {
			return false
		}
	}
	if !strings.Contains(p, "/") && strings.Contains(p, " ") {
		return false
	}
	return refpath.IsPath(p)
}
