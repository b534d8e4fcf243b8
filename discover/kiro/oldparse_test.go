package kiro

// The tasks.md parser as it was before its per-line costs were cut (regular
// expressions, per-call replacers and cut sets, lower-casing copies): the
// reference the differential tests hold the parser to, byte for byte.

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
)

var (
	oldHeadingRe  = lazyre.New(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	oldInlineRe   = lazyre.New(`(?i)_(requirements?|depends|blocked|boundary)\s*[:：]\s*([^_]*)_`)
	oldParallelRe = lazyre.New(`\s*\(P\)\s*`)
	oldFileLineRe = lazyre.New(`(?i)^\**(?:files?|paths?)\**\s*[:：]\s*(.*)$`)
	oldRefIDRe    = lazyre.New(`^\d+(?:\.\d+)*$`)
	oldGraphHead  = lazyre.New(`(?i)task\s+dependency\s+graph`)
)

// oldParseTasksIn reads a Kiro tasks.md. It never fails: a line that is no
// task line is prose, a detail bullet of the task above it, or skipped.
// Boxes inside code fences and HTML comments are no tasks (Rule B3.6).
// Paths are read by the one prose rule (refpath.Prose), exists answering
// for the repository: a route, URL, glob or version never becomes a path.
func oldParseTasksIn(data []byte, exists func(string) bool) Tasks {
	var out Tasks
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	// the tasks and their id maps are made once at (about) their size:
	// grown by appending, a spec's tasks left three times their bytes
	// behind for the collector (the bench's specs shape: 9 of its 160 MB
	// allocated a run)
	boxes := min(boxLines(text), maxTasks)
	if boxes > 0 {
		out.Tasks = make([]Task, 0, boxes)
	}
	p := oldParser{out: &out, exists: exists, lastByID: make(map[string]int, boxes), seen: make(map[string]int, boxes)}
	// line by line as strings.Split would cut them (a last, empty line
	// after a final newline included), without the slice of every line
	for n := 1; ; n++ {
		line, rest, more := strings.Cut(text, "\n")
		text = rest
		line = strings.TrimRight(line, "\r")
		if len(line) > maxLineLen {
			line = clip(line, maxLineLen)
		}
		if !p.line(n, line) {
			out.Truncated = true
			break
		}
		if !more {
			break
		}
	}
	p.finish()
	if len(out.Tasks) == 0 {
		out.Tasks = nil // as without the estimate: no box was a task
	}
	return out
}

// oldParser is oldParseTasksIn's state between lines.
type oldParser struct {
	out      *Tasks
	exists   func(string) bool
	heading  string
	inGraph  bool // under the Task Dependency Graph heading
	fence    string
	graph    strings.Builder
	inFence  bool // the fence being read is the graph's
	comment  bool
	cur      int   // the last task (for its detail bullets), -1 none
	stack    []int // tasks by indentation, for parents without ids
	lastByID map[string]int
	seen     map[string]int
	started  bool
}

// line reads one line; false stops the parse (too many tasks).
func (p *oldParser) line(n int, line string) bool {
	if !p.started {
		p.cur = -1
		p.started = true
	}
	trim := strings.TrimLeft(line, " \t")
	if m := fence(trim); m != "" {
		switch {
		case p.fence == "":
			p.fence = m
			p.inFence = p.inGraph && p.out.Waves == nil && !p.out.GraphBad
			p.graph.Reset()
		case p.fence == m:
			p.fence = ""
			if p.inFence {
				p.readGraph()
				p.inFence = false
			}
		}
		return true
	}
	if p.fence != "" {
		if p.inFence && p.graph.Len() < maxGraphJSON {
			p.graph.WriteString(line)
			p.graph.WriteByte('\n')
		}
		return true
	}
	if p.comment {
		if strings.Contains(line, "-->") {
			p.comment = false
		}
		return true
	}
	if strings.HasPrefix(trim, "<!--") {
		p.comment = !strings.Contains(trim, "-->")
		return true
	}
	if m := oldHeading(trim, line); m != nil {
		p.heading = oneLine(strings.NewReplacer("**", "", "`", "").Replace(m[2]))
		p.inGraph = oldGraphHead().MatchString(p.heading)
		p.cur, p.stack = -1, p.stack[:0]
		return true
	}
	if trim != "" && strings.IndexByte("-*+", trim[0]) >= 0 {
		if m := box(line); m != nil {
			return p.task(n, m)
		}
	}
	if p.cur < 0 {
		return true
	}
	switch {
	case strings.TrimSpace(line) == "":
	case line[0] == ' ' || line[0] == '\t':
		p.detail(strings.TrimSpace(line))
	default:
		p.cur = -1
	}
	return true
}

// task reads a checkbox line.
func (p *oldParser) task(n int, m []string) bool {
	state, _ := utf8.DecodeRuneInString(m[2])
	switch {
	case state == 'x' || state == 'X':
		state = Done
	case state == '-' || state == '~':
	case unicode.IsSpace(state):
		state = Open
	default:
		if len(p.out.Unparsed) < maxUnparsed {
			p.out.Unparsed = append(p.out.Unparsed, n)
		}
		return true
	}
	if len(p.out.Tasks) >= maxTasks {
		return false
	}
	t := Task{State: state, Optional: m[3] != "", Indent: indent(m[1]), Line: n, Parent: -1, Heading: p.heading}
	rest := m[4]
	if tok, after := oldFirstToken(rest); tok != "" && tok[0] != '[' && len(tok) <= 48 {
		if id, star, ok := taskID(tok); ok {
			t.ID = id
			t.Optional = t.Optional || star
			rest = after
		}
	}
	rest = p.inline(&t, strings.TrimSpace(rest))
	if loc := oldParallelLoc(rest); loc != nil && (loc[1] == len(rest) || strings.HasSuffix(strings.TrimSpace(rest[:loc[1]]), "(P)")) {
		t.Parallel = true
		rest = strings.TrimSpace(rest[:loc[0]] + " " + rest[loc[1]:])
	}
	t.Title = oneLine(rest)
	t.Paths = oldDescPaths(rest, nil, p.exists)
	i := len(p.out.Tasks)
	t.Parent = p.parentOf(&t)
	if t.Parent >= 0 && p.out.Tasks[t.Parent].Optional {
		t.Optional = true // the children of an optional task are optional
	}
	if t.Parent >= 0 {
		p.out.Tasks[t.Parent].Children++
	}
	if t.ID != "" {
		if p.seen[t.ID] == 1 {
			p.out.Duplicates = append(p.out.Duplicates, t.ID)
		}
		p.seen[t.ID]++
		p.lastByID[t.ID] = i
	}
	p.out.Tasks = append(p.out.Tasks, t)
	for len(p.stack) > 0 && p.out.Tasks[p.stack[len(p.stack)-1]].Indent >= t.Indent {
		p.stack = p.stack[:len(p.stack)-1]
	}
	if len(p.stack) < 64 {
		p.stack = append(p.stack, i)
	}
	p.cur = i
	return true
}

// parentOf finds a task's parent (Rule B3.3): by id first (2.3 stands
// under the nearest task 2 above it), else by indentation.
func (p *oldParser) parentOf(t *Task) int {
	if t.ID != "" && oldRefIDRe().MatchString(t.ID) {
		if k := strings.LastIndexByte(t.ID, '.'); k > 0 {
			if j, ok := p.lastByID[t.ID[:k]]; ok {
				return j
			}
		}
	}
	for k := len(p.stack) - 1; k >= 0; k-- {
		if j := p.stack[k]; p.out.Tasks[j].Indent < t.Indent {
			return j
		}
	}
	return -1
}

// inline takes the annotations written on the task line itself
// (`_Requirements: 1.1_`, `_Depends: 1.2_`, `_Blocked: x_`) off its text.
func (p *oldParser) inline(t *Task, s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	for _, m := range oldInlineRe().FindAllStringSubmatch(s, 8) {
		oldAnnotate(t, strings.ToLower(m[1]), m[2])
	}
	return strings.TrimSpace(oldInlineRe().ReplaceAllString(s, " "))
}

// detail reads a line below the current task: an annotation or a detail
// bullet naming files.
func (p *oldParser) detail(s string) {
	t := &p.out.Tasks[p.cur]
	s = strings.TrimSpace(strings.TrimLeft(s, "-*+ \t"))
	if strings.ContainsAny(s, ":：") {
		if p.annotation(t, s) {
			return
		}
	}
	if strings.Contains(s, "Validates:") || strings.Contains(s, "Property ") || strings.Contains(s, "_Boundary") {
		return
	}
	if low := strings.ToLower(strings.TrimLeft(clip(s, 8), "*")); strings.HasPrefix(low, "file") || strings.HasPrefix(low, "path") {
		if m := oldFileLineRe().FindStringSubmatch(s); m != nil {
			t.Paths = addPaths(t.Paths, filesPaths(m[1], p.exists)...)
			return
		}
	}
	if !strings.ContainsAny(s, "/`") {
		return // no path without a folder or backticks
	}
	if strings.Contains(s, "_") {
		s = oldInlineRe().ReplaceAllString(s, " ")
	}
	t.Paths = oldDescPaths(s, t.Paths, p.exists)
}

// annotation reads an annotation line (`_Requirements: 1.1, 2.3_`,
// `**Requirements**: …`, `Requirements：…`, `_Depends: 1.2_`, `_Depends on:
// …_`, `_Blocked: why_`) into t and reports whether it was one.
func (p *oldParser) annotation(t *Task, s string) bool {
	head := strings.TrimLeft(s, "_* \t")
	colon := strings.IndexAny(head, ":：")
	if colon <= 0 || colon > 20 {
		return false
	}
	word := strings.ToLower(strings.TrimRight(head[:colon], "_* \t"))
	var kind string
	switch word {
	case "requirement", "requirements":
		kind = "requirements"
	case "depends", "depends on":
		kind = "depends"
	case "blocked":
		kind = "blocked"
	default:
		return false
	}
	val := head[colon:]
	_, size := utf8.DecodeRuneInString(val)
	val = strings.TrimRight(strings.TrimSpace(val[size:]), "_* \t")
	oldAnnotate(t, kind, val)
	return true
}

// oldAnnotate records one annotation on t.
func oldAnnotate(t *Task, kind, val string) {
	val = strings.TrimSpace(strings.Trim(strings.TrimSpace(val), "_*"))
	switch kind {
	case "requirement", "requirements":
		t.Requirements = oldAddRefs(t.Requirements, val)
	case "depends":
		t.Depends = oldAddRefs(t.Depends, val)
	case "blocked":
		if t.Blocked == "" {
			t.Blocked = oneLine(val)
			if t.Blocked == "" {
				t.Blocked = "blocked"
			}
		}
	}
}

// oldAddRefs splits a reference list ("1.1, 2.3", "1.1、2.3") into list; a
// list of words ("All requirements need foundational setup") is one entry.
func oldAddRefs(list []string, val string) []string {
	parts := strings.FieldsFunc(val, func(r rune) bool { return r == ',' || r == '、' || r == ';' || r == '，' })
	ids := true
	for _, x := range parts {
		if !oldRefIDRe().MatchString(strings.TrimSpace(x)) {
			ids = false
			break
		}
	}
	if !ids {
		parts = []string{val}
	}
	for _, x := range parts {
		x = clip(oneLine(x), 80)
		if x != "" && len(list) < maxRefs {
			list = append(list, x)
		}
	}
	return list
}

// readGraph decodes the Task Dependency Graph block:
// {"waves": [{"id": 0, "tasks": ["1.1"]}, …]}.
func (p *oldParser) readGraph() {
	v, err := tolerant.DecodeJSONMap([]byte(p.graph.String()))
	if err != nil {
		p.out.GraphBad = true
		return
	}
	waves, ok := v["waves"].([]any)
	if !ok {
		p.out.GraphBad = true
		return
	}
	total := 0
	out := [][]string{}
	for _, w := range waves {
		if len(out) >= maxWaves {
			break
		}
		wm, ok := w.(map[string]any)
		if !ok {
			continue
		}
		ids, _ := wm["tasks"].([]any)
		var wave []string
		for _, id := range ids {
			s, ok := tolerant.ScalarString(id)
			if !ok || total >= maxWaveTasks {
				continue
			}
			total++
			wave = append(wave, clip(oneLine(s), 40))
		}
		out = append(out, wave)
	}
	p.out.Waves = out
}

// finish closes the parse: an unclosed graph fence is still read.
func (p *oldParser) finish() {
	if p.fence != "" && p.inFence {
		p.readGraph()
	}
}

// oldDescPaths finds the paths a text names: backticked tokens that are
// paths, and bare tokens holding a folder and a known extension.
func oldDescPaths(desc string, out []string, exists func(string) bool) []string {
	plain := desc
	if strings.Contains(desc, "`") {
		var spans []string
		spans, plain = backticks(desc)
		for _, sp := range spans {
			if p, ok := pathToken(sp, exists); ok {
				out = addPaths(out, p)
			}
		}
	}
	if !strings.Contains(plain, "/") {
		return out
	}
	for _, w := range strings.Fields(plain) {
		if len(out) >= maxTaskPaths {
			break
		}
		tok := strings.TrimRight(strings.TrimLeft(w, "(\"'["), ".,;:)\"']")
		if !strings.Contains(tok, "/") || path.Ext(tok) == "" {
			continue
		}
		if p, ok := pathToken(tok, exists); ok {
			out = addPaths(out, p)
		}
	}
	return out
}

// oldHeading matches a heading line; trim is the line without indentation.
func oldHeading(trim, line string) []string {
	if !strings.HasPrefix(trim, "#") {
		return nil
	}
	return oldHeadingRe().FindStringSubmatch(line)
}

// oldFirstToken splits off the first blank-separated token of s.
func oldFirstToken(s string) (tok, rest string) {
	s = strings.TrimLeft(s, " \t")
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

// oldParallelLoc finds cc-sdd's (P) marker in a task's text.
func oldParallelLoc(s string) []int {
	if !strings.Contains(s, "(P)") {
		return nil
	}
	return oldParallelRe().FindStringIndex(s)
}
