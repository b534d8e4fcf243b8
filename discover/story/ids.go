package story

import (
	"path"
	"strings"
)

// StoryIDFromFileName returns the story id a file name carries: the leading
// digits and dots of "4.2.slug.md", "4.2.story.md", "4.2.md" or
// "story-4.2.md" ("4.2"), or "" when it carries none. A bare leading number
// needs at least two parts ("4.2"), so "2024-notes.md" has no id; after a
// "story-" prefix one part is enough.
func StoryIDFromFileName(p string) string {
	base := path.Base(strings.ReplaceAll(p, "\\", "/"))
	name := strings.TrimSuffix(base, ".md")
	minParts := 2
	lower := strings.ToLower(name)
	for _, pre := range []string{"story-", "story_", "story."} {
		if strings.HasPrefix(lower, pre) {
			name = name[len(pre):]
			minParts = 1
			break
		}
	}
	id, parts := storyLeadingNumber(name)
	if parts < minParts {
		return ""
	}
	rest := name[len(id):]
	if rest != "" && rest[0] != '.' && rest[0] != '-' && rest[0] != '_' {
		return ""
	}
	return id
}

// StoryIDFromBase is the id of a story file whose name and title carry no
// story number: its file name without ".md" and a ".story" suffix
// ("AB-C2-05-importer.story.md" is "AB-C2-05-importer").
func StoryIDFromBase(p string) string {
	base := path.Base(strings.ReplaceAll(p, "\\", "/"))
	base = strings.TrimSuffix(base, ".md")
	if b := strings.TrimSuffix(base, ".story"); b != "" {
		base = b
	}
	return base
}

// storyLeadingNumber returns the leading "1.2.3" of s and its number of
// parts.
func storyLeadingNumber(s string) (string, int) {
	i, parts := 0, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		parts++
		i = j
		if i+1 < len(s) && s[i] == '.' && s[i+1] >= '0' && s[i+1] <= '9' {
			i++
			continue
		}
		break
	}
	return s[:i], parts
}

// storyTitle splits a title heading into the story id it names and the
// title text: "Story 4.2: Login" and "Story 4.2 - Login" give ("4.2",
// "Login"), "4.2: Login" gives ("4.2", "Login"), "Login" gives ("",
// "Login"). An id after "Story" is one word with a digit in it, made of
// letters, digits, '.', '-' and '_' ("EPIC-ACT.1").
func storyTitle(h string) (string, string) {
	t := storyPlain(h)
	if t == "" {
		return "", ""
	}
	if len(t) > 5 && strings.EqualFold(t[:5], "story") && (t[5] == ' ' || t[5] == '#') {
		rest := strings.TrimLeft(t[5:], " #")
		end := 0
		for end < len(rest) && rest[end] != ' ' && rest[end] != ':' {
			end++
		}
		id := strings.TrimRight(rest[:end], ".-_")
		if storyIsID(id) {
			return id, storyTitleRest(rest[end:])
		}
		return "", t
	}
	id, parts := storyLeadingNumber(t)
	if parts == 0 {
		return "", t
	}
	rest := t[len(id):]
	switch {
	case strings.HasPrefix(rest, ":"), strings.HasPrefix(rest, " - "), strings.HasPrefix(rest, " — "), strings.HasPrefix(rest, " – "):
		return id, storyTitleRest(rest)
	case parts >= 2 && (rest == "" || rest[0] == ' '):
		return id, storyTitleRest(rest)
	}
	return "", t
}

// storyTitleRest drops the separator between a title's id and its text.
func storyTitleRest(s string) string {
	return strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(s), ":-—– "))
}

// storyIsID reports whether s is usable as a story id taken from a title.
func storyIsID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	digit := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '.', c == '-', c == '_':
		default:
			return false
		}
	}
	return digit
}
