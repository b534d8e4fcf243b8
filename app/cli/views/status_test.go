package views

import (
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
)

// statusRows are rows shaped like the ones of the issue: long positions and
// lifecycles, ids that share their beginning.
func statusRows() []StatusRow {
	return []StatusRow{
		{ID: "workflow:sdc-4.2", Type: "sdc", Position: "Phase 3/4 (Implementation) -- 2/5 tasks done, at Add the search index to the catalogue service", Age: "1 hour", Validation: "clean", Source: ".orchestrate/workflows/sdc-4.2.yaml", Life: "handed off 2 hours ago to @dev (not confirmed; the session ended without a result)"},
		{ID: "workflow:sdc-4.3", Type: "sdc", Position: "Phase 1/4 (Story Creation)", Age: "2 days", Validation: "warnings", Source: ".orchestrate/workflows/sdc-4.3.yaml", Life: "interrupted"},
		{ID: "qa-loop:3.1", Type: "qa-loop", Position: "Iteration 4/5, phase 2/3 (Apply Fixes)", Age: "5 days", Validation: "conflicts", Source: "qa/3.1/loop-status.json", Life: "interrupted"},
		{ID: "spec:login", Type: "spec", Position: "Phase 4/5 (Write Specification)", Age: "at least 6 days", Validation: "stale", Source: "docs/specs/login/.pipeline-state.json", Life: "interrupted"},
	}
}

// renderStatusRows is the status table as the template prints it.
func renderStatusRows(d Status) []string {
	pad := func(n int, s string) string { return s + strings.Repeat(" ", max(n-termsafe.Width(s), 0)) }
	line := func(id, typ, pos, age, val, life, src string) string {
		l := pad(d.W.ID, id) + "  " + pad(d.W.Type, typ) + "  " + pad(d.W.Pos, pos) + "  " + pad(d.W.Age, age) + "  " + pad(d.W.Val, val) + "  "
		if d.Life {
			l += pad(d.W.Life, life) + "  "
		}
		return l + src
	}
	out := []string{line("ID", "TYPE", "POSITION", "AGE", "VALIDATION", "LIFECYCLE", "SOURCE")}
	for _, r := range d.Rows {
		out = append(out, line(r.ID, r.Type, r.Position, r.Age, r.Validation, r.Life, r.Source))
	}
	return out
}

func TestFitStatus(t *testing.T) {
	for _, tc := range []struct {
		width int
		life  bool
		// fits: every line is at most width wide (else: as narrow as the
		// minimums make it)
		fits bool
		// whole: columns shown whole
		whole []string
	}{
		{width: 0, life: true, fits: true, whole: []string{"ID", "POSITION", "LIFECYCLE", "SOURCE"}},
		{width: 40, life: false, fits: false},
		{width: 60, life: false, fits: false},
		{width: 80, life: false, fits: true},
		{width: 80, life: true, fits: false},
		{width: 120, life: false, fits: true, whole: []string{"ID"}},
		{width: 120, life: true, fits: true, whole: []string{"ID"}},
		{width: 400, life: true, fits: true, whole: []string{"ID", "POSITION", "LIFECYCLE", "SOURCE"}},
	} {
		rows := statusRows()
		d := Status{Rows: rows, Life: tc.life}
		FitStatus(&d, tc.width)
		lines := renderStatusRows(d)
		widest := 0
		for _, l := range lines {
			widest = max(widest, termsafe.Width(l))
		}
		if tc.fits && tc.width > 0 && widest > tc.width {
			t.Errorf("width %d (lifecycle %v): a line is %d wide:\n%s", tc.width, tc.life, widest, strings.Join(lines, "\n"))
		}
		if !tc.fits {
			// as narrow as it gets: every flex column at its minimum
			// (the two sdc ids differ at their end only: shown whole)
			if d.W.Pos != len("POSITION") || d.W.ID != 16 || d.W.Type != len("TYPE") {
				t.Errorf("width %d: POSITION %d, ID %d, TYPE %d wide, want %d, 16 and 4:\n%s", tc.width, d.W.Pos, d.W.ID, d.W.Type, len("POSITION"), strings.Join(lines, "\n"))
			}
		}
		orig := statusRows()
		for i, r := range d.Rows {
			// ids: whole, or a prefix of their own only
			if r.ID != orig[i].ID {
				p := strings.TrimSuffix(r.ID, termsafe.Ellipsis)
				if !strings.HasPrefix(orig[i].ID, p) || p == r.ID {
					t.Errorf("width %d: id %q cut to %q", tc.width, orig[i].ID, r.ID)
				}
				for j, o := range orig {
					if j != i && strings.HasPrefix(o.ID, p) {
						t.Errorf("width %d: id %q cut to %q, which names %q too", tc.width, orig[i].ID, r.ID, o.ID)
					}
				}
			}
			// sources keep their end
			if r.Source != orig[i].Source && !(strings.HasPrefix(r.Source, termsafe.Ellipsis) && strings.HasSuffix(orig[i].Source, strings.TrimPrefix(r.Source, termsafe.Ellipsis))) {
				t.Errorf("width %d: source %q cut to %q", tc.width, orig[i].Source, r.Source)
			}
			// the other columns keep their beginning
			for _, c := range [][2]string{{orig[i].Position, r.Position}, {orig[i].Life, r.Life}, {orig[i].Type, r.Type}} {
				if c[0] != c[1] && (!strings.HasSuffix(c[1], termsafe.Ellipsis) || !strings.HasPrefix(c[0], strings.TrimSuffix(c[1], termsafe.Ellipsis))) {
					t.Errorf("width %d: %q cut to %q", tc.width, c[0], c[1])
				}
			}
			for _, name := range tc.whole {
				pair := map[string][2]string{"ID": {r.ID, orig[i].ID}, "POSITION": {r.Position, orig[i].Position}, "LIFECYCLE": {r.Life, orig[i].Life}, "SOURCE": {r.Source, orig[i].Source}}[name]
				got, want := pair[0], pair[1]
				if !tc.life && name == "LIFECYCLE" {
					continue
				}
				if got != want {
					t.Errorf("width %d: %s %q shown as %q, want whole", tc.width, name, want, got)
				}
			}
			// columns that never shrink
			if tc.fits && r.Type != orig[i].Type {
				t.Errorf("width %d: TYPE cut though the row fits with it whole: %+v", tc.width, r)
			}
			if r.Age != orig[i].Age || r.Validation != orig[i].Validation {
				t.Errorf("width %d: a fixed column was cut: %+v", tc.width, r)
			}
		}
	}
}

// At width 0 (not a terminal, --wide) nothing changes and the widths are
// the widest cells: the output of a pipe is what it always was.
func TestFitStatusUncut(t *testing.T) {
	d := Status{Rows: statusRows(), Life: true}
	FitStatus(&d, 0)
	if got, want := d.W.Pos, termsafe.Width(statusRows()[0].Position); got != want {
		t.Errorf("POSITION width %d, want %d", got, want)
	}
	for i, r := range d.Rows {
		if r != statusRows()[i] {
			t.Errorf("row %d changed: %+v", i, r)
		}
	}
}
