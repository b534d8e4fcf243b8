package progress

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// ProgressSource finds progress files (DESIGN §3, priority 3; the format of
// seeds/002): a markdown file with an execution metadata list, a YAML
// configuration block, the conversation history and the execution state.
// Every file found is a candidate: one that is not in that format was still
// put where progress files live, so it is an "unreadable" candidate with a
// blocking parse finding.
type ProgressSource struct{}

// Kind is workflow.KindProgress.
func (ProgressSource) Kind() string { return workflow.KindProgress }

// Priority is workflow.PriorityWorkflow (progress files share priority 3).
func (ProgressSource) Priority() int { return workflow.PriorityWorkflow }

// Scan reads every configured progress file. All findings are attached to
// their candidate.
func (ProgressSource) Scan(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
	var out []workflow.Candidate
	for _, file := range r.Glob(r.Config.Sources.Progress, false) {
		if strings.HasSuffix(file, ".bak") {
			continue
		}
		var c workflow.Candidate
		data, err := r.Read(file)
		if err != nil {
			c = progUnreadable(file, source.ReadFinding(file, err))
		} else {
			c, _ = ParseProgress(file, data)
		}
		if c.UpdatedAt.IsZero() {
			if mt := r.ModTime(file); !mt.IsZero() {
				c.UpdatedAt, c.UpdatedFrom = mt, "mtime"
			}
		}
		if r.Exists(file + ".bak") {
			c.BackupPath = file + ".bak"
		}
		out = append(out, c)
	}
	return out, nil
}

// Context keys a progress candidate fills (each only when the file has it).
const (
	ProgressCtxConfiguration  = "configuration"   // map: the decoded YAML configuration block
	ProgressCtxMetadata       = "metadata"        // map: every metadata item, key normalised, value as text
	ProgressCtxExecutionState = "execution_state" // map: every execution state item (text, list or mapping)
	ProgressCtxVariables      = "variables"       // map: the decoded variable state
	ProgressCtxConversation   = "conversation"    // list of {n, role, content}
	ProgressCtxReason         = "reason"          // text: why the run stopped
	ProgressCtxWorkflowFile   = "workflow_file"   // text: the workflow prompt file the metadata names
	ProgressCtxTitle          = "title"           // text: the level-1 heading
)

// progMaxSteps bounds the steps one progress file contributes.
const progMaxSteps = 1000

// progMaxName bounds a step or workflow name, in bytes.
const progMaxName = 200

// progSection is the part of a progress file a line belongs to.
type progSection int

const (
	progPreamble progSection = iota
	progMetadata
	progConfig
	progConversation
	progExecState
	progOther
)

// progItem is one "- Key: value" list item, with nested items and
// continuation lines folded into it.
type progItem struct {
	Key    string // as written, emphasis removed
	Norm   string // normalised key
	Value  string // the text after the colon (continuation lines joined)
	Kids   []any  // nested list items without a key of their own
	Line   int
	indent int
	more   []string     // continuation lines, joined to Value at the end
	flow   progFlowScan // bracket state of Value and its continuation lines
}

// progFlowScan follows the bracket nesting of a flow list or mapping
// written over several lines, one line at a time.
type progFlowScan struct {
	started    bool // the value starts with '[' or '{'
	depth      int
	inStr, esc bool
}

func (p *progFlowScan) feed(s string) {
	for i := 0; i < len(s); i++ {
		b := s[i]
		if p.inStr {
			switch {
			case p.esc:
				p.esc = false
			case b == '\\':
				p.esc = true
			case b == '"':
				p.inStr = false
			}
			continue
		}
		switch b {
		case '"':
			p.inStr = true
		case '{', '[':
			p.depth++
		case '}', ']':
			p.depth--
		}
	}
}

// open reports whether the value is a flow list or mapping not closed yet.
func (p *progFlowScan) open() bool { return p.started && p.depth > 0 }

func newProgItem(key, value string, line, indent int) *progItem {
	it := &progItem{Key: key, Norm: progNorm(key), Value: value, Line: line, indent: indent}
	if v := strings.TrimSpace(value); v != "" && (v[0] == '[' || v[0] == '{') {
		it.flow.started = true
		it.flow.feed(v)
	}
	return it
}

// progBlock is a fenced code block.
type progBlock struct {
	Info    string // the info string's first word, lower-cased
	Body    string
	Line    int // line of the opening fence
	Section progSection
	Owned   bool // the value of the list item above it
}

// progMessage is one message of the conversation history.
type progMessage struct {
	N       int
	Role    string
	Content []string
}

// progDoc is a progress file split into its parts.
type progDoc struct {
	Title       string
	Meta        []*progItem
	Exec        []*progItem
	Blocks      []progBlock
	Messages    []*progMessage
	ConvText    []string    // conversation lines before any message heading
	HasExec     bool        // an execution state heading was seen
	Pre         []*progItem // "key: value" items before the first section
	ConfigItems []*progItem
}

var (
	progHeadingRe = regexp.MustCompile(`^(#{1,6})[ \t]+(.*?)[ \t#]*$`)
	progItemRe    = regexp.MustCompile(`^([ \t]*)(?:[-*+]|\d{1,3}[.)])[ \t]+(.*)$`)
	progMessageRe = regexp.MustCompile(`(?i)^message\s*#?\s*(\d{1,6})?\s*(?:[:\-—]\s*)?(?:\((.*)\))?\s*(.*)$`)
	progStepRe    = regexp.MustCompile(`(?i)^(?:step\s*)?(\d{1,6})(?:\s*(?:of|/|out of)\s*(\d{1,6}))?\s*(?:[-:—(]\s*(.*?)\)?)?$`)
)

// ParseProgress parses a progress file (seeds/002) into a candidate. It
// never fails and never touches the file system: a file that is not in the
// format (no metadata list and no execution state) or is not valid UTF-8 is a
// candidate with status "unreadable" and a blocking parse finding. The
// findings returned are the candidate's own (also in Candidate.Findings).
// The file's modification time (when it records no update time) is added
// by Scan.
func ParseProgress(path string, data []byte) (workflow.Candidate, []workflow.Finding) {
	if !utf8.Valid(data) {
		c := progUnreadable(path, source.ParseFinding(path, tolerant.FirstInvalidLine(data), "invalid-utf8", "not valid UTF-8 text"))
		return c, c.Findings
	}
	doc := progSplit(path, string(data))
	if len(doc.Meta) == 0 && len(doc.Exec) == 0 && !progExecBlock(doc) {
		what := "no execution metadata list (\"- **Status**: paused\") and no execution state (\"## Execution State\" with \"- Completed tools: […]\")"
		if doc.HasExec {
			what = "no execution metadata list (\"- **Status**: paused\"), and the execution state section lists nothing"
		}
		c := progUnreadable(path, source.ParseFinding(path, 0, "not-progress", "not a progress file: %s", what))
		return c, c.Findings
	}
	c := progBuild(path, doc)
	return c, c.Findings
}

// progUnreadable is the candidate of a progress file that cannot be read or
// is not in the progress format.
func progUnreadable(file string, f workflow.Finding) workflow.Candidate {
	key := storyid.Sanitize(source.Stem(file))
	return workflow.Candidate{
		ID:        "progress:" + key,
		Type:      workflow.TypeProgress,
		Key:       key,
		Source:    workflow.SourceRef{Kind: workflow.KindProgress, Path: file, Priority: workflow.PriorityWorkflow},
		Workflow:  "progress",
		Stories:   []string{},
		Status:    "unreadable",
		Resumable: true,
		Findings:  []workflow.Finding{f},
	}
}

// progExecBlock reports whether the execution state section holds a fenced
// block (YAML or JSON) instead of a list: a block tagged yaml or json, or an
// untagged one that decodes as a mapping.
func progExecBlock(doc *progDoc) bool {
	for _, b := range doc.Blocks {
		if b.Section != progExecState || b.Owned || !progDataInfo(b.Info) || strings.TrimSpace(b.Body) == "" {
			continue
		}
		if b.Info != "" {
			return true
		}
		if _, err := tolerant.DecodeYAMLMap([]byte(b.Body)); err == nil {
			return true
		}
	}
	return false
}

func progDataInfo(info string) bool {
	switch info {
	case "", "yaml", "yml", "json", "jsonc":
		return true
	}
	return false
}

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
	m := progHeadingRe.FindStringSubmatch(strings.TrimLeft(line, " "))
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
		if mm := progMessageRe.FindStringSubmatch(workflow.StripStatus(name)); mm != nil && level >= 3 {
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
	m := progItemRe.FindStringSubmatch(line)
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

// ProgressKey normalises a progress-file key or heading: lower case, every
// run of characters other than letters and digits turned into one '_'
// ("Last Updated" → "last_updated"). Patch uses it too, so that parse and
// patch read the same key as the same field.
func ProgressKey(s string) string { return progNorm(s) }

// progNorm is ProgressKey.
func progNorm(s string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && r != utf8.RuneError {
			b.WriteRune(r)
			under = false
			continue
		}
		if !under && b.Len() > 0 {
			b.WriteByte('_')
			under = true
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}

// progCleanName trims a step or value name: whitespace, quotes, backticks,
// emphasis, and bounds its length.
func progCleanName(s string) string {
	s = strings.TrimSpace(s)
	for {
		t := strings.TrimSpace(strings.Trim(s, "\"'`*"))
		if t == s {
			break
		}
		s = t
	}
	if len(s) > progMaxName {
		s = workflow.Truncate(s, progMaxName)
	}
	return s
}

// progItems turns items into a mapping keyed by the normalised key (the
// first of each key wins), with values as text or lists, for Fields. With
// decode, values written as JSON/YAML flow lists or mappings are decoded.
func progItems(items []*progItem, decode bool) (map[string]any, map[string]*progItem) {
	m := map[string]any{}
	byKey := map[string]*progItem{}
	for _, it := range items {
		if it.Norm == "" {
			continue
		}
		if _, dup := byKey[it.Norm]; dup {
			continue
		}
		byKey[it.Norm] = it
		switch {
		case it.Value == "" && len(it.Kids) > 0:
			m[it.Norm] = append([]any(nil), it.Kids...)
		default:
			m[it.Norm] = it.Value
			if decode {
				if d, ok := progDecodeValue(it.Value); ok {
					m[it.Norm] = d
				}
			}
		}
	}
	return m, byKey
}

// progDecodeValue decodes an inline value written as a JSON or YAML flow
// list or mapping; ok is false for plain text or text that does not decode.
func progDecodeValue(s string) (any, bool) {
	s = strings.TrimSpace(s)
	if s == "" || (s[0] != '[' && s[0] != '{') {
		return nil, false
	}
	if v, err := tolerant.DecodeJSON([]byte(s)); err == nil {
		return v, true
	}
	m, err := tolerant.DecodeYAMLMap([]byte("v: " + strings.ReplaceAll(s, "\n", "\n  ")))
	if err != nil {
		return nil, false
	}
	v, ok := m["v"]
	if !ok {
		return nil, false
	}
	switch v.(type) {
	case []any, map[string]any:
		return v, true
	}
	return nil, false
}

// progList reads a list of names: a JSON/YAML flow list, nested items, or
// comma-separated text. Mapping items give their name/tool/id/step.
func progList(f *tolerant.Fields, key string, v any) []string {
	switch t := v.(type) {
	case nil:
		return nil
	case string:
		if d, ok := progDecodeValue(t); ok {
			if _, isMap := d.(map[string]any); isMap {
				f.Wrong(key, "a list", d)
				return nil
			}
			return progList(f, key, d)
		}
		s := strings.TrimSpace(t)
		if strings.HasPrefix(s, "[") {
			f.Findings = append(f.Findings, workflow.Finding{
				Check: workflow.CheckParse, Severity: workflow.Warning, Code: "bad-list", Path: f.Path,
				Message: fmt.Sprintf("%s: %q is not a well-formed list; read as comma-separated names", key, workflow.Truncate(s, 80)),
			})
			s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
		}
		switch strings.ToLower(s) {
		case "", "none", "n/a", "-", "—", "nothing", "(none)":
			return nil
		}
		var out []string
		for _, part := range strings.Split(s, ",") {
			if n := progCleanName(part); n != "" {
				out = append(out, n)
			}
		}
		return out
	case []any:
		var out []string
		for _, it := range t {
			switch x := it.(type) {
			case map[string]any:
				g := &tolerant.Fields{Path: f.Path}
				n := g.Str(x, "name", "tool", "step", "id", "operation", "phase")
				if n == "" && len(x) == 1 {
					for k := range x { // a nested "- name: detail" item
						n = k
					}
				}
				if n == "" {
					f.Wrong(key+"[]", "a name", x)
					continue
				}
				out = append(out, progCleanName(n))
			default:
				s, ok := tolerant.ScalarString(x)
				if !ok {
					f.Wrong(key+"[]", "a name", x)
					continue
				}
				if n := progCleanName(s); n != "" {
					out = append(out, n)
				}
			}
		}
		return out
	}
	if s, ok := tolerant.ScalarString(v); ok {
		return progList(f, key, s)
	}
	f.Wrong(key, "a list", v)
	return nil
}

// progLookup returns the first present key of m (nil when none).
func progLookup(m map[string]any, keys ...string) (any, string) {
	v, k, _ := tolerant.Lookup(m, keys)
	return v, k
}

var (
	progIDKeys        = []string{"session_id", "session", "execution_id", "run_id", "progress_id", "id", "workflow_run_id"}
	progWorkflowKeys  = []string{"workflow_id", "workflow", "definition", "workflow_definition", "workflow_file"}
	progStatusKeys    = []string{"status", "state", "execution_status", "workflow_status"}
	progUpdatedKeys   = []string{"last_updated", "updated", "updated_at", "last_update", "last_checkpoint", "checkpoint", "checkpoint_at", "saved_at", "paused_at", "failed_at", "interrupted_at"}
	progStartedKeys   = []string{"started", "started_at", "start", "start_time", "created", "created_at"}
	progReasonKeys    = []string{"reason", "stop_reason", "interruption_reason", "error", "last_error"}
	progCompletedKeys = []string{"completed_tools", "completed_steps", "completed_operations", "completed_phases", "completed", "done", "completed_tasks"}
	progPendingKeys   = []string{"pending_operations", "pending_steps", "pending_tools", "pending_phases", "pending", "remaining", "remaining_steps", "remaining_operations", "next_operations"}
	progCurrentKeys   = []string{"current_operation", "current_tool", "current_phase", "in_progress", "running", "current_task", "active_operation", "failed_operation", "failed_tool"}
	progStepKeys      = []string{"current_step", "step", "progress"}
	progVarKeys       = []string{"variable_state", "variables", "vars", "context", "variable"}
)

// progFields are the fields of a progress file: its metadata and execution
// state items, normalised, with the lines they stand on.
type progFields struct {
	file                 string
	f                    *tolerant.Fields
	meta, exec           map[string]any
	metaItems, execItems map[string]*progItem
}

// progReadFields collects the metadata and execution state items; a fenced
// YAML/JSON block in the execution state adds the keys the list lacks.
func progReadFields(file string, doc *progDoc) *progFields {
	p := &progFields{file: file, f: &tolerant.Fields{Path: file}}
	p.meta, p.metaItems = progItems(doc.Meta, false)
	p.exec, p.execItems = progItems(doc.Exec, true)
	for _, b := range doc.Blocks {
		if b.Section != progExecState || b.Owned || !progDataInfo(b.Info) || strings.TrimSpace(b.Body) == "" {
			continue
		}
		m, err := tolerant.DecodeYAMLMap([]byte(b.Body))
		if err != nil {
			if b.Info != "" { // an untagged block may be anything
				p.f.Findings = append(p.f.Findings, progBlockFinding(file, b, "execution state", err))
			}
			continue
		}
		for k, v := range m {
			n := progNorm(k)
			if _, ok := p.exec[n]; !ok && n != "" {
				p.exec[n] = v
			}
		}
	}
	return p
}

// both looks keys up in the metadata, then in the execution state.
func (p *progFields) both(keys []string) (any, string) {
	if v, k := progLookup(p.meta, keys...); k != "" {
		return v, k
	}
	return progLookup(p.exec, keys...)
}

// str is both as text (a warning when the value is not text).
func (p *progFields) str(keys []string) (string, string) {
	v, k := p.both(keys)
	if k == "" {
		return "", ""
	}
	s, ok := tolerant.ScalarString(v)
	if !ok {
		p.f.Wrong(k, "text", v)
		return "", ""
	}
	return s, k
}

// progBuild turns a parsed progress file into a candidate.
func progBuild(file string, doc *progDoc) workflow.Candidate {
	p := progReadFields(file, doc)
	c := workflow.Candidate{
		Type:     workflow.TypeProgress,
		Source:   workflow.SourceRef{Kind: workflow.KindProgress, Path: file, Priority: workflow.PriorityWorkflow},
		Workflow: "progress",
		Stories:  []string{},
		Context:  map[string]any{},
	}
	p.identify(&c)
	p.status(&c)
	p.plainFields(&c, doc)
	progConfiguration(&c, p.f, doc)
	if conv := progConversationList(doc); len(conv) > 0 {
		c.Context[ProgressCtxConversation] = conv
	}
	progSteps(&c, p.f, p.exec, p.execItems)
	p.files(&c)
	if len(c.Files) == 0 {
		c.Files = nil
	}
	if len(c.Context) == 0 {
		c.Context = nil
	}
	c.Findings = append(c.Findings, p.f.Findings...)
	return c
}

// identify sets the key and id (the session id, else the file name) and
// the workflow: a definition id, or the workflow prompt file it runs.
func (p *progFields) identify(c *workflow.Candidate) {
	key, _ := p.str(progIDKeys)
	if key == "" {
		key = source.Stem(p.file)
	}
	c.Key = storyid.Sanitize(key)
	c.ID = "progress:" + c.Key
	if wf, _ := p.str(progWorkflowKeys); wf != "" {
		wf = progCleanName(wf)
		if progIsDefID(wf) {
			c.Workflow = wf
			if alias := source.AliasDef(wf); alias != "" {
				c.Workflow = alias
			}
		} else {
			c.Context[ProgressCtxWorkflowFile] = wf
		}
	}
}

// status sets the status; a missing, ambiguous or unknown one is treated as
// interrupted, with a finding.
func (p *progFields) status(c *workflow.Candidate) {
	raw, _ := p.str(progStatusKeys)
	c.StatusRaw = raw
	status := progStatus(raw)
	finding := func(sev workflow.Severity, code, msg string, line int) {
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: sev, Code: code, Path: p.file, Line: line, Message: msg,
		})
	}
	switch {
	case raw == "":
		status = "unknown"
		finding(workflow.Info, "no-status", "the progress file records no status; treated as interrupted", 0)
	case status == "":
		status = "unknown"
		finding(workflow.Warning, "ambiguous-status",
			fmt.Sprintf("status %q names several statuses (an unfilled template?); treated as interrupted", workflow.Truncate(raw, 80)),
			progLine(p.metaItems, p.execItems, progStatusKeys))
	case !progKnownStatus(status):
		finding(workflow.Info, "unknown-status",
			fmt.Sprintf("status %q is not one a progress file uses (paused, failed, interrupted, in_progress, completed); treated as interrupted", workflow.Truncate(raw, 80)),
			progLine(p.metaItems, p.execItems, progStatusKeys))
	}
	c.Status = status
	c.Resumable = !workflow.IsTerminalStatus(status)
}

// plainFields reads the times, agent, mode, commit, AI session, stories,
// stop reason, title and the metadata and execution state themselves.
func (p *progFields) plainFields(c *workflow.Candidate, doc *progDoc) {
	f, meta, exec := p.f, p.meta, p.exec
	c.UpdatedAt, c.UpdatedFrom = progTime(f, meta, exec, progUpdatedKeys)
	if c.UpdatedFrom != "" {
		c.UpdatedFrom = "field:" + c.UpdatedFrom
	}
	c.StartedAt, _ = progTime(f, meta, exec, progStartedKeys)
	c.Agent, _ = p.str([]string{"agent", "current_agent", "executor"})
	c.Agent = strings.TrimPrefix(progCleanName(c.Agent), "@")
	mode, _ := p.str([]string{"mode", "execution_mode"})
	c.Mode = source.Mode(mode)
	c.Commit, _ = p.str([]string{"base_commit", "commit", "git_commit", "head_commit"})
	c.AISessionID, _ = p.str([]string{"ai_session_id", "ai_session", "resume_token", "conversation_id"})
	c.AISessionID = progCleanName(c.AISessionID)
	if v, k := p.both([]string{"story", "story_id", "stories"}); k != "" {
		for _, s := range progList(f, k, v) {
			if id, path := storyid.FromRef(s); id != "" && !c.HasStory(id) {
				c.Stories = append(c.Stories, id)
				c.StoryRefs = append(c.StoryRefs, workflow.StoryRef{ID: id, Path: path})
			}
		}
		sort.Strings(c.Stories)
	}
	if reason, _ := p.str(progReasonKeys); reason != "" {
		c.Context[ProgressCtxReason] = reason
	}
	if doc.Title != "" {
		c.Context[ProgressCtxTitle] = doc.Title
	}
	if len(meta) > 0 {
		c.Context[ProgressCtxMetadata] = meta
	}
	if len(exec) > 0 {
		c.Context[ProgressCtxExecutionState] = exec
	}
}

// files collects the referenced files: the workflow prompt file, then the
// paths in the variable state and the file lists of the execution state.
func (p *progFields) files(c *workflow.Candidate) {
	set := source.NewFileSet(nil)
	if wfFile, ok := c.Context[ProgressCtxWorkflowFile].(string); ok && refpath.LooksLikePath(wfFile) {
		set.Add(workflow.RefFile{Path: wfFile, From: "metadata.workflow"})
	}
	phase := source.CurrentPhaseID(c)
	keys := make([]string, 0, len(p.exec))
	for k := range p.exec {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch {
		case progIsVarKey(k):
			if v, ok := p.variables(c, k); ok {
				progPaths(set, v, "execution_state."+k, phase, 0)
			}
		case progIsFileKey(k):
			v := p.exec[k]
			if s, ok := v.(string); ok {
				if d, ok := progDecodeValue(s); ok {
					v = d
				} else {
					var l []any
					for _, x := range progList(p.f, k, s) {
						l = append(l, x)
					}
					v = l
				}
			}
			progPaths(set, v, "execution_state."+k, phase, 0)
		}
	}
	set.Finish(c, p.file)
}

// variables decodes the variable state under k (text holding JSON or YAML,
// or a mapping) and keeps the first mapping as the candidate's variables;
// ok is false (with a warning) for text that looks like a mapping but does
// not decode.
func (p *progFields) variables(c *workflow.Candidate, k string) (any, bool) {
	v := p.exec[k]
	keep := func(m map[string]any) {
		if _, have := c.Context[ProgressCtxVariables]; !have {
			c.Context[ProgressCtxVariables] = m
		}
	}
	if s, ok := v.(string); ok {
		if d, ok := progDecodeValue(s); ok {
			if m, ok := d.(map[string]any); ok {
				keep(m)
			}
			return d, true
		}
		if strings.HasPrefix(strings.TrimSpace(s), "{") {
			p.f.Findings = append(p.f.Findings, workflow.Finding{
				Check: workflow.CheckParse, Severity: workflow.Warning, Code: "bad-variables", Path: p.file,
				Line:    progItemLine(p.execItems, k),
				Message: fmt.Sprintf("%s is not a well-formed JSON or YAML mapping; kept as text", k),
			})
			return nil, false
		}
	} else if m, ok := v.(map[string]any); ok {
		keep(m)
	}
	return v, true
}

// progIsDefID reports whether a workflow name is a definition id
// ("story-development-cycle") rather than a file ("workflow.prompt.md").
func progIsDefID(s string) bool {
	if s == "" || len(s) > 100 || strings.ContainsAny(s, "/\\ .") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func progIsVarKey(k string) bool {
	for _, v := range progVarKeys {
		if k == v {
			return true
		}
	}
	return strings.HasPrefix(k, "variable")
}

func progIsFileKey(k string) bool {
	for _, s := range []string{"file", "path", "artifact", "output"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// progPaths adds every text in v that looks like a file path (non-critical).
func progPaths(set *source.FileSet, v any, from, phase string, depth int) {
	if depth > tolerant.MaxDepth {
		return
	}
	switch t := v.(type) {
	case []any:
		for _, x := range t {
			progPaths(set, x, from, phase, depth+1)
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			progPaths(set, t[k], from, phase, depth+1)
		}
	case string:
		if refpath.LooksLikePath(t) {
			set.Add(workflow.RefFile{Path: t, Phase: phase, From: from})
		}
	}
}

// progStatus normalises a progress status: emphasis and emoji stripped,
// trailing commentary dropped ("Paused (timeout)" is paused); "" for text
// naming several statuses ("paused | failed").
func progStatus(raw string) string {
	s := workflow.StripStatus(raw)
	if strings.Contains(s, "|") {
		return ""
	}
	for _, sep := range []string{" - ", " — ", " – ", "(", ",", ";", ":", " since ", " at "} {
		if i := strings.Index(s, sep); i > 0 {
			s = s[:i]
		}
	}
	s = strings.Trim(strings.TrimSpace(s), ".!")
	if s == "" {
		return "unknown"
	}
	return workflow.NormalizeStateStatus(s)
}

// progKnownStatus reports whether a normalised status is one a progress
// file uses.
func progKnownStatus(s string) bool {
	switch s {
	case "paused", "failed", "interrupted", "in_progress", "active", "running", "stopped", "error", "timeout", "cancelled", "aborted":
		return true
	}
	return workflow.IsTerminalStatus(s)
}

// progTime reads the first present time key (metadata first): RFC 3339 and
// the variants ToTime knows, with a trailing " UTC" or commentary tolerated.
func progTime(f *tolerant.Fields, meta, exec map[string]any, keys []string) (time.Time, string) {
	for _, m := range []map[string]any{meta, exec} {
		v, k, ok := tolerant.Lookup(m, keys)
		if !ok {
			continue
		}
		if t, ok := tolerant.ToTime(v); ok {
			return t, k
		}
		if s, ok := v.(string); ok {
			s = strings.TrimSpace(strings.Trim(s, "`*_"))
			for _, sep := range []string{" (", " - ", " — "} {
				if i := strings.Index(s, sep); i > 0 {
					s = s[:i]
				}
			}
			for _, suf := range []string{" UTC", " utc", " GMT"} {
				if t, ok := tolerant.ToTime(strings.TrimSuffix(s, suf)); ok && strings.HasSuffix(s, suf) {
					return t, k
				}
			}
			if t, ok := tolerant.ToTime(s); ok {
				return t, k
			}
		}
		f.Wrong(k, "a timestamp", v)
		return time.Time{}, ""
	}
	return time.Time{}, ""
}

// progLine is the line of the first present key's item, or 0.
func progLine(meta, exec map[string]*progItem, keys []string) int {
	for _, k := range keys {
		if it, ok := meta[k]; ok {
			return it.Line
		}
	}
	for _, k := range keys {
		if it, ok := exec[k]; ok {
			return it.Line
		}
	}
	return 0
}

func progItemLine(items map[string]*progItem, k string) int {
	if it, ok := items[k]; ok {
		return it.Line
	}
	return 0
}

// progBlockFinding is a warning about a fenced block that does not decode,
// at the file's line.
func progBlockFinding(file string, b progBlock, what string, err error) workflow.Finding {
	fd := source.DecodeFinding(file, err)
	line := b.Line
	var de *tolerant.DecodeError
	if errors.As(err, &de) && de.Line > 0 {
		line = b.Line + de.Line
	}
	msg := strings.TrimPrefix(fd.Message, fmt.Sprintf("line %d: ", fd.Line))
	return workflow.Finding{
		Check: workflow.CheckParse, Severity: workflow.Warning, Code: "bad-" + strings.ReplaceAll(what, " ", "-"), Path: file, Line: line,
		Message: fmt.Sprintf("line %d: the %s block does not decode (%s); it is left out", line, what, msg),
	}
}

// progConfiguration decodes the configuration: the first YAML (or JSON)
// fenced block of the configuration section, else its "- key: value" items.
func progConfiguration(c *workflow.Candidate, f *tolerant.Fields, doc *progDoc) {
	for _, b := range doc.Blocks {
		if b.Section != progConfig || b.Owned || !progDataInfo(b.Info) {
			continue
		}
		if strings.TrimSpace(b.Body) == "" {
			return
		}
		m, err := tolerant.DecodeYAMLMap([]byte(b.Body))
		if err != nil {
			f.Findings = append(f.Findings, progBlockFinding(f.Path, b, "configuration", err))
			return
		}
		c.Context[ProgressCtxConfiguration] = m
		return
	}
	if len(doc.ConfigItems) > 0 {
		m := map[string]any{}
		for _, it := range doc.ConfigItems {
			if _, dup := m[it.Key]; dup {
				continue
			}
			if it.Value == "" && len(it.Kids) > 0 {
				m[it.Key] = append([]any(nil), it.Kids...)
			} else {
				m[it.Key] = it.Value
			}
		}
		c.Context[ProgressCtxConfiguration] = m
	}
}

// progConversationList renders the conversation history as a list of
// {n, role, content} mappings.
func progConversationList(doc *progDoc) []any {
	var out []any
	if text := strings.TrimSpace(strings.Join(doc.ConvText, "\n")); text != "" {
		out = append(out, map[string]any{"n": 0, "role": "", "content": text})
	}
	for i, m := range doc.Messages {
		n := m.N
		if n == 0 {
			n = i + 1
		}
		out = append(out, map[string]any{"n": n, "role": m.Role, "content": strings.TrimSpace(strings.Join(m.Content, "\n"))})
	}
	return out
}

// progSteps builds the phases (completed steps, the current one, pending
// ones, in that order) and the position.
func progSteps(c *workflow.Candidate, f *tolerant.Fields, exec map[string]any, items map[string]*progItem) {
	var completed, pending []string
	if v, k := progLookup(exec, progCompletedKeys...); k != "" {
		completed = progList(f, k, v)
	}
	if v, k := progLookup(exec, progPendingKeys...); k != "" {
		pending = progList(f, k, v)
	}
	current := ""
	if v, k := progLookup(exec, progCurrentKeys...); k != "" {
		if s, ok := tolerant.ScalarString(v); ok {
			current = progCleanName(s)
			switch strings.ToLower(current) {
			case "none", "n/a", "-", "—":
				current = ""
			}
		} else {
			f.Wrong(k, "a step name", v)
		}
	}
	index, total, stepName := 0, 0, ""
	if v, k := progLookup(exec, progStepKeys...); k != "" {
		s, ok := tolerant.ScalarString(v)
		if !ok {
			f.Wrong(k, "a step number (\"3 of 5\")", v)
		} else if m := progStepRe.FindStringSubmatch(strings.TrimSpace(s)); m != nil {
			index, _ = strconv.Atoi(m[1])
			if m[2] != "" {
				total, _ = strconv.Atoi(m[2])
			}
			stepName = progCleanName(m[3])
		} else if s != "" && current == "" && !strings.ContainsAny(s, "0123456789") {
			current = progCleanName(s) // "Current step: code-generation"
		} else if s != "" {
			f.Findings = append(f.Findings, workflow.Finding{
				Check: workflow.CheckParse, Severity: workflow.Warning, Code: "bad-step", Path: f.Path,
				Line:    progItemLine(items, k),
				Message: fmt.Sprintf("%s: %q is not a step number like \"3 of 5\"; ignored", k, workflow.Truncate(s, 80)),
			})
		}
	}
	if current == "" && stepName != "" {
		current = stepName
	}

	seen := map[string]int{}
	var dups []string
	add := func(name, status string) {
		k := strings.ToLower(name)
		if _, ok := seen[k]; ok {
			dups = append(dups, name)
			return
		}
		if len(c.Phases) >= progMaxSteps {
			return
		}
		seen[k] = len(c.Phases)
		c.Phases = append(c.Phases, workflow.Phase{ID: name, Name: name, Status: status})
	}
	curKey := strings.ToLower(current)
	for _, n := range completed {
		if curKey != "" && strings.ToLower(n) == curKey {
			dups = append(dups, n)
			continue
		}
		add(n, workflow.PhaseCompleted)
	}
	if current != "" {
		add(current, workflow.PhaseCurrent)
	}
	for _, n := range pending {
		add(n, workflow.PhasePending)
	}
	if len(dups) > 0 {
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: workflow.Warning, Code: "step-listed-twice", Path: f.Path,
			Message: fmt.Sprintf("steps listed more than once (the first listing is kept): %s", workflow.Truncate(strings.Join(dups, ", "), 200)),
		})
	}
	if n := len(completed) + len(pending) + 1; n > progMaxSteps && len(c.Phases) >= progMaxSteps {
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: workflow.Warning, Code: "too-many-steps", Path: f.Path,
			Message: fmt.Sprintf("only the first %d steps are kept", progMaxSteps),
		})
	}
	if len(c.Phases) == 0 && index == 0 {
		if len(exec) == 0 {
			c.Findings = append(c.Findings, workflow.Finding{
				Check: workflow.CheckParse, Severity: workflow.Info, Code: "no-execution-state", Path: f.Path,
				Message: "the progress file has no execution state: the orchestrator continues from the saved conversation",
			})
		}
		return
	}

	nDone := 0
	curIdx := -1
	for i, p := range c.Phases {
		switch p.Status {
		case workflow.PhaseCompleted:
			nDone++
		case workflow.PhaseCurrent:
			curIdx = i
		}
	}
	name := ""
	switch {
	case index > 0:
		switch {
		case curIdx >= 0:
			name = c.Phases[curIdx].Name
		case index == nDone+1 && index <= len(c.Phases):
			name = c.Phases[index-1].Name
		}
	case curIdx >= 0:
		index, name = curIdx+1, c.Phases[curIdx].Name
	case nDone < len(c.Phases):
		index, name = nDone+1, c.Phases[nDone].Name
	default:
		index, name = len(c.Phases), c.Phases[len(c.Phases)-1].Name
	}
	if total > 0 && total < index {
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: workflow.Warning, Code: "bad-step", Path: f.Path,
			Line:    progLine(nil, items, progStepKeys),
			Message: fmt.Sprintf("step %d of %d: the step is past the total", index, total),
		})
		total = index
	}
	if total < len(c.Phases) {
		total = len(c.Phases)
	}
	if total < index {
		total = 0 // more steps than the file names, and no total: unknown
	}
	c.Position = workflow.Position{Kind: workflow.PosStep, Index: index, Total: total, Name: name}
}
