package templates

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestEveryTemplateParses(t *testing.T) {
	names := Names()
	for _, want := range []string{"status", "summary", "multiple", "cannot", "partial", "preflight", "decision", "confirmation", "failure"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("template %s missing (have %v)", want, names)
		}
	}
	for _, n := range names {
		if _, _, err := (Renderer{}).source(n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

func TestOverride(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "failure.tmpl"), []byte("custom: {{.Reason}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := Renderer{Dir: dir}.Render("failure", map[string]string{"Reason": "boom"})
	if err != nil || out != "custom: boom\n" {
		t.Errorf("override: %q %v", out, err)
	}
	out, err = Renderer{Dir: t.TempDir()}.Render("failure", map[string]string{"Type": "SDC", "Reason": "boom", "StateFile": "s", "Action": "a"})
	if err != nil || !strings.Contains(out, "=== Resume Failed ===") {
		t.Errorf("embedded: %q %v", out, err)
	}
	os.WriteFile(filepath.Join(dir, "failure.tmpl"), []byte("{{.Broken"), 0o644)
	if _, err := (Renderer{Dir: dir}).Render("failure", nil); err == nil || !strings.Contains(err.Error(), "failure.tmpl") {
		t.Errorf("a broken override must name its file: %v", err)
	}
}

func TestColorOnlyWhenAsked(t *testing.T) {
	data := map[string]string{"Type": "SDC", "Reason": "r", "StateFile": "s", "Action": "a"}
	plain, _ := Renderer{}.Render("failure", data)
	col, _ := Renderer{Color: true}.Render("failure", data)
	if strings.Contains(plain, "\x1b[") || !strings.Contains(col, "\x1b[") {
		t.Errorf("plain %q / colour %q", plain, col)
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		30 * time.Second: "30 seconds", time.Minute: "1 minute", 45 * time.Minute: "45 minutes",
		2 * time.Hour: "2 hours", 30 * time.Hour: "30 hours", 72 * time.Hour: "3 days", -time.Hour: "0 seconds",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestNumbered checks a numbered list's items: the position, except when
// the text opens with its own number (a group "2. Feed generation").
func TestNumbered(t *testing.T) {
	tests := []struct {
		n          int
		text, want string
	}{
		{1, "Story creation -- @sm", "1. Story creation -- @sm"},
		{1, "2. Feed generation -- @dev", "2. Feed generation -- @dev"},
		{2, "3) Ship", "3) Ship"},
		{1, "1.2 Wire the host", "1.2 Wire the host"},
		{1, "4: Docs", "4: Docs"},
		{3, "2024 roadmap", "3. 2024 roadmap"},
		{1, "1.5x faster", "1. 1.5x faster"},
		{1, "2.", "1. 2."},
		{2, "12345. too long a number", "2. 12345. too long a number"},
		{1, "", "1. "},
	}
	for _, tt := range tests {
		if got := Numbered(tt.n, tt.text); got != tt.want {
			t.Errorf("Numbered(%d, %q) = %q, want %q", tt.n, tt.text, got, tt.want)
		}
	}
}

// TestPlanListNotDoubled renders the pre-flight's plan and the summary's
// completed phases with groups that carry their own number: none reads
// "1. 2. …".
func TestPlanListNotDoubled(t *testing.T) {
	for _, tc := range []struct {
		name string
		data any
		want []string
	}{
		{"preflight", map[string]any{"Steps": []string{"2. Feed generation -- @dev", "Wrap up -- @dev"}, "Files": []any{}, "Checks": []any{}, "Stories": []any{}, "Chain": []any{}},
			[]string{"\n  2. Feed generation -- @dev\n", "\n  2. Wrap up -- @dev\n"}},
		{"summary", map[string]any{"Completed": []map[string]any{{"N": 1, "Name": "1. Setup", "Agent": "dev"}, {"N": 2, "Name": "Review", "Agent": "qa"}}},
			[]string{"\n  1. Setup -- @dev -- Done\n", "\n  2. Review -- @qa -- Done\n"}},
	} {
		out, err := Renderer{}.Render(tc.name, tc.data)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in\n%s", tc.name, w, out)
			}
		}
		if strings.Contains(out, "1. 2.") || strings.Contains(out, "1. 1.") {
			t.Errorf("%s: a doubled number:\n%s", tc.name, out)
		}
	}
}
