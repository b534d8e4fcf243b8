package cli

import (
	"errors"
	"testing"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
)

func TestCheckPlanFlags(t *testing.T) {
	tests := []struct {
		name  string
		opts  ResumeOptions
		usage bool
	}{
		{"nothing", ResumeOptions{}, false},
		{"plan-out with dry-run", ResumeOptions{PlanOut: "p", DryRun: true}, false},
		{"plan-out without dry-run", ResumeOptions{PlanOut: "p"}, true},
		{"plan alone", ResumeOptions{Plan: "p"}, false},
		{"plan with dry-run", ResumeOptions{Plan: "p", DryRun: true}, true},
		{"plan with workflow", ResumeOptions{Plan: "p", Workflow: "sdc-1"}, true},
		{"plan with plan-out", ResumeOptions{Plan: "p", PlanOut: "q", DryRun: true}, true},
		{"plan with mode", ResumeOptions{Plan: "p", Mode: "autopilot"}, true},
		{"plan with approve", ResumeOptions{Plan: "p", Approve: true}, true},
		{"plan with force", ResumeOptions{Plan: "p", Force: true}, true},
		{"plan with from-phase", ResumeOptions{Plan: "p", FromPhase: "review"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkPlanFlags(&tt.opts)
			var ue *cmdutil.UsageError
			if got := errors.As(err, &ue); got != tt.usage || (err != nil) != tt.usage {
				t.Fatalf("checkPlanFlags = %v, want usage error %v", err, tt.usage)
			}
		})
	}
}
