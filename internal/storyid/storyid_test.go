package storyid

import "testing"

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"sdc-4.2", "sdc-4.2"},
		{"  a b/c ", "a-b-c"},
		{"../..", "state"},
		{"", "state"},
		{"ünïcode", "n-code"},
	}
	for _, tt := range tests {
		if got := Sanitize(tt.in); got != tt.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFromRef(t *testing.T) {
	tests := []struct{ in, id, file string }{
		{"4.2", "4.2", ""},
		{"docs/stories/4.2.story.md", "4.2", "docs/stories/4.2.story.md"},
		{"./docs/stories/1.10.3-title.md", "1.10.3", "docs/stories/1.10.3-title.md"},
		{"docs/notes.md", "notes", "docs/notes.md"},
		{"a\nb", "", ""},
	}
	for _, tt := range tests {
		id, file := FromRef(tt.in)
		if id != tt.id || file != tt.file {
			t.Errorf("FromRef(%q) = %q, %q; want %q, %q", tt.in, id, file, tt.id, tt.file)
		}
	}
}
