package main

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestMeanDiff(t *testing.T) {
	tests := []struct {
		a, b         []float64
		mean, stderr float64
	}{
		{nil, nil, 0, 0},
		{[]float64{1}, []float64{3}, 2, 0},
		{[]float64{1, 1}, []float64{2, 2}, 1, 0},
		// differences 1 and 3: mean 2, sample deviation sqrt(2), error 1
		{[]float64{1, 1}, []float64{2, 4}, 2, 1},
		// the longer list's extra runs are not paired
		{[]float64{0, 0, 5}, []float64{1, 3}, 2, 1},
	}
	for _, tt := range tests {
		m, e := meanDiff(tt.a, tt.b)
		if math.Abs(m-tt.mean) > 1e-9 || math.Abs(e-tt.stderr) > 1e-9 {
			t.Errorf("meanDiff(%v, %v) = %v, %v; want %v, %v", tt.a, tt.b, m, e, tt.mean, tt.stderr)
		}
	}
}

// TestComparePair runs two stand-in binaries (each logs its turn and the
// cache folder it was given) through comparePair: they alternate, old
// first then new first; the cache is off, a fresh folder each run
// (first), or each binary's own folder, filled by three runs first
// (warm); bad arguments are refused before anything runs.
func TestComparePair(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	bin := func(name string) string {
		p := filepath.Join(dir, name)
		script := "#!/bin/sh\necho \"" + name + " $ORCHESTRATE_CACHE_DIR $*\" >> " + log + "\n"
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	oldBin, newBin := bin("old"), bin("new")
	for _, mode := range pairModes {
		os.Remove(log)
		var out bytes.Buffer
		res, err := comparePair(dir, oldBin+","+newBin, mode, "status", 3, &out)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if res.Pairs != 3 || !strings.Contains(out.String(), "3 pairs") {
			t.Errorf("%s: %+v, %q", mode, res, out.String())
		}
		data, _ := os.ReadFile(log)
		var who, caches []string
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			f := strings.Fields(line)
			if len(f) != 3 || f[2] != "status" {
				t.Fatalf("%s: run %q", mode, line)
			}
			who, caches = append(who, f[0]), append(caches, f[1])
		}
		want := "old new new old old new"
		if mode == "warm" {
			want = "old new old new old new " + want
		}
		if got := strings.Join(who, " "); got != want {
			t.Errorf("%s: order %q, want %q", mode, got, want)
		}
		for i, c := range caches {
			switch {
			case mode == "off" && c != "off",
				mode != "off" && (c == "off" || filepath.Base(c) != map[string]string{"old": "0", "new": "1"}[who[i]]):
				t.Errorf("%s: run %d (%s) had cache %q", mode, i, who[i], c)
			}
		}
	}
	for _, bad := range []struct{ spec, mode string }{{oldBin, "off"}, {oldBin + ",", "off"}, {oldBin + "," + newBin, "cold"}} {
		if _, err := comparePair(dir, bad.spec, bad.mode, "status", 3, &bytes.Buffer{}); err == nil {
			t.Errorf("comparePair(%q, %q) ran", bad.spec, bad.mode)
		}
	}
	if _, err := comparePair(dir, oldBin+","+newBin, "off", "status", 1, &bytes.Buffer{}); err == nil {
		t.Error("one pair was taken")
	}
}
