package handoff

import (
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/progress"
)

// The format packages under discover/ own their grammar both ways: they
// parse a state and they patch it. handoff only routes a state file to its
// format's patch here, and keeps the lock, the atomic write and the backup.

// patchProgressState marks a markdown progress file resumed (see
// progress.Patch); it has patchState's signature so updateState can route
// markdown files here.
func patchProgressState(path string, data []byte, now time.Time, _ []string) ([]byte, error) {
	return progress.Patch(path, data, now)
}

// progressStateHash hashes a progress file apart from what a resume writes.
func progressStateHash(data []byte) string { return progress.StateHash(data) }
