package prompt

import (
	"fmt"
	"strings"
	"unicode"
)

// maxShort is the most options a short choice has: each is picked by its
// digit, and typing never filters.
const maxShort = 9

// maxFilter is the most characters a long choice's filter keeps; keys past
// it are ignored, so a held-down key cannot make each redraw slower.
const maxFilter = 256

// pageRows is how many options a long choice shows at once.
const pageRows = 10

// style colours the parts of a prompt, or not.
type style struct{ color bool }

func (s style) wrap(code, text string) string {
	if !s.color {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s style) mark() string                { return s.wrap("32", "?") }
func (s style) question(text string) string { return s.wrap("1", text) }
func (s style) picked(text string) string   { return s.wrap("36", text) }
func (s style) help(text string) string     { return s.wrap("2", text) }

// styleHead colours the "? question" that starts the first of lines.
func styleHead(lines []string, st style) []string {
	if len(lines) > 0 && strings.HasPrefix(lines[0], "? ") {
		lines[0] = st.mark() + " " + st.question(lines[0][2:])
	}
	return lines
}

// model is one question: what to draw for a width, what a key does, and
// the line left once it is answered.
type model interface {
	lines(width int, st style) []string
	// handle applies a key; done is true once answered or cancelled
	// (err ErrInterrupted).
	handle(k key) (done bool, err error)
	final(st style) string
}

// ---- Select ----

// selectModel is a Select. A short choice (at most nine options) is
// numbered: a digit, or the shortcut letter of an option labelled
// "[x] text", moves to that option, arrows move, Enter answers the
// highlighted one (the default at first); typing never filters. A long
// choice filters on what is typed; Enter with nothing matching cancels.
type selectModel struct {
	message string
	options []string // sanitized
	keys    []rune   // the shortcut letter of each option, or 0
	short   bool
	cursor  int    // an index into options
	filter  []rune // long choices only
	chosen  int
	err     error
}

func newSelect(message string, options []string, def int) *selectModel {
	m := &selectModel{message: sanitize(message), short: len(options) <= maxShort, chosen: -1}
	for _, o := range options {
		m.options = append(m.options, sanitize(o))
	}
	if def < 0 || def >= len(options) {
		def = 0
	}
	m.cursor = def
	m.keys = shortcuts(m.options)
	return m
}

// shortcuts returns the shortcut letters of options: when every option is
// labelled "[x] text" with a distinct lowercase letter x, those letters;
// else none (a list whose labels come from a repository never gets them).
func shortcuts(options []string) []rune {
	if len(options) == 0 || len(options) > maxShort {
		return nil
	}
	keys := make([]rune, len(options))
	seen := map[rune]bool{}
	for i, o := range options {
		if len(o) < 4 || o[0] != '[' || o[2] != ']' || o[3] != ' ' || o[1] < 'a' || o[1] > 'z' {
			return nil
		}
		r := rune(o[1])
		if seen[r] {
			return nil
		}
		seen[r] = true
		keys[i] = r
	}
	return keys
}

// visible is the indexes of the options shown: all of them, or those
// matching the filter of a long choice.
func (m *selectModel) visible() []int {
	var out []int
	f := strings.ToLower(string(m.filter))
	for i, o := range m.options {
		if f == "" || strings.Contains(strings.ToLower(o), f) {
			out = append(out, i)
		}
	}
	return out
}

// interrupt reports whether k cancels a prompt (Ctrl-C, Ctrl-D, Esc), and
// then sets *err to ErrInterrupted.
func interrupt(k key, err *error) bool {
	switch k.kind {
	case keyCtrlC, keyCtrlD, keyEsc:
		*err = ErrInterrupted
		return true
	}
	return false
}

func (m *selectModel) handle(k key) (bool, error) {
	if interrupt(k, &m.err) {
		return true, m.err
	}
	vis := m.visible()
	pos := -1
	for p, i := range vis {
		if i == m.cursor {
			pos = p
		}
	}
	switch k.kind {
	case keyEnter:
		if pos < 0 { // nothing matches the filter: cancel, never guess
			m.err = ErrInterrupted
			return true, m.err
		}
		m.chosen = m.cursor
		return true, nil
	case keyUp, keyDown, keyHome, keyEnd:
		if len(vis) == 0 {
			return false, nil
		}
		switch {
		case pos < 0:
			pos = 0
		case k.kind == keyUp:
			pos = (pos - 1 + len(vis)) % len(vis)
		case k.kind == keyDown:
			pos = (pos + 1) % len(vis)
		case k.kind == keyHome:
			pos = 0
		default:
			pos = len(vis) - 1
		}
		m.cursor = vis[pos]
	case keyRune:
		if m.short {
			m.pick(k.r)
			return false, nil
		}
		if len(m.filter) < maxFilter {
			m.filter = append(m.filter, k.r)
			m.refocus()
		}
	case keyBackspace:
		if !m.short && len(m.filter) > 0 {
			m.filter = m.filter[:len(m.filter)-1]
			m.refocus()
		}
	case keyClear:
		if !m.short {
			m.filter = nil
			m.refocus()
		}
	}
	return false, nil
}

// pick moves a short choice to the option of digit or shortcut r; any
// other key is ignored.
func (m *selectModel) pick(r rune) {
	if r >= '1' && r <= '9' && int(r-'1') < len(m.options) {
		m.cursor = int(r - '1')
		return
	}
	r = unicode.ToLower(r)
	for i, k := range m.keys {
		if k == r {
			m.cursor = i
		}
	}
}

// refocus keeps the cursor on a visible option after the filter changed.
func (m *selectModel) refocus() {
	vis := m.visible()
	for _, i := range vis {
		if i == m.cursor {
			return
		}
	}
	if len(vis) > 0 {
		m.cursor = vis[0]
	}
}

func (m *selectModel) lines(width int, st style) []string {
	var out []string
	head := m.message
	if !m.short {
		head += " [filter: " + sanitize(string(m.filter)) + "]"
	}
	out = append(out, styleHead(wrap("? "+head, width, 2), st)...)
	vis := m.visible()
	start := 0
	if !m.short && len(vis) > pageRows {
		for p, i := range vis {
			if i == m.cursor {
				start = min(max(0, p-pageRows/2), len(vis)-pageRows)
			}
		}
		vis = vis[start : start+pageRows]
	}
	numw := len(fmt.Sprint(len(m.options)))
	for _, i := range vis {
		mark := "  "
		if i == m.cursor {
			mark = "> "
		}
		label := fmt.Sprintf("%s%*d) %s", mark, numw, i+1, m.options[i])
		for _, l := range wrap(label, width, numw+4) {
			if i == m.cursor {
				l = st.picked(l)
			}
			out = append(out, l)
		}
	}
	if len(m.visible()) == 0 {
		out = append(out, wrap("  (nothing matches: Enter cancels)", width, 4)...)
	}
	for _, l := range wrap(m.helpLine(), width, 2) {
		out = append(out, st.help(l))
	}
	return out
}

// helpLine documents the key bindings.
func (m *selectModel) helpLine() string {
	if !m.short {
		return "  [type to filter, up/down move, Enter picks, Esc or Ctrl-D cancels]"
	}
	keys := fmt.Sprintf("1-%d", len(m.options))
	if len(m.options) == 1 {
		keys = "1"
	}
	if len(m.keys) > 0 {
		letters := make([]string, len(m.keys))
		for i, k := range m.keys {
			letters[i] = string(k)
		}
		keys += " or " + strings.Join(letters, "/")
	}
	return "  [" + keys + " or up/down choose, Enter answers, Esc or Ctrl-D cancels]"
}

func (m *selectModel) final(st style) string {
	answer := "cancelled"
	if m.err == nil && m.chosen >= 0 {
		answer = m.options[m.chosen]
	}
	return st.mark() + " " + st.question(m.message) + " " + st.picked(answer)
}

// ---- Confirm ----

// confirmModel is a yes/no question: y or n (shown as typed), Enter
// answers, Enter alone takes the default; other keys are ignored.
type confirmModel struct {
	message string
	def     bool
	typed   rune // 'y', 'n' or 0
	answer  bool
	err     error
	done    bool
}

func (m *confirmModel) handle(k key) (bool, error) {
	if interrupt(k, &m.err) {
		m.done = true
		return true, m.err
	}
	switch k.kind {
	case keyEnter:
		m.answer, m.done = m.def, true
		if m.typed != 0 {
			m.answer = m.typed == 'y'
		}
		return true, nil
	case keyBackspace, keyClear:
		m.typed = 0
	case keyRune:
		switch unicode.ToLower(k.r) {
		case 'y':
			m.typed = 'y'
		case 'n':
			m.typed = 'n'
		}
	}
	return false, nil
}

func (m *confirmModel) hint() string {
	if m.def {
		return "(Y/n)"
	}
	return "(y/N)"
}

func (m *confirmModel) lines(width int, st style) []string {
	typed := ""
	if m.typed != 0 {
		typed = string(m.typed)
	}
	ls := wrap("? "+m.message+" "+m.hint()+" "+typed, width, 2)
	ls = styleHead(ls, st)
	return append(ls, wrap("  [y or n, Enter answers, Esc or Ctrl-D cancels]", width, 2)...)
}

func (m *confirmModel) final(st style) string {
	answer := "no"
	switch {
	case m.err != nil:
		answer = "cancelled"
	case m.answer:
		answer = "yes"
	}
	return st.mark() + " " + st.question(m.message) + " " + st.picked(answer)
}

// ---- Input ----

// inputModel is a line of text: printable characters, Backspace, Ctrl-U;
// Enter answers (the default when nothing was typed); Ctrl-D, Esc and
// Ctrl-C cancel, even after text was typed.
type inputModel struct {
	message string
	def     string
	text    []rune
	err     error
}

func (m *inputModel) handle(k key) (bool, error) {
	if interrupt(k, &m.err) {
		return true, m.err
	}
	switch k.kind {
	case keyEnter:
		if len(m.text) == 0 {
			m.text = []rune(m.def)
		}
		return true, nil
	case keyBackspace:
		if len(m.text) > 0 {
			m.text = m.text[:len(m.text)-1]
		}
	case keyClear:
		m.text = nil
	case keyRune:
		if len(m.text) < 4096 {
			m.text = append(m.text, k.r)
		}
	}
	return false, nil
}

func (m *inputModel) lines(width int, st style) []string {
	head := "? " + m.message + " "
	if m.def != "" {
		head += "(" + m.def + ") "
	}
	ls := wrap(head+string(m.text), width, 2)
	ls = styleHead(ls, st)
	return append(ls, wrap("  [Enter answers, Esc or Ctrl-D cancels]", width, 2)...)
}

func (m *inputModel) final(st style) string {
	answer := string(m.text)
	if m.err != nil {
		answer = "cancelled"
	}
	return st.mark() + " " + st.question(m.message) + " " + st.picked(answer)
}
