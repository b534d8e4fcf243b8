package ghactions

import (
	"strings"
	"testing"
)

func TestAnnotation(t *testing.T) {
	tests := []struct {
		level, file, title, msg, want string
	}{
		{"warning", "docs/a.md", "orchestrate: age", "2 days old", "::warning file=docs/a.md,title=orchestrate%3A age::2 days old\n"},
		{"error", "", "", "line1\n::error::injected", "::error::line1%0A::error::injected\n"},
		{"error", "a,b:c.md", "", "100% done\r", "::error file=a%2Cb%3Ac.md::100%25 done\n"},
		{"bogus", "", "", "x", "::notice::x\n"},
		{"warning", "", "", "token ghp_" + strings.Repeat("a", 36), "::warning::token [REDACTED]\n"},
		{"warning", "", "", "bell\x07 and \x1b[31mred", "::warning::bell and [31mred\n"},
	}
	for _, tt := range tests {
		if got := Annotation(tt.level, tt.file, tt.title, tt.msg); got != tt.want {
			t.Errorf("Annotation(%q, %q, %q, %q) = %q, want %q", tt.level, tt.file, tt.title, tt.msg, got, tt.want)
		}
	}
}

func TestText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain words", "plain words"},
		{"a | b", `a \| b`},
		{"<script>alert(1)</script>", `\<script\>alert\(1\)\<\/script\>`},
		{"[x](http://evil)", `\[x\]\(http\:\/\/evil\)`},
		{"@dev and #12", `\@dev and \#12`},
		{"two\nlines", "two lines"},
		{"é ü", "é ü"},
	}
	for _, tt := range tests {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSummary(t *testing.T) {
	s := Summary{
		Title: "orchestrate resume: resumed (exit 0)",
		Rows:  []Row{{"Workflow", "sdc:4.2"}, {"Agent", "@dev"}},
		Findings: []Finding{
			{Severity: "warning", Check: "age", Message: "2 days | old", Path: "docs/stories/4.2.md"},
			{Severity: "blocking", Check: "conflict", Message: "changed by b", Path: "src/a.go"},
			{Severity: "info", Check: "plan", Message: "no agents"},
		},
	}
	md := s.Markdown()
	for _, want := range []string{"### orchestrate resume\\: resumed \\(exit 0\\)", "| Workflow | sdc\\:4\\.2 |", "| Agent | \\@dev |", `2 days \| old`} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	ann := s.Annotations()
	if strings.Count(ann, "\n") != 2 || !strings.HasPrefix(ann, "::warning file=docs/stories/4.2.md,title=orchestrate%3A age::") || !strings.Contains(ann, "::error file=src/a.go") {
		t.Errorf("annotations:\n%s", ann)
	}
}

// FuzzAnnotation: whatever the text, one line, starting with the command.
func FuzzAnnotation(f *testing.F) {
	f.Add("a\nb", "x,y", "::error::z")
	f.Fuzz(func(t *testing.T, msg, file, title string) {
		out := Annotation("warning", file, title, msg)
		if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") || strings.ContainsRune(out, '\r') || !strings.HasPrefix(out, "::warning") {
			t.Fatalf("%q", out)
		}
		md := Text(msg)
		if strings.ContainsAny(md, "\n\r") {
			t.Fatalf("Text kept a line break: %q", md)
		}
	})
}
