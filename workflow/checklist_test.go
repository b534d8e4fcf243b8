package workflow

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestTaskGroupsPhases(t *testing.T) {
	id := func(h string) string { return strings.ToLower(strings.Fields(h)[0]) }
	cur := func(g int) *GroupedTask { return &GroupedTask{Group: g} }
	type ph struct{ ID, Name, Status string }
	tests := []struct {
		name     string
		headings []string
		tasks    []GroupedTask
		current  *GroupedTask
		want     []ph
	}{
		{name: "no tasks", headings: []string{"Setup"}, want: nil},
		{name: "done, open and current", headings: []string{"Setup", "Core", "Polish"},
			tasks:   []GroupedTask{{0, true}, {1, true}, {1, false}, {2, false}},
			current: cur(1),
			want:    []ph{{"setup", "Setup", PhaseCompleted}, {"core", "Core", PhaseCurrent}, {"polish", "Polish", PhasePending}}},
		{name: "tasks above the first heading lead", headings: []string{"Setup"},
			tasks:   []GroupedTask{{-1, false}, {0, true}},
			current: cur(-1),
			want:    []ph{{"tasks", "Tasks", PhaseCurrent}, {"setup", "Setup", PhaseCompleted}}},
		{name: "repeated ids are numbered", headings: []string{"Fix a", "Fix b", "Fix c"},
			tasks: []GroupedTask{{0, false}, {1, false}, {2, true}},
			want:  []ph{{"fix", "Fix a", PhasePending}, {"fix-2", "Fix b", PhasePending}, {"fix-3", "Fix c", PhaseCompleted}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TaskGroups{Headings: tt.headings, Tasks: tt.tasks, Current: tt.current, Agent: "ag", ID: id}.Phases()
			var gotPh []ph
			for _, p := range got {
				if p.Agent != "ag" {
					t.Errorf("%s: agent %q, want ag", p.ID, p.Agent)
				}
				gotPh = append(gotPh, ph{p.ID, p.Name, string(p.Status)})
			}
			if !reflect.DeepEqual(gotPh, tt.want) {
				t.Errorf("got %v, want %v", gotPh, tt.want)
			}
		})
	}
}

func TestChecklistCandidate(t *testing.T) {
	k := Checklist{IDPrefix: "feature:", Type: TypeFeature, Kind: KindSpecKit, Workflow: "wf", Agent: "dev"}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name     string
		it       ChecklistItem
		src      SourceRef
		from     string
		modified bool
	}{
		{name: "tasks.md, mtime", it: ChecklistItem{Key: "a", TasksPath: "specs/a/tasks.md", Dir: "specs/a", ModTime: at},
			src: SourceRef{Kind: KindSpecKit, Path: "specs/a/tasks.md", Priority: PrioritySpec}, from: "mtime"},
		{name: "no tasks.md: the folder; current: in progress; time from git", it: ChecklistItem{Key: "a", Dir: "specs/a", Current: true, ModTime: at, From: "git:abc"},
			src: SourceRef{Kind: KindSpecKit, Path: "specs/a", Priority: PriorityInProgress}, from: "git:abc"},
		{name: "no time: from nowhere", it: ChecklistItem{Key: "a", Dir: "specs/a", From: "git:abc"},
			src: SourceRef{Kind: KindSpecKit, Path: "specs/a", Priority: PrioritySpec}, from: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.it.Status, tt.it.StatusRaw, tt.it.Framework = StatusInProgress, "raw", "speckit-v1"
			tt.it.Findings = []Finding{{Code: "x"}}
			c := k.Candidate(tt.it)
			if c.ID != "feature:a" || c.Type != TypeFeature || c.Key != "a" || c.Workflow != "wf" || c.Agent != "dev" ||
				c.Status != string(StatusInProgress) || c.StatusRaw != "raw" || c.Framework != "speckit-v1" || c.Stories == nil {
				t.Errorf("candidate %+v", c)
			}
			if c.Source != tt.src || c.UpdatedFrom != tt.from || !c.UpdatedAt.Equal(tt.it.ModTime) {
				t.Errorf("source %+v from %q, want %+v from %q", c.Source, c.UpdatedFrom, tt.src, tt.from)
			}
			c.Findings[0].Code = "changed"
			if tt.it.Findings[0].Code != "x" {
				t.Error("the candidate's findings share the item's array")
			}
		})
	}
}
