package cli

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/app/cli/views"
	"github.com/orchestrate-dev/orchestrate/templates"
)

// statusCells are cell texts of every kind the table shows: empty, plain,
// wide (two columns a rune), combining, a secret, control characters.
var statusCells = []string{"", "-", "workflow:sdc-20261108-001", "spec", "phase 3/5 (implement)", "2d 4h",
	"at least 3d", "conflicts", "(completed)", "interrupted", "handed off 2h ago", ".orchestrate/workflows/a.yaml",
	"日本語の名前", "e\u0301te\u0301", "token=abc123", "password: hunter2", "a\x1b[2Jb", "tab\there", "new\nline", "\u202eevil"}

// randomStatus is a status table of n random rows, widths made by
// FitStatus at width (0: none cut) or, when raw, random ones.
func randomStatus(r *rand.Rand, n, width int, raw bool) views.Status {
	pick := func() string { return statusCells[r.IntN(len(statusCells))] }
	d := views.Status{Root: "/repo", Hidden: r.IntN(3)}
	for range n {
		row := views.StatusRow{ID: pick(), Type: pick(), Position: pick(), Age: pick(), Validation: pick(), Source: pick()}
		if r.IntN(3) == 0 {
			row.Life, d.Life = pick(), true
		}
		d.Rows = append(d.Rows, row)
	}
	if raw {
		w := func() int { return r.IntN(40) - 5 }
		d.W.ID, d.W.Type, d.W.Pos, d.W.Age, d.W.Val, d.W.Life = w(), w(), w(), w(), w(), w()
		return d
	}
	views.FitStatus(&d, width)
	return d
}

// TestStatusTableIsTheTemplates: the status table rendered natively is
// the built-in template's, byte for byte (colour on and off, rows or none,
// the LIFECYCLE column or not, wide and escaped cells, widths fitted or
// any); a width over the pad limit is the template's error; an override
// is rendered, not the native table.
func TestStatusTableIsTheTemplates(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	native := 0
	counted := func(data any) (string, bool) {
		out, ok := statusTable(data)
		if ok {
			native++
		}
		return out, ok
	}
	for i := range 300 {
		d := randomStatus(r, r.IntN(12), []int{0, 40, 80, 200}[i%4], i%5 == 4)
		for _, color := range []bool{false, true} {
			rd := templates.Renderer{Color: color}
			want, werr := rd.Render("status", d)
			got, gerr := rd.RenderNative("status", d, counted)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) || got != want {
				t.Fatalf("case %d (colour %v): native\n%q (%v)\ntemplate\n%q (%v)", i, color, got, gerr, want, werr)
			}
		}
	}
	if native < 500 {
		t.Fatalf("the native table rendered %d of 600 cases", native)
	}
	// a plain table: the native text itself is the template's
	d := randomStatus(r, 5, 0, false)
	for i := range d.Rows {
		d.Rows[i] = views.StatusRow{ID: fmt.Sprintf("w%d", i), Type: "spec", Position: "p", Age: "1d", Validation: "ok", Source: "s.yaml"}
	}
	views.FitStatus(&d, 0)
	want, _ := templates.Renderer{}.Render("status", d)
	if got, ok := statusTable(d); !ok || !strings.HasPrefix(want, got) || got == "" {
		t.Fatalf("statusTable = %q, %v; the template's %q", got, ok, want)
	}
	// a width over MaxPad: the template renders (its error)
	d.W.ID = templates.MaxPad + 1
	if _, ok := statusTable(d); ok {
		t.Fatal("a width over MaxPad rendered natively")
	}
	_, werr := templates.Renderer{}.Render("status", d)
	if _, gerr := (templates.Renderer{}).RenderNative("status", d, statusTable); werr == nil || fmt.Sprint(gerr) != fmt.Sprint(werr) {
		t.Fatalf("over MaxPad: native %v, template %v", gerr, werr)
	}
	d.W.ID = 3
	// an override is what renders
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "status.tmpl"), []byte("custom {{len .Rows}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := templates.Renderer{Dir: dir, Root: dir}.RenderNative("status", d, statusTable)
	if err != nil || !strings.HasPrefix(got, "custom 5\n") {
		t.Fatalf("with an override: %q, %v", got, err)
	}
}
