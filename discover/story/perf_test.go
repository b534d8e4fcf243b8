package story

import "testing"

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
