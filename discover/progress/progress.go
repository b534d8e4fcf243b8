// Package progress is the markdown progress-file format, both ways:
// ParseProgress reads the execution metadata, configuration, conversation and
// execution state into a candidate, and Patch marks a file resumed keeping
// every other byte. Parse and patch share one section classifier, one key
// normaliser, one fence rule and one key list. Adding a framework means
// adding one format package like this one and one line to
// discover.DefaultSources (see docs/ARCHITECTURE.md).
package progress

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// ProgressSource finds progress files (priority 3): a markdown file with an execution metadata list, a YAML
// configuration block, the conversation history and the execution state.
// Every file found is a candidate: one that is not in that format was still
// put where progress files live, so it is an "unreadable" candidate with a
// blocking parse finding.
var ProgressSource source.Source = source.Format{FormatKind: workflow.KindProgress, FormatPriority: workflow.PriorityWorkflow, ScanFunc: scanProgress,
	ElementWeight: progressWeight}

// progressWeight is what a line of a progress file counts for in the scan's
// budget: parsing one costs about five times a story line (49,000 list
// items: about 0.25 s on a loaded machine, where 20,000 stories of 50 lines
// take about 1 s).
const progressWeight = 5

// scanProgress reads every configured progress file. All findings are attached to
// their candidate.
func scanProgress(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
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
	progHeadingRe = lazyre.New(`^(#{1,6})[ \t]+(.*?)[ \t#]*$`)
	progItemRe    = lazyre.New(`^([ \t]*)(?:[-*+]|\d{1,3}[.)])[ \t]+(.*)$`)
	progMessageRe = lazyre.New(`(?i)^message\s*#?\s*(\d{1,6})?\s*(?:[:\-—]\s*)?(?:\((.*)\))?\s*(.*)$`)
	progStepRe    = lazyre.New(`(?i)^(?:step\s*)?(\d{1,6})(?:\s*(?:of|/|out of)\s*(\d{1,6}))?\s*(?:[-:—(]\s*(.*?)\)?)?$`)
)

// ParseProgress parses a progress file (the markdown progress format) into a candidate. It
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
	if n, closers := progEntries(data); n > maxProgEntries || closers > maxProgBlocks {
		err := tolerant.TooManyElements(n, maxProgEntries, "headings and list items (messages, steps, fields)")
		if n <= maxProgEntries {
			err = tolerant.TooManyElements(closers, maxProgBlocks, "closing fences (fenced blocks)")
		}
		c := progUnreadable(path, source.DecodeFinding(path, err))
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

// maxProgEntries is the most headings and list items a progress file
// holds: a long conversation logs some thousands.
const maxProgEntries = 50_000

// maxProgBlocks is the most fenced blocks a progress file holds: each is
// decoded on its own when it may hold data (a few do in a real file).
const maxProgBlocks = 2_000

// progEntries counts, before the file is split, the lines that start
// (after blanks) with "#", "-" or "*": an upper bound of the headings
// (messages, steps, sections) and list items (metadata, state fields) a
// progress file splits into; and the closing fences, an upper bound of its
// fenced blocks (a block needs one; an opening fence without it is text).
func progEntries(data []byte) (entries, closers int) {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		t := bytes.TrimLeft(line, " \t")
		if len(t) == 0 {
			continue
		}
		switch t[0] {
		case '#', '-', '*':
			entries++
		case '`', '~':
			if fc, ok := progFenceOf(string(bytes.TrimRight(t, "\r"))); ok && fc.closer {
				closers++
			}
		}
	}
	return entries, closers
}

// progUnreadable is the candidate of a progress file that cannot be read or
// is not in the progress format.
func progUnreadable(file string, f workflow.Finding) workflow.Candidate {
	src := workflow.SourceRef{Kind: workflow.KindProgress, Path: file, Priority: workflow.PriorityWorkflow}
	return source.Unreadable(src, workflow.TypeProgress, "progress", storyid.Sanitize(source.Stem(file)), "progress", f)
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
func progList(f *source.Fields, key string, v any) []string {
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
				g := &source.Fields{Path: f.Path}
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
func progTime(f *source.Fields, meta, exec map[string]any, keys []string) (time.Time, string) {
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
