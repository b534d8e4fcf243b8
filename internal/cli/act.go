package cli

import "fmt"

// act carries out a resume that is not a dry run.
func (a *app) act(r *resumeRun, code int) error {
	return a.finishResume(r, "error", ExitError, fmt.Errorf("resuming for real is not available yet: run with --dry-run"))
}
