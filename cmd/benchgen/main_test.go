package main

import "testing"

func TestWithPresetAndCheck(t *testing.T) {
	tests := []struct {
		name    string
		p       Params
		set     map[string]bool
		want    Params
		wantErr bool
	}{
		{"commits preset", Params{Shape: "commits", Files: 100000, Stories: 2000, Commits: 300, Refs: 300}, nil,
			Params{Shape: "commits", Files: 100000, Stories: 40, Commits: 20000, Refs: 300, Workflows: 1}, false},
		{"flags given win", Params{Shape: "commits", Files: 2000, Commits: 500}, map[string]bool{"files": true, "commits": true},
			Params{Shape: "commits", Files: 2000, Stories: 40, Commits: 500, Refs: 300, Workflows: 1}, false},
		{"merges keeps its counts", Params{Shape: "merges"}, nil,
			Params{Shape: "merges", Files: 100000, Stories: 40, Commits: 20, Refs: 300, Workflows: 1, Merges: 2000, Side: 10}, false},
		{"other shapes drop merges", Params{Shape: "refs", Merges: 5, Side: 2}, map[string]bool{"merges": true, "side": true},
			Params{Shape: "refs", Files: 100000, Stories: 40, Commits: 300, Refs: 5000, Workflows: 1}, false},
		{"unknown shape", Params{Shape: "nope", Files: 1000, Stories: 40, Commits: 20, Refs: 30}, nil,
			Params{Shape: "nope", Files: 1000, Stories: 40, Commits: 20, Refs: 30}, true},
		{"more workflows than refs", Params{Shape: "workflows", Refs: 100}, map[string]bool{"refs": true},
			Params{Shape: "workflows", Files: 100000, Stories: 2000, Commits: 300, Refs: 100, Workflows: 200, PerWorkflow: 300}, true},
		{"workflows share their files", Params{Shape: "workflows1000"}, nil,
			Params{Shape: "workflows1000", Files: 100000, Stories: 2000, Commits: 300, Refs: 4000, Workflows: 1000, PerWorkflow: 50}, false},
		{"more files per workflow than refs", Params{Shape: "workflows", Refs: 250}, map[string]bool{"refs": true},
			Params{Shape: "workflows", Files: 100000, Stories: 2000, Commits: 300, Refs: 250, Workflows: 200, PerWorkflow: 300}, true},
		{"per-workflow is for shapes", Params{Files: 1000, Stories: 40, Commits: 20, Refs: 30, PerWorkflow: 3}, nil,
			Params{Files: 1000, Stories: 40, Commits: 20, Refs: 30, PerWorkflow: 3}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := withPreset(tt.p, tt.set)
			if got != tt.want {
				t.Fatalf("withPreset = %+v, want %+v", got, tt.want)
			}
			if err := got.check(); (err != nil) != tt.wantErr {
				t.Fatalf("check() = %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

func TestStandardRejectsShapeFlags(t *testing.T) {
	p := Params{Files: 1000, Stories: 40, Commits: 20, Refs: 30, Workflows: 3}
	if err := p.check(); err == nil {
		t.Fatal("check() accepted -workflows without -shape")
	}
}
