package kiro

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
)

// Bounds on what one tasks.md contributes: a hostile file costs at most
// this much, whatever its size.
const (
	maxTasks     = 5000
	maxTaskPaths = 32
	maxRefs      = 16
	maxLineLen   = 4096
	maxTitleLen  = 200
	maxUnparsed  = 200
	maxGraphJSON = 256 << 10
	maxWaves     = 1000
	maxWaveTasks = 5000
)

// Task states as the box holds them (Rule B3.1).
const (
	Open       = ' ' // not started
	Done       = 'x' // completed ([x] or [X])
	InProgress = '-' // "Start task" was clicked
	Queued     = '~' // waiting in the IDE's task queue
)

// Task is one checkbox line of a Kiro tasks.md:
// `- [ ] 2.1 Create data models` with its detail bullets.
type Task struct {
	ID       string // "2.1", "M24-T002", "" for an unnumbered checkbox
	Title    string // one line, bounded, annotations removed
	State    rune   // Open, Done, InProgress or Queued
	Optional bool   // `- [ ]*`, a star on the id, or under an optional parent
	Indent   int    // leading columns (a tab counts 4)
	Line     int    // 1-based
	Parent   int    // index of the parent task, -1 at the top
	Children int    // number of child tasks
	Heading  string // the last heading above it ("" before any)
	// Requirements are the `_Requirements: 1.1, 2.3_` references.
	Requirements []string
	// Depends are cc-sdd's `_Depends: 1.2_` task ids.
	Depends []string
	// Blocked is cc-sdd's `_Blocked: <reason>_`, "" when not blocked.
	Blocked string
	// Parallel is cc-sdd's `(P)` after the title.
	Parallel bool
	// Paths are the repository paths the task and its detail bullets name.
	Paths []string
}

// Leaf reports whether t has no child task: an execution unit.
func (t *Task) Leaf() bool { return t.Children == 0 }

// Closed reports whether t's box is ticked.
func (t *Task) Closed() bool { return t.State == Done }

// Name is how the task prints: its id and title ("2.1 Create data models").
func (t *Task) Name() string {
	if t.ID == "" {
		return t.Title
	}
	return t.ID + " " + t.Title
}

// Tasks is a parsed tasks.md.
type Tasks struct {
	Tasks []Task
	// Unparsed are the lines of boxes no Kiro state fills ([/], [?], [!]).
	Unparsed []int
	// Waves are the task ids of the `## Task Dependency Graph` block, wave
	// by wave, when it holds one.
	Waves [][]string
	// GraphBad is set when the graph block does not decode.
	GraphBad bool
	// Duplicates are ids written on more than one task line.
	Duplicates []string
	// Truncated reports that the file holds more than maxTasks tasks.
	Truncated bool
}

// Counts are a spec's figures (Rule B4.1): required leaves, optional
// leaves, and every box as cc-sdd's spec-status counts them.
type Counts struct {
	Done, Total                 int // required leaves
	OptionalDone, OptionalTotal int
	BoxesDone, Boxes            int
}

// Count counts the tasks.
func (ts *Tasks) Count() Counts {
	var c Counts
	for i := range ts.Tasks {
		t := &ts.Tasks[i]
		c.Boxes++
		if t.Closed() {
			c.BoxesDone++
		}
		if !t.Leaf() {
			continue
		}
		if t.Optional {
			c.OptionalTotal++
			if t.Closed() {
				c.OptionalDone++
			}
			continue
		}
		c.Total++
		if t.Closed() {
			c.Done++
		}
	}
	return c
}

// FirstOpen is the first open required leaf in document order (Part D.4),
// or nil.
func (ts *Tasks) FirstOpen() *Task {
	for i := range ts.Tasks {
		if t := &ts.Tasks[i]; t.Leaf() && !t.Optional && !t.Closed() {
			return t
		}
	}
	return nil
}

// Holes lists the open required leaves that stand before a closed one.
func (ts *Tasks) Holes() []string {
	last := -1
	for i := range ts.Tasks {
		if t := &ts.Tasks[i]; t.Leaf() && !t.Optional && t.Closed() {
			last = i
		}
	}
	var out []string
	for i := 0; i < last; i++ {
		if t := &ts.Tasks[i]; t.Leaf() && !t.Optional && !t.Closed() {
			out = append(out, ts.label(i))
		}
	}
	return out
}

// Marked lists the tasks whose box holds state ([-] or [~]).
func (ts *Tasks) Marked(state rune) []string {
	var out []string
	for i := range ts.Tasks {
		if ts.Tasks[i].State == state {
			out = append(out, ts.label(i))
		}
	}
	return out
}

// LeafMarked reports whether a leaf is in progress ([-]).
func (ts *Tasks) LeafMarked() bool {
	for i := range ts.Tasks {
		if t := &ts.Tasks[i]; t.Leaf() && t.State == InProgress {
			return true
		}
	}
	return false
}

// StaleParents lists the parents whose own box disagrees with their
// children (Rule B3.4): open (or marked) while every required child is
// done ("unticked"), or ticked while a required child is open ("ticked").
func (ts *Tasks) StaleParents() (unticked, ticked []string) {
	for i := range ts.Tasks {
		t := &ts.Tasks[i]
		if t.Leaf() || t.Optional {
			continue
		}
		done, open := ts.requiredUnder(i)
		switch {
		case !t.Closed() && open == 0 && done > 0:
			unticked = append(unticked, ts.label(i))
		case t.Closed() && open > 0:
			ticked = append(ticked, ts.label(i))
		}
	}
	return unticked, ticked
}

// requiredUnder counts the done and open required leaves below task i.
func (ts *Tasks) requiredUnder(i int) (done, open int) {
	for j := i + 1; j < len(ts.Tasks); j++ {
		t := &ts.Tasks[j]
		if !ts.below(j, i) {
			continue
		}
		if !t.Leaf() || t.Optional {
			continue
		}
		if t.Closed() {
			done++
		} else {
			open++
		}
	}
	return done, open
}

// below reports whether task j has task i among its ancestors.
func (ts *Tasks) below(j, i int) bool {
	for k, n := ts.Tasks[j].Parent, 0; k >= 0 && n < 64; k, n = ts.Tasks[k].Parent, n+1 {
		if k == i {
			return true
		}
	}
	return false
}

// Top is the index of task i's top-level ancestor (i itself at the top).
func (ts *Tasks) Top(i int) int {
	for n := 0; ts.Tasks[i].Parent >= 0 && n < 64; n++ {
		i = ts.Tasks[i].Parent
	}
	return i
}

// label is a task's short name: its id, else its title clipped.
func (ts *Tasks) label(i int) string {
	t := &ts.Tasks[i]
	if t.ID != "" {
		return t.ID
	}
	return clip(t.Title, 40)
}

var (
	inlineRe   = lazyre.New(`(?i)_(requirements?|depends|blocked|boundary)\s*[:：]\s*([^_]*)_`)
	fileLineRe = lazyre.New(`(?i)^\**(?:files?|paths?)\**\s*[:：]\s*(.*)$`)
	graphHead  = lazyre.New(`(?i)task\s+dependency\s+graph`)
	// headingMarks takes bold and code marks off a heading's text
	headingMarks = strings.NewReplacer("**", "", "`", "")
)

// ParseTasks reads a tasks.md without a repository at hand: only
// file-like tokens are paths (see ParseTasksIn).
func ParseTasks(data []byte) Tasks { return ParseTasksIn(data, nil) }

// ParseTasksIn reads a Kiro tasks.md. It never fails: a line that is no
// task line is prose, a detail bullet of the task above it, or skipped.
// Boxes inside code fences and HTML comments are no tasks (Rule B3.6).
// Paths are read by the one prose rule (refpath.Prose), exists answering
// for the repository: a route, URL, glob or version never becomes a path.
func ParseTasksIn(data []byte, exists func(string) bool) Tasks {
	var out Tasks
	text := string(data)
	if !utf8.ValidString(text) { // (ToValidUTF8 decodes every rune to find out)
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	// the tasks and their id maps are made once at (about) their size:
	// grown by appending, a spec's tasks left three times their bytes
	// behind for the collector (the bench's specs shape: 9 of its 160 MB
	// allocated a run)
	boxes := min(boxLines(text), maxTasks)
	if boxes > 0 {
		out.Tasks = make([]Task, 0, boxes)
	}
	p := parser{out: &out, exists: exists, ids: make(map[string]idSeen, boxes)}
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

// parser is ParseTasksIn's state between lines.
type parser struct {
	out     *Tasks
	exists  func(string) bool
	heading string
	inGraph bool // under the Task Dependency Graph heading
	fence   string
	graph   strings.Builder
	inFence bool // the fence being read is the graph's
	comment bool
	cur     int               // the last task (for its detail bullets), -1 none
	stack   []int             // tasks by indentation, for parents without ids
	ids     map[string]idSeen // the task ids written so far
	started bool
}

// idSeen is what the parse knows of a task id: how many task lines
// wrote it, and the index of the last one.
type idSeen struct{ times, last int }

// line reads one line; false stops the parse (too many tasks).
func (p *parser) line(n int, line string) bool {
	if !p.started {
		p.cur = -1
		p.started = true
	}
	trim := trimLeftSet(line, " \t")
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
	if text, ok := heading(trim, line); ok {
		p.heading = oneLine(headingMarks.Replace(text))
		p.inGraph = graphHead().MatchString(p.heading)
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
func (p *parser) task(n int, m []string) bool {
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
	if tok, after := firstToken(rest); tok != "" && tok[0] != '[' && len(tok) <= 48 {
		if id, star, ok := taskID(tok); ok {
			t.ID = id
			t.Optional = t.Optional || star
			rest = after
		}
	}
	rest = p.inline(&t, strings.TrimSpace(rest))
	if loc := parallelLoc(rest); loc != nil && (loc[1] == len(rest) || strings.HasSuffix(strings.TrimSpace(rest[:loc[1]]), "(P)")) {
		t.Parallel = true
		rest = strings.TrimSpace(rest[:loc[0]] + " " + rest[loc[1]:])
	}
	t.Title = oneLine(rest)
	t.Paths = descPaths(rest, nil, p.exists)
	i := len(p.out.Tasks)
	t.Parent = p.parentOf(&t)
	if t.Parent >= 0 && p.out.Tasks[t.Parent].Optional {
		t.Optional = true // the children of an optional task are optional
	}
	if t.Parent >= 0 {
		p.out.Tasks[t.Parent].Children++
	}
	if t.ID != "" {
		seen := p.ids[t.ID]
		if seen.times == 1 {
			p.out.Duplicates = append(p.out.Duplicates, t.ID)
		}
		p.ids[t.ID] = idSeen{times: seen.times + 1, last: i}
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
func (p *parser) parentOf(t *Task) int {
	if t.ID != "" && isRefID(t.ID) {
		if k := strings.LastIndexByte(t.ID, '.'); k > 0 {
			if seen, ok := p.ids[t.ID[:k]]; ok {
				return seen.last
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
func (p *parser) inline(t *Task, s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	for _, m := range inlineRe().FindAllStringSubmatch(s, 8) {
		annotate(t, strings.ToLower(m[1]), m[2])
	}
	return strings.TrimSpace(inlineRe().ReplaceAllString(s, " "))
}

// detail reads a line below the current task: an annotation or a detail
// bullet naming files.
func (p *parser) detail(s string) {
	t := &p.out.Tasks[p.cur]
	s = strings.TrimSpace(trimLeftSet(s, "-*+ \t"))
	if colonIndex(s) >= 0 {
		if p.annotation(t, s) {
			return
		}
	}
	if strings.Contains(s, "Validates:") || strings.Contains(s, "Property ") || strings.Contains(s, "_Boundary") {
		return
	}
	// the first 8 bytes (clipped at a rune) without their leading stars
	// start with "file" or "path" in any case
	if low := strings.TrimLeft(s[:clipCut(s, 8)], "*"); hasFoldPrefix(low, "file") || hasFoldPrefix(low, "path") {
		if m := fileLineRe().FindStringSubmatch(s); m != nil {
			t.Paths = addPaths(t.Paths, filesPaths(m[1], p.exists)...)
			return
		}
	}
	if strings.IndexByte(s, '/') < 0 && strings.IndexByte(s, '`') < 0 {
		return // no path without a folder or backticks
	}
	if strings.Contains(s, "_") {
		s = inlineRe().ReplaceAllString(s, " ")
	}
	t.Paths = descPaths(s, t.Paths, p.exists)
}

// annotation reads an annotation line (`_Requirements: 1.1, 2.3_`,
// `**Requirements**: …`, `Requirements：…`, `_Depends: 1.2_`, `_Depends on:
// …_`, `_Blocked: why_`) into t and reports whether it was one.
func (p *parser) annotation(t *Task, s string) bool {
	head := trimLeftSet(s, "_* \t")
	colon := colonIndex(head)
	if colon <= 0 || colon > 20 {
		return false
	}
	kind := annotationKind(trimRightSet(head[:colon], "_* \t"))
	if kind == "" {
		return false
	}
	val := head[colon:]
	_, size := utf8.DecodeRuneInString(val)
	val = trimRightSet(strings.TrimSpace(val[size:]), "_* \t")
	annotate(t, kind, val)
	return true
}

// annotationKind is the kind of annotation the word before an
// annotation's colon names, in any case ("" for none): an ASCII word is
// lower-cased in place, any other by strings.ToLower (the Kelvin sign
// lower-cases to k).
func annotationKind(word string) string {
	var buf [24]byte
	low := buf[:0]
	for i := 0; i < len(word); i++ {
		c := word[i]
		if c >= utf8.RuneSelf || len(low) == len(buf) {
			return kindOf(strings.ToLower(word))
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low = append(low, c)
	}
	return kindOf(string(low))
}

// kindOf is the kind of annotation a lower-case word names, "" for none.
func kindOf(word string) string {
	switch word {
	case "requirement", "requirements":
		return "requirements"
	case "depends", "depends on":
		return "depends"
	case "blocked":
		return "blocked"
	}
	return ""
}

// annotate records one annotation on t.
func annotate(t *Task, kind, val string) {
	val = strings.TrimSpace(trimRightSet(trimLeftSet(strings.TrimSpace(val), "_*"), "_*"))
	switch kind {
	case "requirement", "requirements":
		t.Requirements = addRefs(t.Requirements, val)
	case "depends":
		t.Depends = addRefs(t.Depends, val)
	case "blocked":
		if t.Blocked == "" {
			t.Blocked = oneLine(val)
			if t.Blocked == "" {
				t.Blocked = "blocked"
			}
		}
	}
}

// addRefs splits a reference list ("1.1, 2.3", "1.1、2.3") into list; a
// list of words ("All requirements need foundational setup") is one entry.
func addRefs(list []string, val string) []string {
	parts := strings.FieldsFunc(val, func(r rune) bool { return r == ',' || r == '、' || r == ';' || r == '，' })
	ids := true
	for _, x := range parts {
		if !isRefID(strings.TrimSpace(x)) {
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
func (p *parser) readGraph() {
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
func (p *parser) finish() {
	if p.fence != "" && p.inFence {
		p.readGraph()
	}
}
