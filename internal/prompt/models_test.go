package prompt

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// keysOf decodes s as typed keys, a lone trailing Escape included.
func keysOf(s string) []key {
	keys, rest := decodeKeys([]byte(s))
	if len(rest) > 0 && rest[0] == 0x1b {
		keys = append(keys, key{kind: keyEsc})
	}
	return keys
}

func TestDecodeKeys(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []key
		rest string
	}{
		{"2\r", []key{{keyRune, '2'}, {kind: keyEnter}}, ""},
		{"\x1b[A\x1b[B\x1bOA", []key{{kind: keyUp}, {kind: keyDown}, {kind: keyUp}}, ""},
		{"\x03\x04\x7f\x15\t", []key{{kind: keyCtrlC}, {kind: keyCtrlD}, {kind: keyBackspace}, {kind: keyClear}, {kind: keyDown}}, ""},
		{"\x1b", nil, "\x1b"},
		{"\x1b[", nil, "\x1b["},
		{"\x1bx", []key{{kind: keyEsc}, {keyRune, 'x'}}, ""},
		{"\r\n", []key{{kind: keyEnter}}, ""},
		{"é", []key{{keyRune, 'é'}}, ""},
		{"\xc3", nil, "\xc3"},
		{"\xff\x01", []key{{kind: keyOther}, {kind: keyOther}}, ""},
		{"\x1b[5~\x1b[3~", []key{{kind: keyOther}, {kind: keyBackspace}}, ""},
	} {
		got, rest := decodeKeys([]byte(tc.in))
		if !reflect.DeepEqual(got, tc.want) || string(rest) != tc.rest {
			t.Errorf("decodeKeys(%q) = %v, %q; want %v, %q", tc.in, got, rest, tc.want, tc.rest)
		}
	}
}

func TestSelect(t *testing.T) {
	resume := []string{"[y] yes", "[r] restart from scratch", "[c] cancel"}
	list := []string{"SDC for story 4.2", "QA Loop for story 3.1", "Spec Pipeline -- login", "none (start fresh)"}
	var long []string
	for _, s := range []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo"} {
		long = append(long, "workflow "+s)
	}
	for _, tc := range []struct {
		name    string
		options []string
		def     int
		typed   string
		want    int
		wantErr error
	}{
		{"enter takes the default", resume, 0, "\r", 0, nil},
		{"c then enter cancels", resume, 0, "c\r", 2, nil},
		{"shortcut upper case", resume, 0, "R\r", 1, nil},
		{"number", resume, 0, "3\r", 2, nil},
		{"2 then enter is the second", list, 0, "2\r", 1, nil},
		{"4 is none", list, 0, "4\r", 3, nil},
		{"no letters for a list", list, 0, "q\r", 0, nil},
		{"out-of-range digit ignored", list, 1, "9\r", 1, nil},
		{"garbage ignored", resume, 2, "zzz\r", 2, nil},
		{"arrows", resume, 0, "\x1b[B\x1b[B\r", 2, nil},
		{"up wraps", list, 0, "\x1b[A\r", 3, nil},
		{"ctrl-d", resume, 0, "\x04", 0, ErrInterrupted},
		{"garbage then ctrl-d", list, 0, "zzz\x04", 0, ErrInterrupted},
		{"esc", resume, 0, "\x1b", 0, ErrInterrupted},
		{"ctrl-c after a pick", resume, 0, "y\x03", 0, ErrInterrupted},
		{"long: filter", long, 0, "hot\r", 7, nil},
		{"long: filter then down", long, 0, "e\x1b[B\r", 3, nil},
		{"long: empty filter result cancels", long, 0, "zzz\r", 0, ErrInterrupted},
		{"long: backspace", long, 0, "zzz\x7f\x7f\x7fkilo\r", 10, nil},
		{"long: garbage then ctrl-d", long, 0, "zzz\x04", 0, ErrInterrupted},
		{"out-of-range default", resume, 7, "\r", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newSelect("Pick?", tc.options, tc.def)
			var err error
			done := false
			for _, k := range keysOf(tc.typed) {
				m.lines(40, style{}) // drawing never panics in between
				if done, err = m.handle(k); done {
					break
				}
			}
			if !done {
				t.Fatalf("not answered after %q", tc.typed)
			}
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err == nil && m.chosen != tc.want {
				t.Errorf("chose %d, want %d", m.chosen, tc.want)
			}
			if err != nil && !strings.Contains(m.final(style{}), "cancelled") {
				t.Errorf("final line %q does not say cancelled", m.final(style{}))
			}
		})
	}
}

func TestSelectLines(t *testing.T) {
	m := newSelect("Resume this workflow?", []string{"[y] yes", "[r] restart from scratch", "[c] cancel"}, 2)
	got := m.lines(80, style{})
	want := []string{
		"? Resume this workflow?",
		"  1) [y] yes",
		"  2) [r] restart from scratch",
		"> 3) [c] cancel",
		"  [1-3 or y/r/c or up/down choose, Enter answers, Esc or Ctrl-D cancels]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// narrow: every line fits, the options keep their numbers
	for _, width := range []int{39, 20, 8, 1} {
		lines := m.lines(width, style{})
		for _, l := range lines {
			if textWidth(l) > max(width, 2) {
				t.Errorf("width %d: %q is wider", width, l)
			}
		}
		if width >= 20 && !strings.Contains(strings.Join(lines, "\n"), "3) [c]") {
			t.Errorf("width %d: the numbers are lost:\n%s", width, strings.Join(lines, "\n"))
		}
	}
	// a label from a repository cannot draw control sequences or claim a
	// shortcut
	m = newSelect("Which?", []string{"[y] evil\x1b[2J\u202e", "none (start fresh)"}, 0)
	joined := strings.Join(m.lines(80, style{}), "\n")
	if strings.ContainsAny(joined, "\x1b\u202e") {
		t.Errorf("control characters drawn: %q", joined)
	}
	if m.keys != nil {
		t.Errorf("shortcuts %q for a list with an unlabelled option", m.keys)
	}
	if done, _ := m.handle(key{keyRune, 'y'}); done || m.cursor != 0 {
		t.Errorf("y moved or answered")
	}
	// colour marks the question only when asked for
	if l := newSelect("Q?", []string{"a"}, 0).lines(80, style{color: true}); !strings.Contains(l[0], "\x1b[") {
		t.Errorf("no colour: %q", l[0])
	}
}

func TestConfirmModel(t *testing.T) {
	for _, tc := range []struct {
		name    string
		def     bool
		typed   string
		want    bool
		wantErr error
	}{
		{"enter: default no", false, "\r", false, nil},
		{"enter: default yes", true, "\r", true, nil},
		{"y", false, "y\r", true, nil},
		{"Y", false, "Y\r", true, nil},
		{"n over default yes", true, "n\r", false, nil},
		{"y then backspace", false, "y\x7f\r", false, nil},
		{"garbage ignored", false, "zzz\r", false, nil},
		{"ctrl-d", true, "\x04", false, ErrInterrupted},
		{"y then ctrl-d", false, "y\x04", false, ErrInterrupted},
		{"esc", true, "\x1b", false, ErrInterrupted},
		{"ctrl-c", true, "\x03", false, ErrInterrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &confirmModel{message: "Sure?", def: tc.def}
			var err error
			for _, k := range keysOf(tc.typed) {
				m.lines(10, style{})
				if done, e := m.handle(k); done {
					err = e
					break
				}
			}
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) || (err == nil && m.answer != tc.want) {
				t.Errorf("got %v, %v; want %v, %v", m.answer, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestInputModel(t *testing.T) {
	for _, tc := range []struct {
		name, def, typed, want string
		wantErr                error
	}{
		{"text", "", "  proceed \r", "  proceed ", nil},
		{"default", "x", "\r", "x", nil},
		{"backspace and ctrl-u", "", "abc\x7f\x15pro\r", "pro", nil},
		{"proceed then ctrl-d cancels", "", "proceed\x04", "", ErrInterrupted},
		{"esc", "", "proceed\x1b", "", ErrInterrupted},
		{"control characters are not typed", "", "a\x01\x1b[Cb\r", "ab", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &inputModel{message: "Type:", def: tc.def}
			var err error
			for _, k := range keysOf(tc.typed) {
				m.lines(12, style{})
				if done, e := m.handle(k); done {
					err = e
					break
				}
			}
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) || (err == nil && string(m.text) != tc.want) {
				t.Errorf("got %q, %v; want %q, %v", string(m.text), err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		s      string
		width  int
		indent int
		want   []string
	}{
		{"short", 10, 2, []string{"short"}},
		{"one two three", 8, 2, []string{"one two", "  three"}},
		{"abcdefghij", 4, 0, []string{"abcd", "efgh", "ij"}},
		{"日本語日本語", 5, 0, []string{"日本", "語日", "本語"}},
		{"x", 0, 0, []string{"x"}},
	} {
		if got := wrap(tc.s, tc.width, tc.indent); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("wrap(%q, %d, %d) = %q, want %q", tc.s, tc.width, tc.indent, got, tc.want)
		}
	}
}

// TestLongTypingStaysCheap: a held-down key in a long choice, redrawn
// after every key on a narrow terminal, neither grows the filter past
// maxFilter nor makes redraws slower and slower (wrap was quadratic in the
// filter's length, which hung the fuzzer).
func TestLongTypingStaysCheap(t *testing.T) {
	opts := make([]string, 15)
	for i := range opts {
		opts[i] = strings.Repeat("o", i)
	}
	m := newSelect("Q?", opts, 3)
	start := time.Now()
	for _, k := range keysOf(strings.Repeat("a ", 5000)) {
		m.lines(7, style{})
		if done, _ := m.handle(k); done {
			t.Fatalf("answered by %v", k)
		}
	}
	if len(m.filter) != maxFilter {
		t.Errorf("filter kept %d characters, want %d", len(m.filter), maxFilter)
	}
	if d := time.Since(start); d > 30*time.Second { // 1 s here under -race; the old wrap took minutes
		t.Errorf("10,000 keys took %v", d)
	}
	long := strings.Repeat("abc ", 250000)
	if got := len(wrap(long, 7, 2)); got < 200000 {
		t.Errorf("wrap of 1 MB at width 7 gave %d lines", got)
	}
}

// FuzzSelect: no key sequence panics, and only Enter answers.
func FuzzSelect(f *testing.F) {
	f.Add([]byte("zzz\x04"), 3)
	f.Add([]byte("\x1b[A\x1b[B9\r"), 12)
	f.Add([]byte(strings.Repeat("x y ", 600)+"\r"), 15)
	f.Fuzz(func(t *testing.T, typed []byte, n int) {
		n = n%20 + 1
		if n < 0 {
			n = -n
		}
		opts := make([]string, n)
		for i := range opts {
			opts[i] = strings.Repeat("o", i)
		}
		m := newSelect("Q?", opts, n/2)
		keys, _ := decodeKeys(typed)
		for _, k := range keys {
			m.lines(7, style{})
			done, err := m.handle(k)
			if done {
				if err == nil && (k.kind != keyEnter || m.chosen < 0 || m.chosen >= n) {
					t.Fatalf("answered %d by %v", m.chosen, k)
				}
				return
			}
		}
	})
}
