package story

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestStoryInSpecFolder(t *testing.T) {
	tests := []struct {
		path   string
		prefix int
		want   bool
	}{
		{"docs/stories/1.1.md", 2, false},
		{"docs/stories/spec/1.1.md", 2, true},
		{"docs/stories/epic/spec/x.md", 2, true},
		{"docs/stories/spec.md", 2, false},
		{"docs/spec/stories/1.1.md", 2, false}, // inside the fixed prefix
		{"spec/1.1.md", 0, true},
		{"spec", 0, false},
		{"docs/stories/specs/1.1.md", 2, false},
	}
	for _, tt := range tests {
		if got := storyInSpecFolder(tt.path, tt.prefix); got != tt.want {
			t.Errorf("storyInSpecFolder(%q, %d) = %v, want %v", tt.path, tt.prefix, got, tt.want)
		}
	}
}

func TestStorySectionHashScratch(t *testing.T) {
	// one scratch buffer for many sections gives each the hash it has alone
	sections := []string{
		"a long section\nwith two lines  \n\n\nand a gap",
		"x",
		"",
		"\n\n  b  \r\n\tc\t\n\n",
		"a long section\nwith two lines\n\n\nand a gap\n\n",
	}
	var scratch []byte
	for _, raw := range sections {
		if got, want := storySectionHash(raw, &scratch), StorySectionHash(raw); got != want {
			t.Errorf("storySectionHash(%q) with a reused buffer = %s, want %s", raw, got, want)
		}
	}
	if StorySectionHash(sections[0]) != StorySectionHash(sections[4]) {
		t.Error("trailing whitespace and blank lines changed the hash")
	}
}

func TestStoryFoldKnown(t *testing.T) {
	tests := []struct{ word, want string }{
		{"Status", "status"},
		{"STATUS", "status"},
		{"story", "story"},
		{"Current", "current"},
		{"StoryStatus", "storystatus"},
		{"Acceptance", storyNoKey},
		{"", storyNoKey},
		{"État", "etat"}, // not ASCII: workflow.FoldStatus
	}
	for _, tt := range tests {
		if got := storyFoldKnown(tt.word); got != tt.want {
			t.Errorf("storyFoldKnown(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

func TestStoryAgent(t *testing.T) {
	tests := []struct{ in, want string }{
		{"@dev (Dex)", "dev"},
		{"  **@QA**  gate", "qa"},
		{"@sm,", "sm"},
		{"", ""},
		{"   ", ""},
	}
	for _, tt := range tests {
		if got := storyAgent(tt.in); got != tt.want {
			t.Errorf("storyAgent(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestStoryParseOwnedCompact checks that parsing an owned buffer gives the
// story a copy gives, and that the story no longer depends on the buffer.
func TestStoryParseOwnedCompact(t *testing.T) {
	files, err := filepath.Glob("testdata/realworld/*/docs/stories/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no story files: %v", err)
	}
	inputs := map[string]string{
		"sections.md":  "# Story 1.2: A title\n\n**Status:** InProgress\n**Executor:** @dev\n\n" + strings.Repeat("intro line\n", 20) + "## Acceptance Criteria\n\n1. works\n\n## File List\n\n- `src/a.go`\n- src/b.go\n",
		"crlf.md":      "# Story 1.3: CRLF\r\n\r\n## Status\r\n\r\nDone\r\n\r\n## Tasks\r\n\r\n- [x] a\r\n",
		"empty.md":     "",
		"no-status.md": "# Story 4.4: only a title\n",
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f] = string(data)
	}
	for name, text := range inputs {
		path := "docs/stories/" + filepath.Base(name)
		want := storyParse(path, []byte(text), nil, false)
		buf := []byte(text)
		got := storyParse(path, buf, nil, true)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: an owned parse differs from a copied one:\n got %+v\nwant %+v", name, got.story, want.story)
		}
		if name != "sections.md" {
			continue
		}
		for i := range buf {
			buf[i] = 'X' // only in a test: a story still pointing into buf changes
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the story still points into its overwritten buffer:\n got %+v\nwant %+v", name, got.story, want.story)
		}
	}
}
