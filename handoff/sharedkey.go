package handoff

import "github.com/orchestrate-dev/orchestrate/workflow"

// KeyFor is the idempotency key Execute would give a resume of c at phase
// (the plan's resume-from phase) as the state is now: the shared lifecycle
// (internal/sharedlife) checks its records for it before Execute runs.
func KeyFor(root string, c workflow.Candidate, phase string) (string, error) {
	hash, err := sourceHash(root, c, wrappersFor(c.Source.Kind), hasStateFile(c.Source.Kind))
	if err != nil {
		return "", err
	}
	return IdempotencyKey(c.ID, phase, hash), nil
}
