package openspec

// The tasks.md parser as it was before its per-line costs were cut (the
// heading and reference expressions, the replacers' copies): the
// reference the differential tests hold the parser to.

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
)

var oldHeadingRe = lazyre.New(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)

// oldParseTasks is ParseTasksIn; detail false skips references and paths.
func oldParseTasks(data []byte, exists func(string) bool, detail bool) Tasks {
	var out Tasks
	group, groupIx := "", -1
	fence, fenceLen, fenceAt := byte(0), 0, 0
	var cur *Task // the last task, for its indented sub-bullets
	curIndent := 0
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	// the tasks made once at (about) their number: grown by appending, a
	// change's tasks left twice their bytes behind for the collector
	if boxes := min(boxLines(text), maxTasks); boxes > 0 {
		out.Tasks = make([]Task, 0, boxes)
	}
	n := 0
	for len(text) > 0 {
		var line string
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			line, text = text, ""
		}
		n++
		line = strings.TrimRight(line, "\r")
		if len(line) > maxLineLen {
			line = cutRunes(line, maxLineLen)
		}
		if m := fenceMatch(line); m != nil {
			switch {
			case fence == 0:
				fence, fenceLen, fenceAt = m[1][0], len(m[1]), n
				cur = nil
				continue
			case m[1][0] == fence && len(m[1]) >= fenceLen && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), string(fence))) == "":
				fence, fenceAt = 0, 0
				continue
			}
		}
		if fence == 0 && strings.HasPrefix(strings.TrimLeft(line, " "), "#") {
			if m := oldHeadingRe().FindStringSubmatch(line); m != nil {
				cur = nil
				if len(m[1]) == 1 {
					group, groupIx = "", -1
					continue
				}
				group, groupIx = oldCleanText(m[2]), -1
				continue
			}
		}
		if m := taskMatch(line); m != nil {
			if len(out.Tasks) >= maxTasks {
				out.Truncated = true
				break
			}
			t := Task{Done: m[1] == "x" || m[1] == "X", Fenced: fence != 0, Column0: column0(line), OtherMarker: m[3] != "", Line: n, Group: group, GroupIx: -1}
			desc := strings.TrimSpace(m[2])
			if num, rest, ok := leadingNumber(desc); ok {
				t.Num = num
				desc = strings.TrimSpace(rest)
			}
			t.Empty = t.Num == "" && strings.TrimSpace(desc) == ""
			t.Item = t.Num
			if t.Item == "" {
				if id, rest, ok := labelID(desc); ok {
					t.Item, desc = id, rest
				} else {
					t.Item = "line " + strconv.Itoa(n)
				}
			}
			t.Title = oneLine(desc)
			if fence != 0 {
				t.GroupIx = -fenceAt - 1 // remembered: an unclosed fence is undone below
			} else {
				if groupIx < 0 && group != "" && len(out.Groups) < maxGroups {
					out.Groups = append(out.Groups, group)
					groupIx = len(out.Groups) - 1
				}
				t.GroupIx = groupIx
				if detail {
					t.Refs = oldAddRefs(nil, desc)
					t.Paths = oldDescPaths(desc, nil, exists)
				}
			}
			out.Tasks = append(out.Tasks, t)
			cur = &out.Tasks[len(out.Tasks)-1]
			curIndent = indentOf(line)
			if fence != 0 {
				cur = nil
			}
			continue
		}
		if cur == nil || fence != 0 || !detail {
			continue
		}
		switch trimmed := strings.TrimSpace(line); {
		case trimmed == "":
		case indentOf(line) > curIndent:
			// a sub-bullet of the task: requirement references and files
			sub := strings.TrimSpace(strings.TrimLeft(trimmed, "-*+"))
			plain := emphasis.Replace(sub)
			plain = strings.Trim(plain, "_ ")
			if fm := filesMatch(plain); fm != nil {
				cur.Paths = filesPaths(fm[1], cur.Paths, exists)
				continue
			}
			cur.Refs = oldAddRefs(cur.Refs, plain)
		default:
			cur = nil
		}
	}
	if fence != 0 {
		// a fence never closed: its boxes count (a stray ``` must not hide
		// real tasks), and they take their place among the groups
		out.UnclosedFence = fenceAt
		for i := range out.Tasks {
			t := &out.Tasks[i]
			if t.Fenced && t.GroupIx == -fenceAt-1 {
				t.Fenced = false
				t.GroupIx = groupIndex(&out, t.Group)
				if detail {
					t.Refs = oldAddRefs(nil, t.Title)
					t.Paths = oldDescPaths(t.Title, nil, exists)
				}
			}
		}
	}
	for i := range out.Tasks {
		if out.Tasks[i].Fenced {
			out.Tasks[i].GroupIx = -1
		}
	}
	if len(out.Tasks) == 0 {
		out.Tasks = nil // as without the estimate: no line was a task
	}
	return out
}

// oldAddRefs adds the requirement reference text holds ("_Requirements: 1.1,
// 2.3_", "(Req: login)", "**Validates: Requirements 2.1**"), bounded.
func oldAddRefs(refs []string, text string) []string {
	if len(refs) >= maxTaskRefs {
		return refs
	}
	if !mayRef(text) {
		return refs
	}
	plain := plainText.Replace(text)
	plain = strings.Trim(plain, "_ ")
	m := refRe().FindStringSubmatch(plain)
	if m == nil {
		return refs
	}
	v := strings.Trim(strings.TrimSpace(m[1]), "_*. ")
	v = strings.TrimPrefix(strings.TrimPrefix(v, "Requirements "), "Requirement ")
	if v == "" {
		return refs
	}
	v = oneLine(v)
	if len(v) > maxRefLen {
		v = cutRunes(v, maxRefLen) + "…"
	}
	for _, r := range refs {
		if r == v {
			return refs
		}
	}
	return append(refs, v)
}

// oldCleanText strips emphasis and decorations from a heading.
func oldCleanText(s string) string {
	s = plainText.Replace(s)
	s = strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.Is(unicode.So, r) || unicode.Is(unicode.Sk, r) || r == '\uFE0F' || r == '\u200D'
	})
	return oneLine(s)
}

// oldDescPaths finds the paths a task's text names: backticked tokens that
// are paths, and bare tokens holding a folder that are paths (a markdown
// link's target included).
func oldDescPaths(desc string, out []string, exists func(string) bool) []string {
	if !strings.Contains(desc, "/") && !strings.Contains(desc, "`") {
		return out
	}
	quoted, plain := backticks(desc)
	for _, q := range quoted {
		if p, ok := pathToken(q, exists); ok {
			out = addPath(out, p)
		}
	}
	for _, w := range strings.Fields(plain) {
		if len(out) >= maxTaskPaths {
			break
		}
		if i := strings.Index(w, "]("); i >= 0 {
			w = w[i+2:]
		}
		tok := strings.TrimRight(strings.TrimLeft(w, "([{\"'*_"), ".,;:!?)]}\"'*_")
		if !strings.Contains(tok, "/") {
			continue
		}
		if p, ok := pathToken(tok, exists); ok {
			out = addPath(out, p)
		}
	}
	return out
}
