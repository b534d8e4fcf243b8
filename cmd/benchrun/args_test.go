package main

import (
	"reflect"
	"testing"
)

func TestOrchestrateArgs(t *testing.T) {
	tests := []struct {
		cmd     string
		want    []string
		wantErr bool
	}{
		{"", []string{"resume", "--dry-run", "--json", "--mode", "preflight", "--approve"}, false},
		{"resume", []string{"resume", "--dry-run", "--json", "--mode", "preflight", "--approve"}, false},
		{"status", []string{"status"}, false},
		{"rm -rf", nil, true},
	}
	for _, tt := range tests {
		got, err := orchestrateArgs(tt.cmd)
		if (err != nil) != tt.wantErr || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("orchestrateArgs(%q) = %v, %v; want %v (error %v)", tt.cmd, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestTargets(t *testing.T) {
	tests := []struct {
		res   Result
		ratio bool
		rss   float64
	}{
		{Result{Files: 10000}, false, 100},
		{Result{Files: 100000}, true, 100},
		{Result{Files: 100000, Shape: "stories"}, true, 100},
		{Result{Files: 1000000, Shape: "huge"}, true, 128},
	}
	for _, tt := range tests {
		if got := ratioApplies(&tt.res); got != tt.ratio {
			t.Errorf("ratioApplies(%+v) = %v", tt.res, got)
		}
		if got := rssTarget(tt.res.Files); got != tt.rss {
			t.Errorf("rssTarget(%d) = %v", tt.res.Files, got)
		}
	}
}
