package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestMissedTargets checks each §13 bar on its own: a shape that misses
// only the cache-off ratio, say, must not read "pass".
func TestMissedTargets(t *testing.T) {
	series := func(secs ...float64) *Series { return &Series{Seconds: secs, PeakRSSKiB: 50 * 1024} }
	base := func() *Result {
		return &Result{
			Shape: "specs", Files: 10000,
			Orchestrate: *series(0.2, 0.2),
			Git:         series(0.5, 0.5),
			NoCache:     series(0.45, 0.45),
			FirstRun:    series(0.45, 0.45),
			RatioGit:    0.4, RatioNoCache: 0.9, RatioFirstRun: 0.9,
		}
	}
	tests := []struct {
		name string
		edit func(r *Result)
		want []string
	}{
		{"all met", func(*Result) {}, nil},
		{"warm", func(r *Result) { r.RatioGit = 0.51 }, []string{"warm"}},
		{"cache off", func(r *Result) { r.RatioNoCache = 1.05 }, []string{"off"}},
		{"first run", func(r *Result) { r.RatioFirstRun = 1.01 }, []string{"first"}},
		{"first run over cache off", func(r *Result) { r.FirstRun = series(0.5, 0.5) }, []string{"first/off"}},
		{"peak RSS", func(r *Result) { r.NoCache.PeakRSSKiB = 100 * 1024 }, []string{"rss"}},
		{"peak RSS at 1M files", func(r *Result) { r.Files = 1000000; r.NoCache.PeakRSSKiB = 100 * 1024 }, nil},
		{"ratios do not apply to a small standard repository", func(r *Result) {
			r.Shape, r.RatioGit, r.RatioNoCache, r.RatioFirstRun = "", 0.9, 1.5, 1.5
		}, nil},
		{"several", func(r *Result) { r.RatioNoCache, r.RatioFirstRun = 1.2, 1.2 }, []string{"off", "first"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := base()
			tt.edit(r)
			if got := missedTargets(r); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("missedTargets = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestTableNamesMissedTargets: the table's result column fails a shape
// that meets the warm bar but misses the cache-off one.
func TestTableNamesMissedTargets(t *testing.T) {
	r := &Result{
		Shape: "workflows1000", Command: "status", Files: 100000, Workflows: 1000, PerWorkflow: 50,
		Orchestrate: Series{Seconds: []float64{0.16}, Median: 0.16, PeakRSSKiB: 60 * 1024},
		Git:         &Series{Seconds: []float64{0.46}, Median: 0.46, PeakRSSKiB: 30 * 1024},
		NoCache:     &Series{Seconds: []float64{0.54}, Median: 0.54, PeakRSSKiB: 85 * 1024},
		FirstRun:    &Series{Seconds: []float64{0.55}, Median: 0.55, PeakRSSKiB: 85 * 1024},
		RatioGit:    0.36, RatioNoCache: 1.19, RatioFirstRun: 1.17,
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	missed, err := printTable([]string{p}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if missed != 1 || !strings.Contains(out.String(), "| FAIL: off first ") {
		t.Errorf("missed = %d, table:\n%s", missed, out.String())
	}
}
