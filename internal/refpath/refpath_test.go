package refpath

import "testing"

func TestClean(t *testing.T) {
	tests := []struct {
		in    string
		clean string
		safe  bool
	}{
		{"", "", true},
		{" . ", "", true},
		{"./src//a.go", "src/a.go", true},
		{`src\x\..\a.go`, "src/a.go", true},
		{"a /", "a", true},
		{"../x", "../x", false},
		{"docs/../../outside/secret.md", "../outside/secret.md", false},
		{"/etc/../passwd", "/passwd", false},
		{"C:/win/x.ts", "C:/win/x.ts", false},
		{"a\x00b", "a\x00b", false},
	}
	for _, tt := range tests {
		clean, safe := Clean(tt.in)
		if clean != tt.clean || safe != tt.safe {
			t.Errorf("Clean(%q) = %q, %v; want %q, %v", tt.in, clean, safe, tt.clean, tt.safe)
		}
	}
}

func TestKeepUnsafe(t *testing.T) {
	tests := []struct{ in, want string }{
		{" ./ok//x.go ", "ok/x.go"},
		{" ../../etc/passwd ", "../../etc/passwd"},
		{"a/../../b", "a/../../b"},
		{"/etc/shadow", "/etc/shadow"},
		{`src\a.go`, `src\a.go`},
	}
	for _, tt := range tests {
		if got := KeepUnsafe(tt.in); got != tt.want {
			t.Errorf("KeepUnsafe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestOutput(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"docs/stories/4.2.md (Draft)", "docs/stories/4.2.md", true},
		{"`spec.md` - revised", "spec.md", true},
		{"validated story", "validated story", false},
		{"https://example.com/x", "https://example.com/x", false},
	}
	for _, tt := range tests {
		got, ok := Output(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Output(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
