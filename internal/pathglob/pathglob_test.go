package pathglob

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		pat, name string
		want      bool
	}{
		{"docs/stories/**/*.md", "docs/stories/1.1.a.md", true},
		{"docs/stories/**/*.md", "docs/stories/epic1/1.1.a.md", true},
		{"docs/stories/**/*.md", "docs/stories/a/b/c.md", true},
		{"docs/stories/**/*.md", "docs/other/c.md", false},
		{".aiox/epic-*-state.yaml", ".aiox/epic-ACT-state.yaml", true},
		{".aiox/epic-*-state.yaml", ".aiox/x/epic-ACT-state.yaml", false},
		{"qa/*/loop-status.json", "qa/2.1/loop-status.json", true},
		{"qa/*/loop-status.json", "qa/loop-status.json", false},
		{"progress.md", "progress.md", true},
		{"[", "[", false},
	}
	for _, tt := range tests {
		if got := Match(tt.pat, tt.name); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pat, tt.name, got, tt.want)
		}
	}
}

func TestExpand(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"docs/stories/1.1.a.md", "docs/stories/e/2.1.b.md", "docs/stories/e/spec/x.md", "docs/specs/login/spec.md", "qa/loop-status.json", "qa/2.1/loop-status.json", ".git/x.md", "docs/stories/.git/y.md"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	paths := func(es []Entry) []string {
		var s []string
		for _, e := range es {
			s = append(s, e.Path)
		}
		return s
	}
	if got, want := paths(Expand(root, "docs/stories/**/*.md", false)), []string{"docs/stories/1.1.a.md", "docs/stories/e/2.1.b.md", "docs/stories/e/spec/x.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("stories = %v, want %v", got, want)
	}
	if got, want := paths(Expand(root, "qa/*/loop-status.json", false)), []string{"qa/2.1/loop-status.json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("qa = %v, want %v", got, want)
	}
	if got, want := paths(Expand(root, "qa/loop-status.json", false)), []string{"qa/loop-status.json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("literal = %v, want %v", got, want)
	}
	if got, want := paths(Expand(root, "docs/specs/*", true)), []string{"docs/specs/login"}; !reflect.DeepEqual(got, want) {
		t.Errorf("dirs = %v, want %v", got, want)
	}
	if got, want := paths(Expand(root, "docs/stories/*/spec", true)), []string{"docs/stories/e/spec"}; !reflect.DeepEqual(got, want) {
		t.Errorf("spec dirs = %v, want %v", got, want)
	}
	if got := Expand(root, "missing/*.md", false); len(got) != 0 {
		t.Errorf("missing = %v", got)
	}
}
