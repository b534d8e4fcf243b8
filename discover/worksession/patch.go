package worksession

// The patch side of the work-session format: ordered, textual JSON patches
// of one work-session file that keep every other byte (member order,
// indentation, spacing), each returned with the change it must make to the
// decoded session so that Verify can check the result before handoff writes
// it. Appending a breadcrumb, setting scalars, recording a subtask in its
// parent and recording a new AI session id all find their members with the
// same key lists ParseWorkSession reads.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/statepatch"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
)

// BreadcrumbEntry is a breadcrumb as `breadcrumb add` records it, in this
// member order.
type BreadcrumbEntry struct {
	ID          string `json:"id"`
	Timestamp   string `json:"timestamp"`
	Message     any    `json:"message"`
	AISessionID string `json:"ai_session_id,omitempty"`
}

// SubtaskEntry is the entry a closed subtask leaves in its parent's
// subtasks, in this member order.
type SubtaskEntry struct {
	WSessionID string `json:"wsession_id"`
	TaskID     string `json:"task_id,omitempty"`
	Summary    string `json:"summary"`
	Status     string `json:"status"`
	ClosedAt   string `json:"closed_at"`
}

// sessionMap is the decoded mapping holding a session's fields (unwrapped as
// discover and wsLocate do).
func sessionMap(m map[string]any) map[string]any {
	for _, k := range wsIDKeys {
		if v, ok := m[k]; ok && v != nil {
			return m
		}
	}
	for _, w := range wsWrapperKeys {
		if inner, ok := m[w].(map[string]any); ok {
			return inner
		}
	}
	return m
}

// Verify decodes the original and the patched content; the original
// with the expected change applied must equal the patched one.
func Verify(orig, patched []byte, expect func(map[string]any) error) error {
	before, err := tolerant.DecodeJSONMap(orig)
	if err != nil {
		return fmt.Errorf("the original does not decode: %w", err)
	}
	after, err := tolerant.DecodeJSONMap(patched)
	if err != nil {
		return err
	}
	if err := expect(sessionMap(before)); err != nil {
		return err
	}
	if statepatch.Canonical(before) != statepatch.Canonical(after) {
		return errors.New("the result differs from the intended change")
	}
	return nil
}

func decodeValue(raw string) (any, error) {
	return tolerant.DecodeJSON([]byte(raw))
}

// appendExpect is the expected change of appending elem to the list key.
func appendExpect(key, elem string) func(map[string]any) error {
	return func(m map[string]any) error {
		v, err := decodeValue(elem)
		if err != nil {
			return err
		}
		l, _ := m[key].([]any)
		m[key] = append(append([]any{}, l...), v)
		return nil
	}
}

// wsLocate scans a work-session file and returns the object holding its
// fields: the top level, or the wrapper member (work_session, …) when the
// top level has no id of its own.
func wsLocate(data []byte) (*statepatch.JSONObject, []byte, error) {
	data = bytes.TrimPrefix(data, statepatch.BOM)
	top, err := statepatch.ScanTop(data)
	if err != nil {
		return nil, nil, err
	}
	for _, mem := range top.Members {
		for _, k := range wsIDKeys {
			if mem.Key == k && !isNull(data, mem) {
				return top, data, nil
			}
		}
	}
	for _, w := range wsWrapperKeys {
		if m := lastMember(top, w); m != nil && m.Obj != nil {
			return m.Obj, data, nil
		}
	}
	return top, data, nil
}

func isNull(data []byte, m statepatch.JSONMember) bool {
	return m.Kind == 'l' && string(data[m.ValStart:m.ValEnd]) == "null"
}

// lastMember is the last member named key (the one decoders keep).
func lastMember(o *statepatch.JSONObject, key string) *statepatch.JSONMember {
	for i := len(o.Members) - 1; i >= 0; i-- {
		if o.Members[i].Key == key {
			return &o.Members[i]
		}
	}
	return nil
}

// findMember is the member discover reads for keys: the first spelling
// present with a non-null value, else the first present (null).
func findMember(data []byte, o *statepatch.JSONObject, keys []string) *statepatch.JSONMember {
	for _, k := range keys {
		if m := lastMember(o, k); m != nil && !isNull(data, *m) {
			return m
		}
	}
	for _, k := range keys {
		if m := lastMember(o, k); m != nil {
			return m
		}
	}
	return nil
}

// arrayElems returns the [start, end) spans of the elements of the array
// opening at pos.
func arrayElems(data []byte, pos int) [][2]int {
	s := &statepatch.JSONScanner{Data: data, Pos: pos + 1}
	var out [][2]int
	for {
		s.SkipSpace()
		if s.Pos >= len(data) || data[s.Pos] == ']' {
			return out
		}
		start := s.Pos
		if _, _, err := s.Value(2); err != nil {
			return out
		}
		out = append(out, [2]int{start, s.Pos})
		s.SkipSpace()
		if s.Pos < len(data) && data[s.Pos] == ',' {
			s.Pos++
		}
	}
}

// layout is how a file lays its JSON out.
type layout struct {
	nl   string // "\n" or "\r\n"
	unit string // one level of indentation
}

func layoutOf(data []byte) layout {
	l := layout{nl: "\n", unit: "  "}
	if bytes.Contains(data, []byte("\r\n")) {
		l.nl = "\r\n"
	}
	for _, line := range strings.Split(string(data), "\n") {
		ind := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		if ind != "" && strings.TrimSpace(line) != "" {
			l.unit = ind
			break
		}
	}
	return l
}

// lineIndent is the leading white space of the line holding pos.
func lineIndent(data []byte, pos int) string {
	start := bytes.LastIndexByte(data[:pos], '\n') + 1
	end := start
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return string(data[start:end])
}

// multiline reports whether the object lays its members out one per line.
func multiline(data []byte, o *statepatch.JSONObject) bool {
	return bytes.ContainsRune(data[o.Open:o.Close], '\n')
}

// memberIndent is the indentation of the object's members.
func memberIndent(data []byte, o *statepatch.JSONObject, l layout) string {
	if len(o.Members) > 0 {
		return lineIndent(data, o.Members[0].KeyStart)
	}
	return lineIndent(data, o.Open) + l.unit
}

// render lays a compact JSON value out: indented (prefix for every line but
// the first) or, with oneLine, on one line ("a": 1, "b": 2 when spaced).
func render(compact string, prefix string, l layout, oneLine, spaced bool) string {
	if oneLine {
		if !spaced {
			return compact
		}
		return spaceJSON(compact)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(compact), prefix, l.unit); err != nil {
		return compact
	}
	return strings.ReplaceAll(b.String(), "\n", l.nl)
}

// spaceJSON puts a space after every ':' and ',' outside strings.
func spaceJSON(s string) string {
	var b strings.Builder
	in, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		b.WriteByte(c)
		switch {
		case in && esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && (c == ':' || c == ','):
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// MarshalOrdered encodes v compactly without HTML escaping.
func MarshalOrdered(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b.Bytes()); err != nil {
		return "", err
	}
	return c.String(), nil
}

// insertMember adds "key": value (value compact JSON, laid out here) at the
// end of the object, in the object's style.
func insertMember(data []byte, o *statepatch.JSONObject, key, value string) []byte {
	l := layoutOf(data)
	k, _ := MarshalOrdered(key)
	if len(o.Members) == 0 {
		if !multiline(data, o) {
			return statepatch.ApplyEdits(data, []statepatch.Edit{{Start: o.Open + 1, End: o.Close, Text: k + ": " + render(value, "", l, true, true)}})
		}
		ind := lineIndent(data, o.Open)
		text := l.nl + ind + l.unit + k + ": " + render(value, ind+l.unit, l, false, false) + l.nl + ind
		return statepatch.ApplyEdits(data, []statepatch.Edit{{Start: o.Open + 1, End: o.Close, Text: text}})
	}
	last := o.Members[len(o.Members)-1]
	sep := string(data[last.KeyEnd:last.ValStart])
	lead := string(data[o.Open+1 : o.Members[0].KeyStart])
	if len(o.Members) > 1 {
		prev := o.Members[len(o.Members)-2]
		if c := bytes.IndexByte(data[prev.ValEnd:last.KeyStart], ','); c >= 0 {
			lead = string(data[prev.ValEnd+c+1 : last.KeyStart])
		}
	}
	var v string
	if multiline(data, o) {
		v = render(value, memberIndent(data, o, l), l, false, false)
	} else {
		v = render(value, "", l, true, strings.Contains(sep, " "))
	}
	return statepatch.ApplyEdits(data, []statepatch.Edit{{Start: last.ValEnd, End: last.ValEnd, Text: "," + lead + k + sep + v}})
}

// setMember sets the member (first present spelling of keys) to value
// (compact JSON), or adds it as key at the end of the object.
func setMember(data []byte, o *statepatch.JSONObject, keys []string, key, value string) []byte {
	if m := findMember(data, o, keys); m != nil {
		l := layoutOf(data)
		v := value
		if strings.HasPrefix(value, "{") || strings.HasPrefix(value, "[") {
			if multiline(data, o) {
				v = render(value, lineIndent(data, m.KeyStart), l, false, false)
			} else {
				v = render(value, "", l, true, true)
			}
		}
		return statepatch.ApplyEdits(data, []statepatch.Edit{{Start: m.ValStart, End: m.ValEnd, Text: v}})
	}
	return insertMember(data, o, key, value)
}

// memberKey is the spelling setMember writes for keys.
func memberKey(data []byte, o *statepatch.JSONObject, keys []string, key string) string {
	if m := findMember(data, o, keys); m != nil {
		return m.Key
	}
	return key
}

// setMemberChecked sets one member of the session object and returns the
// expected change.
func setMemberChecked(data []byte, keys []string, key, value string) ([]byte, func(map[string]any) error, error) {
	o, body, err := wsLocate(data)
	if err != nil {
		return nil, nil, err
	}
	k := memberKey(body, o, keys, key)
	out := setMember(body, o, keys, key, value)
	return out, func(m map[string]any) error {
		v, err := decodeValue(value)
		if err != nil {
			return err
		}
		m[k] = v
		return nil
	}, nil
}

// SetScalars sets several text members of the session object, one after
// the other (each on the re-scanned result).
func SetScalars(data []byte, kvs [][2]string) ([]byte, func(map[string]any) error, error) {
	var expects []func(map[string]any) error
	for _, kv := range kvs {
		keys := []string{kv[0]}
		switch kv[0] {
		case "status":
			keys = wsStatusKeys
		case "closed_at":
			keys = wsClosedKeys
		case "summary":
			keys = wsSummaryKeys
		}
		v, _ := MarshalOrdered(kv[1])
		out, exp, err := setMemberChecked(data, keys, kv[0], v)
		if err != nil {
			return nil, nil, err
		}
		data = out
		expects = append(expects, exp)
	}
	return data, func(m map[string]any) error {
		for _, e := range expects {
			if err := e(m); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// appendToList appends elem (compact JSON) to the session object's list
// named by keys (the first spelling present; keys[0] is added when none
// is), in the file's style. It returns the key written.
func appendToList(data []byte, keys []string, elem string) ([]byte, string, error) {
	o, body, err := wsLocate(data)
	if err != nil {
		return nil, "", err
	}
	m := findMember(body, o, keys)
	if m == nil {
		return insertMember(body, o, keys[0], "["+elem+"]"), keys[0], nil
	}
	if isNull(body, *m) {
		return setMember(body, o, keys, keys[0], "["+elem+"]"), m.Key, nil
	}
	if m.Kind != '[' {
		return nil, "", fmt.Errorf("%s is not a list", m.Key)
	}
	l := layoutOf(body)
	elems := arrayElems(body, m.ValStart)
	if len(elems) == 0 {
		if !multiline(body, o) {
			return statepatch.ApplyEdits(body, []statepatch.Edit{{Start: m.ValStart, End: m.ValEnd, Text: "[" + render(elem, "", l, true, true) + "]"}}), m.Key, nil
		}
		ind := lineIndent(body, m.KeyStart)
		text := "[" + l.nl + ind + l.unit + render(elem, ind+l.unit, l, false, false) + l.nl + ind + "]"
		return statepatch.ApplyEdits(body, []statepatch.Edit{{Start: m.ValStart, End: m.ValEnd, Text: text}}), m.Key, nil
	}
	first, last := elems[0], elems[len(elems)-1]
	lead := string(body[m.ValStart+1 : first[0]])
	lastText := body[last[0]:last[1]]
	var text string
	if strings.Contains(lead, "\n") {
		ind := lineIndent(body, first[0])
		oneLine := !bytes.ContainsRune(lastText, '\n') && (lastText[0] == '{' || lastText[0] == '[')
		text = "," + l.nl + ind + render(elem, ind, l, oneLine, bytes.Contains(lastText, []byte(`": `)))
	} else {
		sep := ""
		if len(elems) > 1 {
			if c := bytes.IndexByte(body[elems[0][1]:elems[1][0]], ','); c >= 0 {
				sep = string(body[elems[0][1]+c+1 : elems[1][0]])
			}
		} else if strings.Contains(string(body[m.KeyEnd:m.ValStart]), " ") {
			sep = " "
		}
		text = "," + sep + render(elem, "", l, true, bytes.Contains(lastText, []byte(`": `)) || sep != "")
	}
	return statepatch.ApplyEdits(body, []statepatch.Edit{{Start: last[1], End: last[1], Text: text}}), m.Key, nil
}

// UpsertSubtask writes entry into the session object's subtasks: the entry
// for the same wsession_id is updated in place (its other members kept), or
// entry is appended.
func UpsertSubtask(data []byte, entry SubtaskEntry) ([]byte, func(map[string]any) error, error) {
	o, body, err := wsLocate(data)
	if err != nil {
		return nil, nil, err
	}
	elem, err := MarshalOrdered(entry)
	if err != nil {
		return nil, nil, err
	}
	if m := findMember(body, o, wsSubtaskKeys); m != nil && m.Kind == '[' {
		for i, e := range arrayElems(body, m.ValStart) {
			if body[e[0]] != '{' {
				if body[e[0]] == '"' {
					var s string
					if json.Unmarshal(body[e[0]:e[1]], &s) == nil && strings.TrimSpace(s) == entry.WSessionID {
						return replaceElem(body, m.Key, i, e, elem)
					}
				}
				continue
			}
			s := &statepatch.JSONScanner{Data: body, Pos: e[0]}
			eo, err := s.Object(0)
			if err != nil {
				continue
			}
			idm := findMember(body, eo, wsSubtaskIDKeys)
			if idm == nil || idm.Kind != '"' {
				continue
			}
			var id string
			if json.Unmarshal(body[idm.ValStart:idm.ValEnd], &id) != nil || strings.TrimSpace(id) != entry.WSessionID {
				continue
			}
			return mergeElem(body, m.Key, i, eo, entry)
		}
	}
	out, key, err := appendToList(body, wsSubtaskKeys, elem)
	if err != nil {
		return nil, nil, err
	}
	return out, appendExpect(key, elem), nil
}

// replaceElem replaces element i (a bare id) of list key with elem.
func replaceElem(body []byte, key string, i int, span [2]int, elem string) ([]byte, func(map[string]any) error, error) {
	l := layoutOf(body)
	text := render(elem, "", l, true, true)
	if ownLine(body, span[0]) {
		text = render(elem, lineIndent(body, span[0]), l, false, false)
	}
	out := statepatch.ApplyEdits(body, []statepatch.Edit{{Start: span[0], End: span[1], Text: text}})
	return out, func(m map[string]any) error {
		v, err := decodeValue(elem)
		if err != nil {
			return err
		}
		l, ok := m[key].([]any)
		if !ok || i >= len(l) {
			return fmt.Errorf("%s[%d] is gone", key, i)
		}
		l[i] = v
		return nil
	}, nil
}

// ownLine reports whether nothing but white space precedes pos on its line.
func ownLine(data []byte, pos int) bool {
	start := bytes.LastIndexByte(data[:pos], '\n') + 1
	return len(bytes.TrimLeft(data[start:pos], " \t")) == 0
}

// mergeElem sets entry's members in the existing entry object eo (element i
// of list key), keeping its other members, re-scanning after each member.
func mergeElem(body []byte, key string, i int, eo *statepatch.JSONObject, entry SubtaskEntry) ([]byte, func(map[string]any) error, error) {
	start := eo.Open
	type kv struct {
		keys []string
		key  string
		val  string
	}
	var kvs []kv
	add := func(keys []string, k, v string) {
		if v == "" {
			return
		}
		j, _ := MarshalOrdered(v)
		kvs = append(kvs, kv{keys, k, j})
	}
	add(wsSubtaskIDKeys, "wsession_id", entry.WSessionID)
	add([]string{"task_id", "taskId", "task"}, "task_id", entry.TaskID)
	add([]string{"summary", "result", "outcome", "message"}, "summary", entry.Summary)
	add([]string{"status", "state"}, "status", entry.Status)
	add(wsClosedKeys, "closed_at", entry.ClosedAt)
	var written []string
	for _, x := range kvs {
		s := &statepatch.JSONScanner{Data: body, Pos: start}
		o, err := s.Object(0)
		if err != nil {
			return nil, nil, err
		}
		written = append(written, memberKey(body, o, x.keys, x.key))
		body = setMember(body, o, x.keys, x.key, x.val)
	}
	return body, func(m map[string]any) error {
		l, ok := m[key].([]any)
		if !ok || i >= len(l) {
			return fmt.Errorf("%s[%d] is gone", key, i)
		}
		e, ok := l[i].(map[string]any)
		if !ok {
			return fmt.Errorf("%s[%d] is not an object", key, i)
		}
		for n, x := range kvs {
			v, err := decodeValue(x.val)
			if err != nil {
				return err
			}
			e[written[n]] = v
		}
		return nil
	}, nil
}

// BreadcrumbLine is a breadcrumb as text: its id and timestamp as recorded
// ("" when missing) and its message on one line (an object as compact JSON,
// members in the file's order).
type BreadcrumbLine struct {
	ID        string
	Timestamp string
	Message   string
}

// breadcrumbLine renders one raw breadcrumb.
func breadcrumbLine(raw []byte) BreadcrumbLine {
	var l BreadcrumbLine
	oneLine := func(b []byte) string {
		var s string
		if json.Unmarshal(b, &s) == nil {
			return strings.Join(strings.Fields(s), " ")
		}
		var c bytes.Buffer
		if json.Compact(&c, b) == nil {
			return c.String()
		}
		return string(b)
	}
	if len(raw) == 0 || raw[0] != '{' {
		l.Message = oneLine(raw)
		return l
	}
	s := &statepatch.JSONScanner{Data: raw}
	o, err := s.Object(0)
	if err != nil {
		l.Message = oneLine(raw)
		return l
	}
	text := func(keys ...string) (string, bool) {
		if m := findMember(raw, o, keys); m != nil && !isNull(raw, *m) {
			return oneLine(raw[m.ValStart:m.ValEnd]), true
		}
		return "", false
	}
	l.ID, _ = text(wsBreadcrumbIDKeys...)
	l.Timestamp, _ = text(wsTimestampKeys...)
	l.Message, _ = text(wsMessageKeys...)
	return l
}

// RawBreadcrumbs returns a work-session file's breadcrumbs as the raw JSON
// the file records and as one line of text each, in the file's order.
func RawBreadcrumbs(data []byte) ([]json.RawMessage, []BreadcrumbLine, error) {
	obj, body, err := wsLocate(data)
	if err != nil {
		return nil, nil, err
	}
	var raws []json.RawMessage
	var lines []BreadcrumbLine
	if m := findMember(body, obj, wsBreadKeys); m != nil && m.Kind == '[' {
		for _, e := range arrayElems(body, m.ValStart) {
			raws = append(raws, json.RawMessage(body[e[0]:e[1]]))
			lines = append(lines, breadcrumbLine(body[e[0]:e[1]]))
		}
	}
	return raws, lines, nil
}

// AppendBreadcrumb appends elem (a breadcrumb as JSON) to the file's
// breadcrumbs list, creating the list when missing; it returns the patched
// content and the expected change of the decoded session, for Verify.
func AppendBreadcrumb(data []byte, elem string) ([]byte, func(map[string]any) error, error) {
	patched, key, err := appendToList(data, wsBreadKeys, elem)
	if err != nil {
		return nil, nil, err
	}
	return patched, appendExpect(key, elem), nil
}

// SetAISessionID sets the session's AI session id: the member it has
// (ai_session_id or another spelling) is replaced, or ai_session_id added.
func SetAISessionID(data []byte, id string) ([]byte, func(map[string]any) error, error) {
	v, _ := json.Marshal(id)
	return setMemberChecked(data, wsAIKeys, "ai_session_id", string(v))
}
