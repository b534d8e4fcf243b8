package templates

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var limitData = map[string]any{
	"Type": "SDC", "Reason": "boom", "StateFile": "s", "Action": "a",
	"Items": []string{"a", "b", "c"},
}

func TestRenderBoundedLimits(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		timeout time.Duration
		want    string // output, when no error
		wantErr error
	}{
		{"plain", "{{.Reason}} {{range .Items}}{{.}}{{end}} {{range 3}}{{.}}{{end}}", 0, "boom abc 012", nil},
		{"range at the bound", "{{range 10000}}{{end}}ok", 0, "ok", nil},
		{"range constant too large", "{{range 4000000000}}x{{end}}", 0, "", ErrRangeTooLarge},
		{"range constant in a define", `{{define "x"}}{{if 1}}{{range 20000}}{{end}}{{end}}{{end}}`, 0, "", ErrRangeTooLarge},
		{"range variable too large", "{{$n := 4000000000}}{{range $n}}{{end}}", 0, "", ErrTooManySteps},
		{"nested ranges", "{{range 10000}}{{range 10000}}{{end}}{{end}}", 0, "", ErrTooManySteps},
		{"exponential recursion", `{{define "a"}}{{if .}}{{template "a" (slice . 1)}}{{template "a" (slice . 1)}}{{end}}{{end}}{{template "a" "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}`, 0, "", ErrTooManySteps},
		{"output too large", `{{range 10000}}{{printf "%0200d" 1}}{{end}}`, 0, "", ErrOutputTooLarge},
		{"timeout", "{{range 9000}}{{range 100}}{{end}}{{end}}", time.Millisecond, "", ErrTimeout},
		{"pad too wide", `{{pad 2000000000 "x"}}`, 0, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.timeout > 0 {
				old := RenderTimeout
				RenderTimeout = tt.timeout
				defer func() { RenderTimeout = old }()
			}
			start := time.Now()
			out, err := Renderer{}.renderBounded("t", tt.text, "test", limitData)
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v", d)
			}
			if len(out) > MaxOutput {
				t.Errorf("output of %d bytes", len(out))
			}
			if tt.name == "pad too wide" {
				if err == nil || !strings.Contains(err.Error(), "at most 1000") {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if tt.wantErr != nil {
				// on a loaded machine a step limit may be reached as a timeout
				stepsOrTime := tt.wantErr == ErrTooManySteps && errors.Is(err, ErrTimeout)
				if (!errors.Is(err, tt.wantErr) && !stepsOrTime) || !isLimit(err) {
					t.Fatalf("err = %v; want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || out != tt.want {
				t.Fatalf("= %q, %v; want %q", out, err, tt.want)
			}
		})
	}
}

// A hostile override is not used: the built-in template renders instead,
// with a warning saying why, and nothing hangs.
func TestOverrideRefusedFallsBack(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, root, dir, outside string)
		warn  string
	}{
		{"symlink to /dev/zero", func(t *testing.T, root, dir, outside string) {
			os.Symlink("/dev/zero", filepath.Join(dir, "failure.tmpl"))
		}, "refused: .orchestrate/templates/failure.tmpl is a symlink"},
		{"FIFO", func(t *testing.T, root, dir, outside string) {
			if err := syscall.Mkfifo(filepath.Join(dir, "failure.tmpl"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "is a FIFO"},
		{"too large", func(t *testing.T, root, dir, outside string) {
			os.WriteFile(filepath.Join(dir, "failure.tmpl"), []byte(strings.Repeat("x", MaxOverrideSize+1)), 0o644)
		}, "file too large"},
		{"range too large", func(t *testing.T, root, dir, outside string) {
			os.WriteFile(filepath.Join(dir, "failure.tmpl"), []byte("{{range 4000000000}}x{{end}}"), 0o644)
		}, "ranges over too large a number"},
		{"symlinked templates folder", func(t *testing.T, root, dir, outside string) {
			os.RemoveAll(dir)
			os.WriteFile(filepath.Join(outside, "failure.tmpl"), []byte("outside {{.Reason}}"), 0o644)
			os.Symlink(outside, dir)
		}, "refused: .orchestrate/templates is a symlink"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			dir := filepath.Join(root, ".orchestrate", "templates")
			os.MkdirAll(dir, 0o755)
			tt.setup(t, root, dir, outside)
			var warnings []string
			r := Renderer{Dir: dir, Root: root, Warn: func(m string) { warnings = append(warnings, m) }}
			done := make(chan struct{})
			var out string
			var err error
			go func() { out, err = r.Render("failure", limitData); close(done) }()
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				t.Fatal("Render hangs")
			}
			if err != nil || !strings.Contains(out, "=== Resume Failed ===") {
				t.Fatalf("Render = %q, %v; want the built-in template", out, err)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], tt.warn) {
				t.Fatalf("warnings = %q; want one with %q", warnings, tt.warn)
			}
		})
	}
}

func FuzzRenderTemplate(f *testing.F) {
	for _, s := range []string{
		"{{.Reason}}",
		"{{range .Items}}{{.}}{{end}}",
		"{{range 4000000000}}x{{end}}",
		`{{define "a"}}{{template "a" .}}{{end}}{{template "a" .}}`,
		`{{range 10000}}{{printf "%0999d" 1}}{{end}}`,
		`{{pad 99999999 "x"}}`,
		"{{.Missing.Deeper}}",
		"{{",
	} {
		f.Add(s)
	}
	old := RenderTimeout
	RenderTimeout = 200 * time.Millisecond
	f.Cleanup(func() { RenderTimeout = old })
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > MaxOverrideSize {
			return
		}
		start := time.Now()
		out, _ := Renderer{}.renderBounded("fuzz", text, "fuzz", limitData)
		if len(out) > MaxOutput {
			t.Fatalf("output of %d bytes", len(out))
		}
		if d := time.Since(start); d > RenderTimeout+time.Second {
			t.Fatalf("took %v", d)
		}
	})
}

// TestBuiltinTemplatesFollowTheData: the built-in templates render what the
// data holds (2 MB here, over an override's MaxOutput), and are still
// bounded; an override of the same text is held to the tight limits.
func TestBuiltinTemplatesFollowTheData(t *testing.T) {
	text := `{{range 10000}}{{printf "%0200d" 1}}{{end}}`
	out, err := Renderer{}.renderBounded("t", text, "embedded", limitData)
	if err != nil || len(out) != 10000*200 {
		t.Fatalf("built-in: %d bytes, %v; want 2,000,000 bytes", len(out), err)
	}
	if _, err := (Renderer{}).renderBounded("t", text, ".orchestrate/templates/t.tmpl", limitData); !errors.Is(err, ErrOutputTooLarge) {
		t.Fatalf("override: %v, want ErrOutputTooLarge", err)
	}
	if l := limitsFor("embedded"); l.output <= MaxOutput || l.steps <= MaxSteps || l.timeout <= RenderTimeout {
		t.Fatalf("built-in limits %+v are not wider than an override's", l)
	}
}
