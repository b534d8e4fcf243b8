package workflow

import (
	"reflect"
	"strings"
	"testing"
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
