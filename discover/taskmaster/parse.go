package taskmaster

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Bounds on what one tasks file contributes.
const (
	maxIDLen     = 64  // an id or tag longer than this is not one
	maxTitle     = 200 // runes of a title or note kept
	maxItemPaths = 50  // paths one task or subtask names
	maxSpan      = 300 // bytes of a backticked span looked at as a path
)

// DefaultTag is the tag of an untagged file and the last fallback of the
// current tag.
const DefaultTag = "master"

// File is a decoded tasks.json: its tags, each with its tasks in array order.
type File struct {
	// Tagged is true for the tagged shape ({"<tag>": {"tasks": […]}}); an
	// untagged file ({"tasks": […]}) has its tasks under DefaultTag.
	Tagged bool
	// Tags are the tag names, sorted.
	Tags []string
	// Tasks are each tag's top-level tasks in array order.
	Tasks map[string][]Task
}

// Task is a task or a subtask as the file records it.
type Task struct {
	// ID is the full id: "3" for a task, "<parent>.<sub>" for a subtask, the
	// literal kept ("3.10" is not "3.1").
	ID string
	// Local is a subtask's own id (the part after its parent's); the task's
	// id for a task.
	Local       string
	Parent      string // a subtask's parent id; "" for a task
	Title       string // one line, bounded
	Description string
	Details     string
	// StatusRaw is the status as written ("" when missing); Status its
	// canonical value (StatusBacklog when missing, StatusUnknown when no
	// canonical value).
	StatusRaw string
	Status    workflow.Status
	Priority  string   // lower-case, "" when missing
	Deps      []string // dependencies as full ids
	Files     []string // paths of its hand-written files array, cleaned
	// Mentions are the backticked spans of its description and details, as
	// written: prose, read as paths only by Paths (refpath.Prose).
	Mentions []string
	Note     string // the last <info added on …> note of details, one line
	Subtasks []Task
	// CLI is the id the task-master CLI resolves for this item, "" when it
	// resolves none (see cliTaskID, cliSubtaskID).
	CLI string
}

// cliTaskID is the id the task-master CLI finds a task by. The CLI
// (scripts/modules/task-manager/update-single-task-status.js, and the
// show and set-status commands alike) takes "<n>" for a task and
// "<parent>.<sub>" for a subtask, reads both parts with parseInt and
// compares them with === against the ids stored in tasks.json: a task is
// found only when its id is stored as a JSON integer, a subtask only when
// its parent is and its own id is stored as its local JSON integer (a
// subtask stored with a full id, "3.2" or the float 3.2, or a string id is
// found by no id). The part is printed as the CLI prints it ("03" is 3).
func cliTaskID(v any) string {
	n, ok := v.(json.Number)
	if !ok {
		return ""
	}
	i, err := strconv.Atoi(n.String())
	if err != nil || i < 0 {
		return ""
	}
	return strconv.Itoa(i)
}

// cliSubtaskID is the id the task-master CLI finds a subtask by (see
// cliTaskID), "" when none.
func cliSubtaskID(parentCLI string, v any) string {
	sub := cliTaskID(v)
	if parentCLI == "" || sub == "" {
		return ""
	}
	return parentCLI + "." + sub
}

// statusKey is the status compared by the framework's own rules: trimmed,
// lower-case.
func (t Task) statusKey() string { return strings.ToLower(strings.TrimSpace(t.StatusRaw)) }

// Terminal reports whether the framework counts the task finished: done,
// completed or cancelled.
func (t Task) Terminal() bool {
	switch t.statusKey() {
	case "done", "completed", "cancelled", "canceled":
		return true
	}
	return false
}

// MapStatus maps a Taskmaster status to its canonical value: missing,
// pending and todo are Backlog; in-progress InProgress; review InReview;
// done and completed Done; blocked Blocked; deferred, cancelled and
// anything else have none (Unknown). known is false for a status outside
// the framework's vocabulary (the caller reports it).
func MapStatus(raw string) (st workflow.Status, known bool) {
	switch strings.ToLower(strings.TrimSpace(raw)) {
	case "", "pending", "todo":
		return workflow.StatusBacklog, true
	case "in-progress", "in_progress", "inprogress":
		return workflow.StatusInProgress, true
	case "review":
		return workflow.StatusInReview, true
	case "done", "completed":
		return workflow.StatusDone, true
	case "blocked":
		return workflow.StatusBlocked, true
	case "deferred", "cancelled", "canceled":
		return workflow.StatusUnknown, true
	}
	return workflow.StatusUnknown, false
}

// idRe is an id or a tag the file may use: Taskmaster ids are numbers,
// dotted numbers or short names; tags are letters, digits, "_" and "-".
var idRe = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

func validID(s string) bool { return len(s) <= maxIDLen && idRe().MatchString(s) }

// Parse decodes a tasks.json (path names it in findings). It returns the
// tasks by tag and the findings: a blocking parse finding when the file is
// not a tasks file (ok false), warnings for entries it skips or ids that
// collide, info for statuses outside the vocabulary. Numbers are decoded as
// their literal text, so ids keep their spelling.
func Parse(path string, data []byte) (File, []workflow.Finding, bool) {
	f := File{Tasks: map[string][]Task{}}
	// the bounded decoder checks size, depth, count, UTF-8 and syntax
	v, err := tolerant.DecodeJSONNumbers(data)
	if err != nil {
		return f, []workflow.Finding{source.DecodeFinding(path, err)}, false
	}
	top, ok := v.(map[string]any)
	if !ok {
		return f, []workflow.Finding{source.ParseFinding(path, 0, "not-an-object", "top level is %s, want an object", kind(v))}, false
	}
	if n := countTasks(top); n > tolerant.MaxElements {
		return f, []workflow.Finding{source.DecodeFinding(path, tolerant.TooManyElements(n, tolerant.MaxElements, "tasks and subtasks"))}, false
	}
	p := &parser{path: path}
	if list, has := top["tasks"]; has {
		f.Tasks[DefaultTag] = p.tasks(DefaultTag, list)
	} else {
		f.Tagged = true
		for _, tag := range source.SortedKeys(top) {
			m, isMap := top[tag].(map[string]any)
			if !isMap {
				continue // other top-level keys ($schema, …) are no tags
			}
			list, has := m["tasks"]
			if !has {
				continue
			}
			if !validID(tag) {
				p.warn("bad-tag", "tag %q is not a tag name; its tasks are ignored", clip(tag, maxIDLen))
				continue
			}
			f.Tasks[tag] = p.tasks(tag, list)
		}
		if len(f.Tasks) == 0 {
			return f, []workflow.Finding{source.ParseFinding(path, 0, "not-taskmaster", "neither a \"tasks\" list nor a tag with one")}, false
		}
	}
	f.Tags = source.SortedKeys(f.Tasks)
	return f, p.findings, true
}

// countTasks is the number of tasks and subtasks of a decoded file, in
// either shape, counted before any is read.
func countTasks(top map[string]any) int {
	n := 0
	count := func(v any) {
		list, _ := v.([]any)
		n += len(list)
		for _, it := range list {
			if m, ok := it.(map[string]any); ok {
				subs, _ := m["subtasks"].([]any)
				n += len(subs)
			}
		}
	}
	if list, has := top["tasks"]; has {
		count(list)
		return n
	}
	for _, v := range top {
		if m, ok := v.(map[string]any); ok {
			count(m["tasks"])
		}
	}
	return n
}

// parser collects the findings of one file.
type parser struct {
	path     string
	findings []workflow.Finding
}

func (p *parser) warn(code, format string, args ...any) {
	p.findings = append(p.findings, workflow.Finding{
		Check: workflow.CheckParse, Severity: workflow.Warning, Code: code, Path: p.path,
		Message: fmt.Sprintf(format, args...),
	})
}

// tasks reads a tag's task list.
func (p *parser) tasks(tag string, v any) []Task {
	var out []Task
	seen := map[string]bool{}
	p.eachObject(v, "tag "+tag, "tasks", "task", func(n int, m map[string]any) {
		id, ok := idText(m["id"])
		if !ok || !validID(id) {
			p.warn("bad-id", "tag %s: task #%d has no usable id", tag, n)
			return
		}
		if seen[id] {
			p.warn("duplicate-id", "tag %s: task id %s appears twice; the first is used", tag, id)
			return
		}
		seen[id] = true
		t := p.item(tag, m, id, id, "")
		t.CLI = cliTaskID(m["id"])
		if subs, has := m["subtasks"]; has && subs != nil {
			t.Subtasks = p.subtasks(tag, id, t.CLI, subs)
		}
		out = append(out, t)
	})
	return out
}

// eachObject calls f with each element of the list v that is an object, and
// its place in the list (from 1). A v that is no list, and an element that is
// no object, are warned about (where names the list's owner, field its key,
// item one element) and skipped.
func (p *parser) eachObject(v any, where, field, item string, f func(n int, m map[string]any)) {
	list, ok := v.([]any)
	if !ok {
		p.warn("wrong-type", "%s: %q is %s, want a list", where, field, kind(v))
		return
	}
	for i, it := range list {
		m, ok := it.(map[string]any)
		if !ok {
			p.warn("wrong-type", "%s: %s #%d is %s, want an object", where, item, i+1, kind(it))
			continue
		}
		f(i+1, m)
	}
}

// subtasks reads a task's subtasks, giving each its full id.
func (p *parser) subtasks(tag, parent, parentCLI string, v any) []Task {
	var out []Task
	seen := map[string]bool{}
	p.eachObject(v, "tag "+tag+": task "+parent, "subtasks", "subtask", func(n int, m map[string]any) {
		lit, ok := idText(m["id"])
		if !ok || !validID(lit) {
			p.warn("bad-id", "tag %s: task %s: subtask #%d has no usable id", tag, parent, n)
			return
		}
		full, local := SubtaskID(parent, lit)
		if seen[full] {
			// rec. 9: literal text; two subtasks with one full id are a warning
			p.warn("duplicate-id", "tag %s: two subtasks of task %s have the id %s (ids are compared as written: 3.10 is not 3.1)", tag, parent, full)
		}
		seen[full] = true
		s := p.item(tag, m, full, local, parent)
		s.CLI = cliSubtaskID(parentCLI, m["id"])
		out = append(out, s)
	})
	return out
}

// item reads the fields a task and a subtask share.
func (p *parser) item(tag string, m map[string]any, id, local, parent string) Task {
	t := Task{ID: id, Local: local, Parent: parent}
	t.Title = oneLine(str(m["title"]))
	t.Description = str(m["description"])
	t.Details = str(m["details"])
	if raw, has := m["status"]; has && raw != nil {
		s, ok := raw.(string)
		if !ok {
			if n, isNum := raw.(json.Number); isNum {
				s = n.String()
			} else {
				p.warn("wrong-type", "tag %s: task %s: status is %s, want text", tag, id, kind(raw))
			}
		}
		t.StatusRaw = clip(strings.TrimSpace(s), maxTitle)
	}
	var known bool
	t.Status, known = MapStatus(t.StatusRaw)
	if !known {
		p.findings = append(p.findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: workflow.Info, Code: "unknown-status", Path: p.path,
			Message: fmt.Sprintf("tag %s: task %s: status %q has no canonical value", tag, id, t.StatusRaw),
		})
	}
	t.Priority = strings.ToLower(oneLine(str(m["priority"])))
	if deps, ok := m["dependencies"].([]any); ok {
		for _, d := range deps {
			lit, ok := idText(d)
			if !ok || !validID(lit) {
				continue
			}
			t.Deps = append(t.Deps, DependencyID(parent, lit))
		}
	}
	t.Files = itemPaths(m)
	t.Mentions = mentions(t.Description, t.Details)
	t.Note = LastNote(t.Details)
	return t
}

// SubtaskID is the full id of a subtask whose id is written lit under
// parent, and its local part: a local id (1, "1") becomes "<parent>.1"; an
// id already written in full ("3.1", or the JSON float 3.1) stays as
// written. The literal is kept: "3.10" and "3.1" are two ids.
func SubtaskID(parent, lit string) (full, local string) {
	if strings.HasPrefix(lit, parent+".") && len(lit) > len(parent)+1 {
		return lit, lit[len(parent)+1:]
	}
	return parent + "." + lit, lit
}

// DependencyID normalises a dependency to a full id: in a subtask
// (parent set), a dependency without a dot names a sibling subtask, as the
// framework reads it; a dotted one is a full id; in a task, every
// dependency is an id as written.
func DependencyID(parent, lit string) string {
	if parent == "" || strings.Contains(lit, ".") {
		return lit
	}
	return parent + "." + lit
}

// idText is an id as written: a number's literal text or trimmed text.
func idText(v any) (string, bool) {
	switch t := v.(type) {
	case json.Number:
		return t.String(), true
	case string:
		s := strings.TrimSpace(t)
		return s, s != ""
	}
	return "", false
}

func str(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return t.String()
	}
	return ""
}

func kind(v any) string {
	if _, ok := v.(json.Number); ok {
		return "a number"
	}
	return tolerant.JSONKind(v)
}

// backtickRe finds `spans` in a description or details.
var backtickRe = lazyre.New("`([^`\n]{1,300})`")

// itemPaths lists the paths of an item's hand-written files array: a
// declared list, so every entry that looks like a path is one (an unsafe
// one included, for validation to report).
func itemPaths(m map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if len(out) >= maxItemPaths || len(s) > maxSpan || !refpath.LooksLikePath(s) {
			return
		}
		c := refpath.CleanPath(s)
		if c == "" || seen[c] {
			return
		}
		seen[c] = true
		out = append(out, c)
	}
	if list, ok := m["files"].([]any); ok {
		for _, it := range list {
			switch x := it.(type) {
			case string:
				add(x)
			case map[string]any:
				add(str(x["path"]))
			}
		}
	}
	sort.Strings(out)
	return out
}

// mentions lists the backticked spans of an item's texts, trimmed, each
// once, at most maxItemPaths*2 of them.
func mentions(texts ...string) []string {
	seen := map[string]bool{}
	var out []string
	for _, text := range texts {
		for _, sm := range backtickRe().FindAllStringSubmatch(text, maxItemPaths*4) {
			s := strings.TrimSpace(sm[1])
			if s == "" || seen[s] || len(out) >= maxItemPaths*2 {
				continue
			}
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Paths are the paths an item names: its files array, and the backticked
// spans of its description and details that are paths by the one prose
// rule (refpath.Prose: URLs, routes such as "/api/v2/contacts", globs and
// commands are not; exists answers for the repository, nil for none).
// Sorted, each once, at most maxItemPaths.
func (t Task) Paths(exists func(string) bool) []string {
	out := append([]string(nil), t.Files...)
	seen := map[string]bool{}
	for _, f := range out {
		seen[f] = true
	}
	for _, s := range t.Mentions {
		if len(out) >= maxItemPaths || len(s) > maxSpan {
			break
		}
		if c, ok := refpath.Prose(s, exists); ok && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// noteOpen starts a progress note the framework appends to details.
const noteOpen = "<info added on "

// LastNote is the text of the last `<info added on …>…</info added on …>`
// block of details, on one line and bounded; "" when there is none.
func LastNote(details string) string {
	i := strings.LastIndex(details, noteOpen)
	if i < 0 {
		return ""
	}
	rest := details[i+len(noteOpen):]
	j := strings.IndexByte(rest, '>')
	if j < 0 {
		return ""
	}
	stamp := strings.TrimSpace(rest[:j])
	body := rest[j+1:]
	if k := strings.Index(body, "</info added on"); k >= 0 {
		body = body[:k]
	}
	body = oneLine(body)
	if body == "" {
		return ""
	}
	if stamp != "" && len(stamp) <= 40 {
		return clip("("+oneLine(stamp)+") "+body, maxTitle)
	}
	return body
}

// oneLine collapses whitespace (newlines included) and bounds the text.
func oneLine(s string) string {
	if len(s) > 4*maxTitle*4 {
		s = s[:4*maxTitle*4]
	}
	return clip(strings.Join(strings.Fields(s), " "), maxTitle)
}

// clip bounds s to n runes, marking a cut with "…".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
