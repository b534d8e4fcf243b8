package wfstate

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// setStateWorkers sets the parallel scan's thresholds for one test.
func setStateWorkers(t *testing.T, min, workers, chunk int) {
	t.Helper()
	oldMin, oldWorkers, oldChunk := minParallelStates, maxStateWorkers, stateChunk
	minParallelStates, maxStateWorkers, stateChunk = min, workers, chunk
	old := runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), 4))
	t.Cleanup(func() {
		minParallelStates, maxStateWorkers, stateChunk = oldMin, oldWorkers, oldChunk
		runtime.GOMAXPROCS(old)
	})
}

// The state files read on workers give the candidates of a scan of one
// file after the other, in the same order: every layout, unreadable and
// undecodable files, .bak twins and epic states (skipped), story files.
func TestWorkflowStateScanParallelMatchesSequential(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		".nexos/workflow-state/bad.yaml":   "status: \x00\x01binary",
		".nexos/workflow-state/worse.yaml": "a: [unclosed\n",
		".aiox/epic-ACT-state.yaml":        "epic_state: {epic_id: ACT, status: active}\n",
		".aiox/custom-state.yaml":          "epic_state:\n  epic_id: X\n",
		".aiox/dev-state.yaml":             "workflowId: development-cycle\ncurrentPhase: 2_development\nstoryId: \"4.2\"\n",
		"docs/stories/.session-state.yaml": wfSession,
		"docs/stories/4.2.login.md":        "# Story 4.2: Login\n",
	}
	for i := 0; i < 60; i++ {
		name := fmt.Sprintf(".orchestrate/workflows/sdc-2025-06-01-%02d.yaml", i)
		files[name] = wfOurs
		if i%4 == 0 {
			files[name+".bak"] = wfOurs
		}
		if i%9 == 0 {
			files[fmt.Sprintf(".nexos/workflow-state/EPIC-%d-state.yaml", i)] = wfCheckpointPaused
		}
	}
	sourcetest.Write(t, root, files)
	scan := func() []workflow.Candidate {
		r, _ := source.NewRepo(root, config.Default())
		r.Stories["4.2"] = &workflow.Story{ID: "4.2", Path: "docs/stories/4.2.login.md"}
		r.Stories["7.1"] = &workflow.Story{ID: "7.1", Path: "docs/stories/7.1.a.md"}
		cs, _ := WorkflowStateSource.Scan(r)
		return cs
	}
	setStateWorkers(t, 1<<30, 1, 1)
	want := scan()
	if len(want) != 60+7+4 {
		t.Fatalf("%d candidates, want %d", len(want), 60+7+4)
	}
	for _, tc := range []struct{ workers, chunk int }{{2, 1}, {4, 3}, {4, 64}} {
		setStateWorkers(t, 1, tc.workers, tc.chunk)
		if got := scan(); !reflect.DeepEqual(got, want) {
			t.Errorf("workers %d, chunk %d: the candidates differ from a sequential scan", tc.workers, tc.chunk)
		}
	}
	// none kept: nil, as before
	empty := t.TempDir()
	r, _ := source.NewRepo(empty, config.Default())
	if cs, _ := WorkflowStateSource.Scan(r); cs != nil {
		t.Errorf("no state files: %v", cs)
	}
}
