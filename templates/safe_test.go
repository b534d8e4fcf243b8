package templates

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type inner struct {
	Name  string
	Notes []string
}

type kind string

type view struct {
	Title   string
	Kind    kind
	N       int
	Inner   inner
	Ptr     *inner
	Any     any
	Map     map[string]string
	Arr     [2]string
	private string
}

func TestSanitizeData(t *testing.T) {
	in := view{
		Title: "t\x1b[2J", Kind: "k\r", N: 3,
		Inner:   inner{Name: "n\x1b]0;pwned\x07", Notes: []string{"a\nValidation: clean", "token=abc"}},
		Ptr:     &inner{Name: "\u202eevil"},
		Any:     []any{"x\x07", 4},
		Map:     map[string]string{"k\x1b": "password: hunter2"},
		Arr:     [2]string{"ok", "\x7f"},
		private: "\x1b",
	}
	got := sanitizeData(in).(view)
	want := view{
		Title: `t\x1b[2J`, Kind: `k\r`, N: 3,
		Inner:   inner{Name: `n\x1b]0;pwned\x07`, Notes: []string{`a\nValidation: clean`, "token=[REDACTED]"}},
		Ptr:     &inner{Name: `\u202eevil`},
		Map:     map[string]string{`k\x1b`: "password: [REDACTED]"},
		Arr:     [2]string{"ok", `\x7f`},
		private: "\x1b",
	}
	if got.Title != want.Title || got.Kind != want.Kind || got.N != 3 || got.Inner.Name != want.Inner.Name ||
		strings.Join(got.Inner.Notes, "|") != strings.Join(want.Inner.Notes, "|") || got.Ptr.Name != want.Ptr.Name ||
		got.Map[`k\x1b`] != want.Map[`k\x1b`] || got.Arr != want.Arr || got.private != want.private {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
	if a := got.Any.([]any); a[0] != `x\x07` || a[1] != 4 {
		t.Errorf("Any = %#v", got.Any)
	}
	if in.Title != "t\x1b[2J" || in.Ptr.Name != "\u202eevil" || in.Inner.Notes[0] != "a\nValidation: clean" {
		t.Error("the input was changed")
	}
	if sanitizeData(nil) != nil {
		t.Error("nil data")
	}
	type cyc struct{ Next *cyc }
	c := &cyc{}
	c.Next = c
	_ = sanitizeData(c) // ends
}

// TestRenderEscapesDataNotTemplate: a value's escape sequences are shown,
// the template's own colours are kept.
func TestRenderEscapesDataNotTemplate(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "failure.tmpl"), []byte(`{{red .}}`), 0o644)
	out, err := Renderer{Dir: dir, Color: true}.Render("failure", "v\x1b[2J\rValidation: clean")
	if err != nil {
		t.Fatal(err)
	}
	if want := "\x1b[31m" + `v\x1b[2J\rValidation: clean` + "\x1b[0m"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

func FuzzSanitize(f *testing.F) {
	f.Add("x\x1b[2J", "password: p")
	f.Fuzz(func(t *testing.T, a, b string) {
		out, err := Renderer{}.Render("multiple", struct {
			Items []struct {
				N                                int
				Label, Ago, Position, Validation string
			}
			Question bool
		}{Items: []struct {
			N                                int
			Label, Ago, Position, Validation string
		}{{1, a, b, a, b}}})
		if err != nil {
			return
		}
		for _, r := range out {
			if r == 0x1b || r == '\r' || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) {
				t.Fatalf("control %U in %q", r, out)
			}
		}
	})
}

// TestSafeMemoIsSafe: Safe's remembered answers are the ones it computes,
// for a string seen once, twice, as its own output, as a slice of a larger
// text, and past the length it remembers.
func TestSafeMemoIsSafe(t *testing.T) {
	long := strings.Repeat("x", safeMemoLen) + " password: hunter2"
	text := "id sdc-1\x1b[2J token=abc tail"
	for _, s := range []string{"", "-", "plain", "token=abc", "password: hunter2", "a\x1b]0;t\x07b",
		"\u202eevil", long, text[3:22], `{"pass":"x"}`} {
		want := safe(s)
		for i := range 3 {
			if got := Safe(s); got != want {
				t.Fatalf("Safe(%q) call %d = %q, want %q", s, i, got, want)
			}
		}
		if got, again := Safe(want), safe(want); got != again {
			t.Fatalf("Safe(%q) = %q, want %q", want, got, again)
		}
	}
	if want := "token=[REDACTED]"; Safe("token=abc") != want {
		t.Fatalf("Safe(token=abc) = %q, want %q", Safe("token=abc"), want)
	}
	safeMemo.mu.Lock()
	_, kept := safeMemo.m[long]
	safeMemo.mu.Unlock()
	if kept {
		t.Fatal("a string longer than safeMemoLen was remembered")
	}
}
