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

func TestIsPath(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		// paths: a folder, or a known extension, or a dot file
		{"src/a.go", true},
		{"README.md", true},
		{"build/Makefile", true},
		{"docs/", true},
		{"packages/app/(dashboard)/page.tsx", true},
		{"app/[id]/route.ts", true},
		{"webpack.config.js", true},
		{"yarn.lock", true},
		{".gitignore", true},
		{".env.example", true},
		{"Component.TSX", true},
		{`src\win\a.cs`, true},
		// identifiers and code
		{"item.notes", false},
		{"foo.bar.baz", false},
		{"obj.method()", false},
		{"pkg.Func(x)", false},
		{"src/util.format()", false},
		{"json", false},
		{"Makefile", false},
		{"console.log", false},
		{"process.env", false},
		{"this.props", false},
		{"v1.2", false},
		{"Story 2.3", false},
		{"", false},
		{"/", false},
		{"two words.md", false},
	}
	for _, tt := range tests {
		if got := IsPath(tt.in); got != tt.want {
			t.Errorf("IsPath(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestLooksLikePath(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"docs/prd.md", true},
		{"spec.md", true},
		{"validated story", false},
		{"https://example.com/a.md", false},
		{"see: docs/x.md", false},
		{"item.notes", false},
		{"a.md\nb.md", false},
	}
	for _, tt := range tests {
		if got := LooksLikePath(tt.in); got != tt.want {
			t.Errorf("LooksLikePath(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
