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
