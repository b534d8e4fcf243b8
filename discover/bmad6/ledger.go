package bmad6

import (
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
)

// maxKeyLen bounds the keys Prefixes looks into (a key is a few words).
const maxKeyLen = 256

// MaxEntries bounds the development_status entries one ledger yields.
const MaxEntries = 5000

// Entry is one development_status line of a ledger.
type Entry struct {
	Key     string
	Raw     string   // the value as written (quotes stripped); "" for none
	Values  []string // every value the key was given, in file order (duplicates)
	Lines   []int    // 1-based line of each value
	Comment string   // a trailing "# …" comment, kept as ledger_comment
	Archive bool     // the value is a path (an archive pointer), not a status
	// Block numbers the runs of entries between blank or comment lines
	// (a ledger groups an epic, its stories and its retrospective so), and
	// Header is the comment line just above the entry ("# Epic 2: …"),
	// when it is the first of its block; Kinds reads them.
	Block  int
	Header string
}

// Ledger is a parsed sprint-status.yaml.
type Ledger struct {
	Project       string
	StoryLocation string // the story_location header as written
	Entries       []Entry
	// HasDevStatus is true when a top-level development_status map exists:
	// only such a file is a BMAD ledger.
	HasDevStatus bool
	Truncated    bool
}

// ParseLedger reads a ledger line by line (duplicate keys are legal in the
// wild and refuse a strict YAML map): top-level scalar keys, and the
// development_status block, flat ("key: value  # comment") or nested (key
// → a mapping with status).
func ParseLedger(data []byte) *Ledger {
	l := &Ledger{}
	index := map[string]int{}
	inDev := false
	devIndent := -1
	nestedKey := "" // a key opened without a value (nested variant)
	nestedIndent := -1
	block, brk, header := 0, false, "" // the ledger's grouping (Entry.Block, Entry.Header)
	add := func(key, val, comment string, lineNo int) {
		n := len(l.Entries)
		if brk && n > 0 {
			block++
		}
		l.add(index, key, val, comment, lineNo)
		if len(l.Entries) > n { // a new key (not a duplicate)
			l.Entries[n].Block, l.Entries[n].Header = block, header
		}
		brk, header = false, ""
	}
	lines := strings.Split(string(data), "\n")
	for n, line := range lines {
		lineNo := n + 1
		line = strings.TrimRight(line, "\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || trimmed == "---" {
			if inDev {
				brk = true
				if strings.HasPrefix(trimmed, "#") {
					header = oneLine(strings.TrimLeft(trimmed, "#"))
				}
			}
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		key, val, comment, ok := splitLine(trimmed)
		if indent == 0 {
			inDev, nestedKey = false, ""
			if !ok {
				continue
			}
			switch key {
			case "development_status":
				if val == "" {
					inDev, devIndent = true, -1
					l.HasDevStatus = true
				}
			case "project":
				l.Project = val
			case "story_location":
				l.StoryLocation = val
			}
			continue
		}
		if !inDev || !ok {
			continue
		}
		if devIndent < 0 {
			devIndent = indent
		}
		if indent > devIndent {
			// a nested entry's fields
			if nestedKey != "" && indent > nestedIndent && key == "status" {
				add(nestedKey, val, comment, lineNo)
				nestedKey = ""
			}
			continue
		}
		if indent < devIndent {
			continue
		}
		nestedKey = ""
		if val == "" {
			nestedKey, nestedIndent = key, indent
			continue
		}
		add(key, val, comment, lineNo)
	}
	return l
}

func (l *Ledger) add(index map[string]int, key, val, comment string, line int) {
	if i, ok := index[key]; ok {
		e := &l.Entries[i]
		e.Raw = val
		e.Values = append(e.Values, val)
		e.Lines = append(e.Lines, line)
		if comment != "" {
			e.Comment = comment
		}
		e.Archive = strings.Contains(val, "/")
		return
	}
	if len(l.Entries) >= MaxEntries {
		l.Truncated = true
		return
	}
	index[key] = len(l.Entries)
	l.Entries = append(l.Entries, Entry{Key: key, Raw: val, Values: []string{val}, Lines: []int{line}, Comment: comment, Archive: strings.Contains(val, "/")})
}

// splitLine splits "key: value  # comment" (the key and value may be
// quoted; a "#" inside quotes is text).
func splitLine(s string) (key, val, comment string, ok bool) {
	if strings.HasPrefix(s, "- ") {
		return "", "", "", false
	}
	i := keyEnd(s)
	if i < 0 {
		return "", "", "", false
	}
	key = unquote(strings.TrimSpace(s[:i]))
	rest := strings.TrimSpace(s[i+1:])
	if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
		if j := strings.IndexByte(rest[1:], rest[0]); j >= 0 {
			val = rest[1 : j+1]
			after := strings.TrimSpace(rest[j+2:])
			if strings.HasPrefix(after, "#") {
				comment = strings.TrimSpace(after[1:])
			}
			return key, val, comment, key != ""
		}
	}
	if j := strings.Index(rest, " #"); j >= 0 {
		comment = strings.TrimSpace(rest[j+2:])
		rest = strings.TrimSpace(rest[:j])
	} else if strings.HasPrefix(rest, "#") {
		comment = strings.TrimSpace(rest[1:])
		rest = ""
	}
	return key, rest, comment, key != ""
}

// keyEnd is the index of the ':' ending a mapping key (followed by a space
// or the end of the line), outside quotes; -1 when none.
func keyEnd(s string) int {
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			if i == 0 {
				q = c
			}
		case c == '#' && i > 0 && s[i-1] == ' ':
			return -1
		case c == ':' && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t'):
			return i
		}
	}
	return -1
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// Kind of a ledger key.
const (
	KeyStory = "story"
	KeyEpic  = "epic"
	KeyRetro = "retrospective"
)

// KeyKind classifies a development_status key: an epic starts "epic-"
// (and does not end "-retrospective"), a retrospective ends
// "-retrospective", a key that prefixes other keys ("ab-01" beside
// "ab-01-1-login") is an epic, the rest are stories.
func KeyKind(key string, prefixes map[string]bool) string {
	switch {
	case strings.HasSuffix(key, "-retrospective"):
		return KeyRetro
	case strings.HasPrefix(key, "epic-"), prefixes[key]:
		return KeyEpic
	}
	return KeyStory
}

// epicTail matches a key that ends in an epic's numbering ("supp-epic-2",
// "ux_epic_3", "mobile-epic4b"), and epicWord a key with an "epic" segment
// ("supp-epic-payments").
var (
	numbered = lazyre.New(`^\d+[a-z]?-\d+[a-z]?-`) // a numbered story key ("2-4-…", "2b-1-…")
	epicTail = lazyre.New(`(?i)(?:^|[-_])epic[-_]?\d{1,6}[a-z]?$`)
	epicWord = lazyre.New(`(?i)(?:^|[-_])epic(?:[-_]|$)`)
	epicNote = lazyre.New(`(?i)\bepic\b`)
)

// Kinds classifies every entry of a ledger by its key and by the ledger's
// structure (FORMATS rec. 6; issue 21): KeyKind's rules, and an entry that
// is no numbered story ("N-M-…") is an epic too when its key ends in an
// epic's numbering ("supp-epic-2"), or when it heads its block — the first
// entry after a blank or comment line — under an "Epic" comment header or
// with an "epic" segment in its key, and the stories beneath it in that
// block share a first segment it does not have ("supp-epic-payments"
// above "se2-1-…", "se2-2-…"). Such a key is never a story: no candidate,
// no framework pick. ByStructure lists the keys only the structure made
// epics, for the finding that says so.
func Kinds(entries []Entry) (kinds []string, byStructure []string) {
	prefixes := Prefixes(entries)
	kinds = make([]string, len(entries))
	for i, e := range entries {
		kinds[i] = KeyKind(e.Key, prefixes)
		if kinds[i] != KeyStory || len(e.Key) > maxKeyLen || numbered().MatchString(e.Key) {
			continue
		}
		if epicTail().MatchString(e.Key) || headsBlock(entries, i) {
			kinds[i] = KeyEpic
			byStructure = append(byStructure, e.Key)
		}
	}
	return kinds, byStructure
}

// headsBlock reports whether entries[i] heads its block as an epic does
// (see Kinds).
func headsBlock(entries []Entry, i int) bool {
	e := entries[i]
	if i > 0 && entries[i-1].Block == e.Block {
		return false
	}
	if !epicNote().MatchString(e.Header) && !epicWord().MatchString(e.Key) {
		return false
	}
	seg, n := "", 0
	for j := i + 1; j < len(entries) && entries[j].Block == e.Block && n < 1000; j++ {
		k := entries[j].Key
		if strings.HasSuffix(k, "-retrospective") {
			continue
		}
		first, _, ok := strings.Cut(k, "-")
		switch {
		case !ok:
			return false
		case seg == "":
			seg = first
		case first != seg:
			return false
		}
		n++
	}
	return n > 0 && e.Key != seg && !strings.HasPrefix(e.Key, seg+"-")
}

// Prefixes is the set of every proper "-"-bounded prefix of the keys, for
// KeyKind.
func Prefixes(entries []Entry) map[string]bool {
	out := map[string]bool{}
	for _, e := range entries {
		if len(e.Key) > maxKeyLen {
			continue
		}
		for i := 0; i < len(e.Key); i++ {
			if e.Key[i] == '-' {
				out[e.Key[:i]] = true
			}
		}
	}
	return out
}

// StoryID is the id of a story key: its leading segments matching
// \d+[a-z]? joined by "." ("2-4-user-login" → "2.4", "2b-1-x" → "2b.1",
// "6-2-0-x" → "6.2.0"); "" with fewer than two.
func StoryID(key string) string {
	var segs []string
	for _, s := range strings.Split(key, "-") {
		if !numSeg(s) {
			break
		}
		segs = append(segs, s)
	}
	if len(segs) < 2 {
		return ""
	}
	return strings.Join(segs, ".")
}

func numSeg(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i > 9 {
		return false
	}
	return i == len(s) || (i+1 == len(s) && s[i] >= 'a' && s[i] <= 'z')
}
