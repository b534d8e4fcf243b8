package gitrepo

import (
	"testing"
	"time"
)

// TestInterruptionCommitReadsEachCommitOnce: the walks of InterruptionCommit
// from HEAD, one per interruption time, decode each commit once (the 23
// walks of a status on the bench's specs shape read 3,115 commits, 300 of
// them distinct) and answer as a Repo that decoded none before.
func TestInterruptionCommitReadsEachCommitOnce(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	r := open(t, h.dir)
	ats := []time.Duration{-time.Hour, 0, 30 * time.Minute, 90 * time.Minute, 150 * time.Minute, 4 * time.Hour, 30 * time.Minute, 0}
	for round := 0; round < 3; round++ {
		for _, d := range ats {
			got, gotErr := r.InterruptionCommit("", t0.Add(d))
			want, wantErr := open(t, h.dir).InterruptionCommit("", t0.Add(d))
			if got != want || (gotErr == nil) != (wantErr == nil) {
				t.Errorf("round %d, at t0%+v: %+v, %v; a fresh Repo says %+v, %v", round, d, got, gotErr, want, wantErr)
			}
		}
	}
	if n := r.nCommits.Load(); n != 4 {
		t.Errorf("decoded %d commits, want each of the 4 once", n)
	}
}
