package textfmt

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Hour, "0 seconds"},
		{0, "0 seconds"},
		{time.Second, "1 second"},
		{30 * time.Second, "30 seconds"},
		{time.Minute, "1 minute"},
		{45 * time.Minute, "45 minutes"},
		{time.Hour, "1 hour"},
		{47*time.Hour + 59*time.Minute, "47 hours"},
		{48 * time.Hour, "2 days"},
		{72 * time.Hour, "3 days"},
	} {
		if got := Duration(tc.d); got != tc.want {
			t.Errorf("Duration(%v) = %q, want %q", tc.d, got, tc.want)
		}
		if got, want := Ago(tc.d), tc.want+" ago"; got != want {
			t.Errorf("Ago(%v) = %q, want %q", tc.d, got, want)
		}
	}
}

func TestThousands(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "0"}, {999, "999"}, {1000, "1,000"}, {2800000, "2,800,000"}, {-12345, "-12,345"}, {-999, "-999"},
	} {
		if got := Thousands(tc.n); got != tc.want {
			t.Errorf("Thousands(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestShellWord(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "''"},
		{"story-1.2_a", "story-1.2_a"},
		{"a/b:c@d+e=f%g,h", "a/b:c@d+e=f%g,h"},
		{"two words", "'two words'"},
		{"it's", `'it'\''s'`},
		{"$(rm -rf /)", "'$(rm -rf /)'"},
		{"é", "'é'"},
	} {
		if got := ShellWord(tc.in); got != tc.want {
			t.Errorf("ShellWord(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestTitle: controls and separators become spaces, the cut falls on a rune
// boundary.
func TestTitle(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		want string
	}{
		{"  a\tb\x1b[31mc\u0085d\u2028e  ", 100, "a b [31mc d e"},
		{"héllo", 2, "h…"},
		{"abc", 3, "abc"},
		{"日本語", 4, "日…"},
	} {
		if got := Title(tt.in, tt.max); got != tt.want {
			t.Errorf("Title(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}
