package refpath

import (
	"slices"
	"strings"
	"testing"
)

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

func TestProse(t *testing.T) {
	repo := map[string]bool{"src": true, "src/app.ts": true, "docs": true, "docs/adr": true, "my notes/plan.md": true, "my notes": true}
	exists := func(p string) bool { return repo[p] }
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		// files: an extension or a dot file is enough, existing or not
		{"src/app.ts", "src/app.ts", true},
		{"src/new/feature.ts", "src/new/feature.ts", true},
		{"lib/not-yet.go", "lib/not-yet.go", true},
		{"./README.md", "README.md", true},
		{"'src/quoted.ts'", "src/quoted.ts", true},
		{`"a b"`, "", false},
		{".env.example", ".env.example", true},
		{"src/app.ts:42", "src/app.ts", true},
		{"src/app.ts:42:7", "src/app.ts", true},
		// folders: only under an existing first folder
		{"docs/adr", "docs/adr", true},
		{"src/components/", "src/components", true},
		{"api/v2/integrations/contacts", "api/v2/integrations/contacts", false},
		// a leading "/" is the repository root only when the path exists
		{"/src/app.ts", "src/app.ts", true},
		{"/api/v2/integrations/contacts", "api/v2/integrations/contacts", false},
		{"/api/v2/integrations/contacts/sync", "api/v2/integrations/contacts/sync", false},
		{"/health", "", false},
		{"/etc/passwd", "etc/passwd", false},
		{"/src/missing.ts", "src/missing.ts", false},
		// not paths at all
		{"https://example.com/a/b.json", "", false},
		{"mailto:someone@example.com", "", false},
		{"/users/:id", "", false},
		{"/items/{id}/notes", "", false},
		{"src/**/*.ts", "", false},
		{"*.md", "", false},
		{"npm run build", "", false},
		{"cd src && make", "", false},
		{"--dry-run", "", false},
		{"@scope/pkg", "", false},
		{"~/x/y.md", "", false},
		{"C:\\Users\\x\\a.md", "", false},
		{"../outside/secret.md", "", false},
		{"obj.method()", "", false},
		{"item.notes", "", false},
		{"validated story", "", false},
		{"$HOME/x.md", "", false},
		{"", "", false},
		// spaces: only a path that exists as written
		{"my notes/plan.md", "my notes/plan.md", true},
		{"other notes/plan.md", "other notes/plan.md", false},
	}
	for _, tt := range tests {
		got, ok := Prose(tt.in, exists)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("Prose(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	// without a repository only file-like tokens are paths
	if _, ok := Prose("docs/adr", nil); ok {
		t.Error("Prose(docs/adr, nil) is a path; want none without a repository")
	}
	if got, ok := Prose("src/a.go", nil); !ok || got != "src/a.go" {
		t.Errorf("Prose(src/a.go, nil) = %q, %v", got, ok)
	}
}

func TestBoundedExists(t *testing.T) {
	calls := 0
	ex := BoundedExists(func(string) bool { calls++; return true }, 2)
	for _, p := range []string{"a", "a", "b", "c", "a"} {
		ex(p)
	}
	if calls != 2 {
		t.Errorf("calls = %d, want 2 (remembered, bounded)", calls)
	}
	if ex("c") {
		t.Error("a question past the bound answered yes")
	}
	if BoundedExists(nil, 3) != nil {
		t.Error("nil exists became non-nil")
	}
}

// FuzzProse checks that Prose never panics and that what it calls a path
// is clean, safe and rooted in the repository.
func FuzzProse(f *testing.F) {
	for _, s := range []string{"src/a.go", "/api/v2/contacts", "../x.md", "src/**/*.ts", "a b/c.md", "src/a.go:42:1", "C:\\x\\y.md", "/src/app.ts"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		exists := func(p string) bool { return len(p)%2 == 0 }
		c, ok := Prose(s, exists)
		if !ok {
			return
		}
		if clean, safe := Clean(c); !safe || clean != c || c == "" || strings.HasPrefix(c, "/") {
			t.Fatalf("Prose(%q) = %q: not a clean repository path", s, c)
		}
	})
}

// TestTaskTokens: the task-list readers' shared rules — a version is not a
// path, a path is kept once up to the bound, a Files detail reads its
// backticked spans, else its comma-separated parts.
func TestTaskTokens(t *testing.T) {
	exists := func(p string) bool { return p == "src/a.go" || p == "src/b.go" }
	for tok, want := range map[string]bool{"src/a.go": true, "1.2.3": false, "v2.0": false, "../x.go": false, "https://x.io/a.go": false} {
		if _, ok := Token(tok, exists); ok != want {
			t.Errorf("Token(%q) = %v, want %v", tok, ok, want)
		}
	}
	if got := AppendNew([]string{"a"}, 3, "a", "b", "c", "d"); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("AppendNew = %v", got)
	}
	if got := Listed("ignored", []string{"src/a.go", "1.0", "src/b.go"}, exists); !slices.Equal(got, []string{"src/a.go", "src/b.go"}) {
		t.Errorf("Listed quoted = %v", got)
	}
	if got := Listed("src/a.go, v3, src/b.go", nil, exists); !slices.Equal(got, []string{"src/a.go", "src/b.go"}) {
		t.Errorf("Listed commas = %v", got)
	}
}
