package termsafe

import (
	"bytes"
	"testing"
)

func TestString(t *testing.T) {
	for _, r := range []struct{ in, want, block string }{
		{"plain text", "plain text", "plain text"},
		{"\x1b[2J", `\x1b[2J`, `\x1b[2J`},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\x07`, `\x1b]0;pwned\x07`},
		{"ok\rValidation: clean", `ok\rValidation: clean`, `ok\rValidation: clean`},
		{"a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		{"del\x7f", `del\x7f`, `del\x7f`},
		{"c1 \u009b31m", `c1 \x9b31m`, `c1 \x9b31m`},
		{"raw \x9b byte", `raw \x9b byte`, `raw \x9b byte`},
		{"bidi \u202eevil\u202c", `bidi \u202eevil\u202c`, `bidi \u202eevil\u202c`},
		{"isolate \u2066x\u2069", `isolate \u2066x\u2069`, `isolate \u2066x\u2069`},
		{"naïve — ünïcødé ✓ 日本", "naïve — ünïcødé ✓ 日本", "naïve — ünïcødé ✓ 日本"},
		{`C:\path\x1b`, `C:\path\x1b`, `C:\path\x1b`},
		{"", "", ""},
	} {
		if got := String(r.in); got != r.want {
			t.Errorf("String(%q) = %q, want %q", r.in, got, r.want)
		}
		if got := Block(r.in); got != r.block {
			t.Errorf("Block(%q) = %q, want %q", r.in, got, r.block)
		}
	}
}

func TestStrip(t *testing.T) {
	for _, r := range []struct{ in, want string }{
		{"\x1b[1mbold\x1b[0m", "\x1b[1mbold\x1b[0m"},
		{"\x1b[31;1mred\x1b[0m\n", "\x1b[31;1mred\x1b[0m\n"},
		{"a\x1b[2Jb", "ab"},
		{"a\x1b]0;pwned\x07b", "ab"},
		{"a\x1b]8;;http://x\x1b\\b", "ab"},
		{"a\x1bcb", "ab"},
		{"bell\x07 bs\x08", "bell bs"},
		{"c1\u009b2J", "c12J"},
		{"line\r\n\ttab", "line\r\n\ttab"},
		{"\x1b", ""},
		{"\x1b[", ""},
	} {
		if got := string(Strip([]byte(r.in))); got != r.want {
			t.Errorf("Strip(%q) = %q, want %q", r.in, got, r.want)
		}
	}
	var b bytes.Buffer
	n, err := StripWriter{W: &b}.Write([]byte("x\x1b[2Jy"))
	if err != nil || n != 6 || b.String() != "xy" {
		t.Errorf("StripWriter = %d, %v, %q", n, err, b.String())
	}
}

// FuzzString checks that no escaped output contains a control character,
// DEL, a C1 control or a bidi override, and that Block only adds \n and \t.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "\x1b[2J", "a\nb", "\u202e", "\xff\xfe", "\u009b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{String(s), Block(s)} {
			for _, r := range out {
				if r != '\n' && r != '\t' && unsafe(r) {
					t.Fatalf("%q escaped to %q still holds %U", s, out, r)
				}
			}
		}
		for _, r := range String(s) {
			if r == '\n' || r == '\t' {
				t.Fatalf("String(%q) holds a line feed or tab", s)
			}
		}
		if String(String(s)) != String(s) {
			t.Fatalf("String is not idempotent on %q", s)
		}
	})
}

func TestJSON(t *testing.T) {
	for _, r := range []struct{ in, want string }{
		{`{"a":"plain ✓"}`, `{"a":"plain ✓"}`},
		{"{\"a\":\"x\u202ey\u009bz\"}", `{"a":"x\u202ey\u009bz"}`},
		{"[\"\u2066\u2069\"]", `["\u2066\u2069"]`},
	} {
		if got := string(JSON([]byte(r.in))); got != r.want {
			t.Errorf("JSON(%q) = %q, want %q", r.in, got, r.want)
		}
	}
}
