package progress

import (
	"strconv"
	"strings"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// progFence describes a line that may open or close a fenced block.
type progFence struct {
	char   byte
	n      int  // run length, capped at progMaxFence
	closer bool // nothing follows the run
	info   string
}

const progMaxFence = 64

func progFenceOf(line string) (progFence, bool) {
	t := strings.TrimLeft(line, " \t")
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return progFence{}, false
	}
	ch := t[0]
	n := 0
	for n < len(t) && t[n] == ch {
		n++
	}
	if n < 3 {
		return progFence{}, false
	}
	rest := strings.TrimSpace(t[n:])
	if ch == '`' && strings.Contains(rest, "`") {
		return progFence{}, false
	}
	if n > progMaxFence {
		n = progMaxFence
	}
	info := ""
	if f := strings.Fields(rest); len(f) > 0 {
		info = strings.ToLower(strings.Trim(f[0], "{}."))
	}
	return progFence{char: ch, n: n, closer: rest == "", info: info}, true
}

// progSplit splits the file into its sections, list items, fenced blocks
// and messages in one pass. An opening fence with no closing fence after it
// is an ordinary line, so an unclosed block cannot swallow the rest of the
// file.
func progSplit(file, text string) *progDoc {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	sp := &progSplitter{lines: lines, doc: &progDoc{}, sec: progPreamble}
	sp.indexFences()
	for i := 0; i < len(lines); i++ {
		if j, ok := sp.block(i); ok {
			i = j
			continue
		}
		line := lines[i]
		switch {
		case sp.heading(line):
		case sp.sec == progConversation:
			progAddConv(sp.doc, sp.msg, line)
		case sp.sec == progOther:
		case sp.listItem(i, line):
		default:
			sp.plainLine(i, line)
		}
	}
	sp.finish()
	return sp.doc
}

// progSplitter is the state of progSplit's one pass over the lines.
type progSplitter struct {
	lines  []string
	fences map[int]progFence
	// lastCloser[c][n]: the last line holding a closing fence of char c
	// ('`' 0, '~' 1) with a run of at least n.
	lastCloser [2][progMaxFence + 1]int
	doc        *progDoc
	sec        progSection
	last       *progItem // the last top-level item of the section, for nesting
	msg        *progMessage
}

// progFenceIndex is the lastCloser index of a fence character.
func progFenceIndex(ch byte) int {
	if ch == '~' {
		return 1
	}
	return 0
}

// indexFences finds every fence line and, for each fence character and
// run length, the last closing fence.
func (sp *progSplitter) indexFences() {
	for c := range sp.lastCloser {
		for n := range sp.lastCloser[c] {
			sp.lastCloser[c][n] = -1
		}
	}
	sp.fences = make(map[int]progFence)
	for i, l := range sp.lines {
		fc, ok := progFenceOf(l)
		if !ok {
			continue
		}
		sp.fences[i] = fc
		if fc.closer {
			for n := 3; n <= fc.n; n++ {
				sp.lastCloser[progFenceIndex(fc.char)][n] = i
			}
		}
	}
}

// block reads the fenced block opening at line i, if one does (a fence
// with a closing fence after it), and returns its last line.
func (sp *progSplitter) block(i int) (int, bool) {
	fc, ok := sp.fences[i]
	if !ok || sp.lastCloser[progFenceIndex(fc.char)][fc.n] <= i {
		return 0, false
	}
	lines := sp.lines
	j := i + 1
	for ; j < len(lines); j++ {
		if cf, ok := sp.fences[j]; ok && cf.closer && cf.char == fc.char && cf.n >= fc.n {
			break
		}
	}
	body := strings.Join(lines[i+1:min(j, len(lines))], "\n")
	b := progBlock{Info: fc.info, Body: body, Line: i + 1, Section: sp.sec}
	if sp.sec == progConversation {
		progAddConv(sp.doc, sp.msg, lines[i:min(j+1, len(lines))]...)
	} else if last := sp.last; last != nil && last.Value == "" && len(last.Kids) == 0 {
		// "- Variable state:" followed by a fenced block: its value
		last.Value = strings.TrimSpace(body)
		b.Owned = true
	}
	sp.doc.Blocks = append(sp.doc.Blocks, b)
	sp.last = nil
	return j, true
}

// heading handles a heading line: the title, a section, or a message of the
// conversation. It reports whether line is a heading.
func (sp *progSplitter) heading(line string) bool {
	m := progHeadingRe().FindStringSubmatch(strings.TrimLeft(line, " "))
	if m == nil || len(line)-len(strings.TrimLeft(line, " ")) >= 4 {
		return false
	}
	doc := sp.doc
	level := len(m[1])
	name := m[2]
	if level == 1 && doc.Title == "" && sp.sec == progPreamble {
		doc.Title = strings.TrimSpace(name)
		return true
	}
	next, known := progClassify(name)
	if sp.sec == progConversation && !known {
		// a heading inside the conversation: a message, or part of one
		if mm := progMessageRe().FindStringSubmatch(workflow.StripStatus(name)); mm != nil && level >= 3 {
			sp.msg = progNewMessage(mm, name)
			doc.Messages = append(doc.Messages, sp.msg)
			return true
		}
		if level >= 3 && progRoleHeading(name) {
			sp.msg = &progMessage{Role: strings.TrimSpace(workflow.StripStatus(name))}
			doc.Messages = append(doc.Messages, sp.msg)
			return true
		}
		progAddConv(doc, sp.msg, line)
		return true
	}
	if known || level <= 2 {
		sp.sec = next
		sp.last, sp.msg = nil, nil
		if sp.sec == progExecState {
			doc.HasExec = true
		}
	}
	return true
}

// add appends a top-level item to the list of the current section.
func (sp *progSplitter) add(it *progItem) {
	switch sp.sec {
	case progExecState:
		sp.doc.Exec = append(sp.doc.Exec, it)
	case progConfig:
		sp.doc.ConfigItems = append(sp.doc.ConfigItems, it)
	case progPreamble:
		sp.doc.Pre = append(sp.doc.Pre, it)
	default:
		sp.doc.Meta = append(sp.doc.Meta, it)
	}
	sp.last = it
}

// listItem handles a list item of the metadata, the preamble, the
// configuration or the execution state: a "key: value" item, or a nested
// item under an item whose value is a list. It reports whether line is a
// list item.
func (sp *progSplitter) listItem(i int, line string) bool {
	m := progItemRe().FindStringSubmatch(line)
	if m == nil {
		return false
	}
	indent := len(strings.ReplaceAll(m[1], "\t", "    "))
	key, value, ok := progKeyValue(m[2])
	if last := sp.last; last != nil && indent > last.indent && (!ok || last.Value == "") {
		if ok {
			last.Kids = append(last.Kids, map[string]any{key: value})
		} else if s := progCleanName(m[2]); s != "" {
			last.Kids = append(last.Kids, s)
		}
		return true
	}
	if !ok {
		sp.last = nil
		return true
	}
	sp.add(newProgItem(key, value, i+1, indent))
	return true
}

// plainLine handles a line that is neither a heading nor a list item: a
// flow list or mapping continued on indented lines, or a "**Status:**
// paused" line of its own in the preamble or the metadata.
func (sp *progSplitter) plainLine(i int, line string) {
	trimmed := strings.TrimSpace(line)
	if trimmed == "" {
		return
	}
	if last := sp.last; last != nil && last.flow.open() && line != trimmed {
		last.more = append(last.more, trimmed)
		last.flow.feed("\n" + trimmed)
		return
	}
	if (sp.sec == progPreamble || sp.sec == progMetadata) && strings.HasPrefix(trimmed, "**") {
		if key, value, ok := progKeyValue(trimmed); ok {
			sp.add(newProgItem(key, value, i+1, 0))
			return
		}
	}
	sp.last = nil
}

// finish joins continuation lines to their items and takes the items
// before the first section as the metadata list when they name at least
// one metadata field (else they are some other list).
func (sp *progSplitter) finish() {
	doc := sp.doc
	for _, items := range [][]*progItem{doc.Pre, doc.Meta, doc.Exec, doc.ConfigItems} {
		for _, it := range items {
			if len(it.more) > 0 {
				it.Value += "\n" + strings.Join(it.more, "\n")
				it.more = nil
			}
		}
	}
	for _, it := range doc.Pre {
		if progMetaKey(it.Norm) {
			doc.Meta = append(doc.Pre, doc.Meta...)
			break
		}
	}
}

// progMetaKey reports whether a normalised key is a known metadata field.
func progMetaKey(k string) bool {
	for _, keys := range [][]string{progIDKeys, progWorkflowKeys, progStatusKeys, progUpdatedKeys, progStartedKeys, progReasonKeys} {
		for _, x := range keys {
			if k == x {
				return true
			}
		}
	}
	return false
}

func progNewMessage(mm []string, heading string) *progMessage {
	msg := &progMessage{}
	if mm[1] != "" {
		msg.N, _ = strconv.Atoi(mm[1])
	}
	msg.Role = strings.TrimSpace(mm[2])
	if msg.Role == "" {
		msg.Role = strings.TrimSpace(mm[3])
	}
	if msg.Role == "" && msg.N == 0 {
		msg.Role = strings.TrimSpace(heading)
	}
	return msg
}

// progRoleHeading reports whether a heading names a conversation role.
func progRoleHeading(name string) bool {
	n := progNorm(workflow.StripStatus(name))
	for _, role := range []string{"user", "assistant", "system", "tool", "ai", "human", "model"} {
		if n == role || strings.HasPrefix(n, role+"_") {
			return true
		}
	}
	return false
}

func progAddConv(doc *progDoc, msg *progMessage, lines ...string) {
	if msg != nil {
		msg.Content = append(msg.Content, lines...)
		return
	}
	doc.ConvText = append(doc.ConvText, lines...)
}

// progClassify maps a heading to the section it starts; known is false for
// a heading that names none of the progress file's parts.
func progClassify(heading string) (progSection, bool) {
	n := progNorm(workflow.StripStatus(heading))
	has := func(s string) bool { return strings.Contains(n, s) }
	switch {
	case has("metadata"):
		return progMetadata, true
	case has("configuration") || n == "config" || n == "settings" || has("parameters"):
		return progConfig, true
	case has("conversation") || n == "history" || n == "messages" || has("message_history"):
		return progConversation, true
	case has("execution_state") || has("resume_state") || n == "state" || n == "current_state" || has("execution_progress") || n == "checkpoint":
		return progExecState, true
	}
	return progOther, false
}

// progKeyValue splits "**Key**: value", "**Key:** value" or "Key: value".
func progKeyValue(s string) (key, value string, ok bool) {
	s = strings.TrimSpace(s)
	for _, em := range []string{"**", "__"} {
		if strings.HasPrefix(s, em) {
			end := strings.Index(s[len(em):], em)
			if end < 0 {
				break
			}
			key = s[len(em) : len(em)+end]
			rest := strings.TrimSpace(s[len(em)+end+len(em):])
			switch {
			case strings.HasSuffix(strings.TrimSpace(key), ":"):
				key = strings.TrimSuffix(strings.TrimSpace(key), ":")
			case strings.HasPrefix(rest, ":"):
				rest = strings.TrimSpace(rest[1:])
			default:
				return "", "", false
			}
			key = strings.TrimSpace(key)
			if key == "" || len(key) > 60 {
				return "", "", false
			}
			return key, rest, true
		}
	}
	i := strings.Index(s, ":")
	if i <= 0 || i > 60 {
		return "", "", false
	}
	key = strings.TrimSpace(strings.Trim(s[:i], "*_`"))
	if key == "" || strings.ContainsAny(key, "/\\{}[]\"") || strings.HasPrefix(s[i:], "://") {
		return "", "", false
	}
	return key, strings.TrimSpace(s[i+1:]), true
}
