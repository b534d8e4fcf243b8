package source

import (
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// ReadStatus sets c's raw and normalized status from the state st (of the
// file at path): "finished" reads as completed, and a state without a
// status whose fields say its work is over (FinishedBy) is completed with
// an info finding saying which field decided.
func ReadStatus(f *Fields, st map[string]any, path string, c *workflow.Candidate) {
	c.StatusRaw = f.Str(st, "status")
	c.Status = workflow.NormalizeStateStatus(c.StatusRaw)
	if c.Status == "finished" {
		c.Status = "completed"
	}
	if c.Status == "" {
		if k, v := FinishedBy([]map[string]any{st}); k != "" {
			c.Status = "completed"
			c.Findings = append(c.Findings, FinishedFinding(path, k, v))
		}
	}
}
