package views

import (
	"reflect"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

func TestPhaseDependencies(t *testing.T) {
	tests := []struct {
		name   string
		phases []workflow.Phase
		want   []string
	}{
		{"none recorded", []workflow.Phase{{ID: "03-01", Status: "current"}}, nil},
		{"GSD plans", []workflow.Phase{
			{ID: "03-01", Status: "completed"},
			{ID: "03-02", Status: "current", DependsOn: []string{"03-01"}},
			{ID: "03-03", Status: "pending", DependsOn: []string{"03-01", "03-02", "02-05"}},
		}, []string{
			"03-02 depends on 03-01 (completed)",
			"03-03 depends on 03-01 (completed), 03-02 (current), 02-05 (not in this workflow)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PhaseDependencies(tt.phases); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
