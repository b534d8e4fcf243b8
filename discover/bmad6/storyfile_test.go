package bmad6

import (
	"reflect"
	"testing"
)

func TestParseStoryFile(t *testing.T) {
	tests := []struct {
		file        string
		headingID   string
		status      string
		statusOther string
		tasks, done int
		reviewed    bool
		outcome     string
		fileList    []string
	}{
		{"story_inprogress.md", "2.2", "in-progress", "", 6, 3, false, "", []string{"src/shipments/detail.tsx", "src/shipments/timeline.tsx", "src/routes.ts"}},
		{"story_followups.md", "2.3", "review", "", 5, 3, true, "Changes Requested", []string{"src/labels/print.ts", "src/labels/zpl.ts"}},
		{"story_status_section.md", "2.4", "ready-for-dev", "", 2, 0, false, "", nil},
		{"story_two_status.md", "3.1", "in-progress", "review", 2, 2, false, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			sf := ParseStoryFile(readFixture(t, tt.file))
			done := 0
			for _, task := range sf.Tasks {
				if task.Done {
					done++
				}
			}
			if sf.HeadingID != tt.headingID || sf.Status != tt.status || sf.StatusOther != tt.statusOther ||
				len(sf.Tasks) != tt.tasks || done != tt.done || sf.Reviewed != tt.reviewed || sf.Outcome != tt.outcome ||
				!reflect.DeepEqual(sf.FileList, tt.fileList) {
				t.Errorf("got %+v", sf)
			}
		})
	}
}

func TestParseStoryFileFollowups(t *testing.T) {
	sf := ParseStoryFile(readFixture(t, "story_followups.md"))
	var open []Task
	for _, task := range sf.Tasks {
		if task.Review && !task.Done {
			open = append(open, task)
		}
	}
	if len(open) != 2 || open[0].Followup != 2 || !reflect.DeepEqual(open[0].Labels, []string{"[High]"}) ||
		open[0].Text != "Escape the recipient name in the ZPL template [src/labels/zpl.ts:40]" || open[0].Section != "Review Follow-ups (AI)" {
		t.Errorf("follow-ups: %+v", open)
	}
}

func TestParseStoryFileStatusForms(t *testing.T) {
	tests := map[string]string{
		"# Story 1.1: A\n\nStatus: drafted\n":                          "drafted",
		"# Story 1.1: A\n\n**Status:** Ready for Review\n":             "Ready for Review",
		"# Story 1.1: A\n\n## Status: done\n\n## Story\n":              "done",
		"# Story 1.1: A\n\n## Status\n\nin-progress\n\n## Story\n":     "in-progress",
		"# Story 1.1: A\n\n## Story\n\nStatus: done\n":                 "",
		"# Story 1.1: A\n\n```\nStatus: done\n```\n\nStatus: review\n": "review",
	}
	for in, want := range tests {
		if got := ParseStoryFile([]byte(in)).Status; got != want {
			t.Errorf("%q: status %q, want %q", in, got, want)
		}
	}
}

func TestFileListPath(t *testing.T) {
	tests := map[string]string{
		"- `_bmad-output/x.md`":     "_bmad-output/x.md",
		"- **src/a.ts** (modified)": "src/a.ts",
		"* /src/b.ts":               "src/b.ts",
		"- NEW: src/c.ts":           "",
		"- see the notes":           "",
		"- ../../etc/passwd":        "",
		"plain text":                "",
	}
	for in, want := range tests {
		got, ok := fileListPath(in)
		if got != want || ok != (want != "") {
			t.Errorf("fileListPath(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
