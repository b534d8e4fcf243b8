package discover

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/discover/story"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestScanDeferredStories: a scan whose story candidates are built beside
// the other sources' scans (story.StorySource's ScanDeferred) gives the
// result of one that builds them at once (the same source without it), with
// git times and without: stories in every status, a duplicate id, a file
// that is not a story, a workflow state and a BMAD v6 ledger absorbing
// stories, a story in flight dated from git.
func TestScanDeferredStories(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"docs/stories/1.1.done.md":        "# Story 1.1: Done\n\n**Status:** Done\n\n## File List\n\n- src/a.go\n",
		"docs/stories/1.2.wip.md":         "# Story 1.2: In progress\n\n**Status:** InProgress\n\n## File List\n\n- src/b.go\n",
		"docs/stories/1.3.review.md":      "# Story 1.3: Review\n\n**Status:** InReview\n",
		"docs/stories/1.4.draft.md":       "# Story 1.4: Draft\n\n**Status:** Draft\n",
		"docs/stories/epic2/1.2.again.md": "# Story 1.2: Again\n\n**Status:** InProgress\n",
		"docs/stories/README.md":          "# Stories\n\nAn index.\n",
		"docs/stories/2-1-ledger.md":      "# Story 2.1: Ledger\n\nStatus: in-progress\n",
		"docs/sprint-status.yaml":         "development_status:\n  epic-2: in-progress\n  2-1-ledger: in-progress\n",
		".orchestrate/workflows/sdc-1.yaml": "execution_id: sdc-1\nworkflow: story-development-cycle\nstatus: interrupted\n" +
			"story: \"1.3\"\nfiles:\n  - src/c.go\n",
		"src/a.go": "package a\n",
	}
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	times := func(paths []string) map[string]Stamp {
		out := map[string]Stamp{}
		for _, p := range paths {
			if p == "docs/stories/1.2.wip.md" || p == ".orchestrate/workflows/sdc-1.yaml" {
				out[p] = Stamp{When: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), From: "git:abc1234"}
			}
		}
		return out
	}
	at := func(sources []source.Source, tm func([]string) map[string]Stamp) Result {
		r, _ := source.NewRepo(dir, config.Default())
		return Scan(r, Options{Sources: sources, Times: tm})
	}
	plain := DefaultSources()
	if _, ok := plain[0].(deferredSource); !ok || plain[0].Kind() != workflow.KindStory {
		t.Fatalf("the story source is not deferred: %T", plain[0])
	}
	plain[0] = story.StorySource.(interface{ Unwrap() source.Format }).Unwrap() // the story source without ScanDeferred
	for _, tm := range []func([]string) map[string]Stamp{nil, times} {
		want := at(plain, tm)
		got := at(nil, tm)
		if len(want.Candidates) < 6 {
			t.Fatalf("only %d candidates", len(want.Candidates))
		}
		if !reflect.DeepEqual(got.Candidates, want.Candidates) {
			t.Errorf("candidates differ:\n got %+v\nwant %+v", got.Candidates, want.Candidates)
		}
		if !reflect.DeepEqual(got.Findings, want.Findings) || !reflect.DeepEqual(got.Stories, want.Stories) {
			t.Errorf("findings or stories differ:\n got %+v\nwant %+v", got.Findings, want.Findings)
		}
	}
}
