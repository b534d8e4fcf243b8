package discover

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// benchStories is the number of story files of BenchmarkScanStories.
const benchStories = 20000

var (
	benchOnce sync.Once
	benchRoot string
	benchErr  error
)

// benchStoryRepo writes benchStories story files once per test binary
// (half in progress, a quarter in review) into a temporary folder.
func benchStoryRepo(b *testing.B) string {
	b.Helper()
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "orchestrate-bench-stories-")
		if err != nil {
			benchErr = err
			return
		}
		benchRoot = dir
		statuses := []string{"InProgress", "InProgress", "InReview", "Done"}
		for i := 0; i < benchStories; i++ {
			epic, n := i/100+1, i%100+1
			rel := fmt.Sprintf("docs/stories/epic-%d/%d.%d.story-%d.md", epic, epic, n, i)
			full := filepath.Join(dir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				benchErr = err
				return
			}
			body := fmt.Sprintf("# Story %d.%d: Generated story %d\r\n\r\n**Status:** %s\r\n**Executor:** @dev\r\n**Quality Gate:** @qa\r\n**Epic:** %d\r\n\r\n## Story\r\n\r\nAs a **user** I want `thing %d`.\r\n\r\n## Acceptance Criteria\r\n\r\n1. It works.   \r\n2. It is fast.\r\n\r\n## Tasks / Subtasks\r\n\r\n- [x] Task one\r\n- [ ] Task two\r\n\r\n## Dev Notes\r\n\r\nNothing special.\r\n\r\n## File List\r\n\r\n- `src/pkg%d/a.go`\r\n- `src/pkg%d/b.go`\r\n\r\n| File | Change |\r\n|---|---|\r\n| src/pkg%d/c.go | added |\r\n\r\n## Change Log\r\n\r\n| Date | Change |\r\n|---|---|\r\n| 2026-01-01 | created |\r\n",
				epic, n, i, statuses[i%len(statuses)], epic, i, i, i, i)
			if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
				benchErr = err
				return
			}
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchRoot
}

// BenchmarkScanStories measures a whole scan of 20,000 story files: read,
// parse, candidates, merge and order.
func BenchmarkScanStories(b *testing.B) {
	root := benchStoryRepo(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, _ := source.NewRepo(root, config.Default())
		res := Scan(r, Options{})
		if len(res.Candidates) != benchStories {
			b.Fatalf("%d candidates", len(res.Candidates))
		}
	}
}

// benchMergeInput is 20,000 story candidates and 200 state-file candidates,
// each state naming 100 of the stories.
func benchMergeInput() []workflow.Candidate {
	var cs []workflow.Candidate
	for i := 0; i < benchStories; i++ {
		id := fmt.Sprintf("%d.%d", i/100+1, i%100+1)
		p := "docs/stories/" + id + ".md"
		cs = append(cs, workflow.Candidate{
			ID: "sdc:" + id, Key: id, Type: workflow.TypeSDC, Resumable: true, Stories: []string{id},
			Source: workflow.SourceRef{Kind: workflow.KindStory, Path: p, Priority: workflow.PriorityInProgress},
			Files:  []workflow.RefFile{{Path: p, Critical: true}, {Path: "src/" + id + ".go", Produced: true}},
		})
	}
	for e := 0; e < benchStories/100; e++ {
		c := workflow.Candidate{ID: fmt.Sprintf("epic:%d", e+1), Key: fmt.Sprint(e + 1), Type: workflow.TypeEpic, Resumable: true,
			Source: workflow.SourceRef{Kind: workflow.KindEpicState, Path: fmt.Sprintf(".aiox/epic-%d-state.yaml", e+1), Priority: workflow.PriorityEpic}}
		for n := 0; n < 100; n++ {
			c.Stories = append(c.Stories, fmt.Sprintf("%d.%d", e+1, n+1))
		}
		cs = append(cs, c)
	}
	return cs
}

// BenchmarkMerge measures Merge over benchMergeInput.
func BenchmarkMerge(b *testing.B) {
	in := benchMergeInput()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cs := make([]workflow.Candidate, len(in))
		copy(cs, in)
		for j := range cs {
			cs[j].Files = append([]workflow.RefFile(nil), in[j].Files...)
		}
		b.StartTimer()
		out := Merge(cs)
		if len(out) != benchStories/100 {
			b.Fatalf("%d candidates after merge", len(out))
		}
	}
}

// TestMain removes the benchmarks' generated repository.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchRoot != "" {
		os.RemoveAll(benchRoot)
	}
	os.Exit(code)
}

// BenchmarkMergeStories is Merge over 20,000 story candidates and no state
// file (the shape of a repository of stories): nothing merges, nothing moves.
func BenchmarkMergeStories(b *testing.B) {
	in := make([]workflow.Candidate, 20000)
	for i := range in {
		in[i] = workflow.Candidate{ID: fmt.Sprintf("story:%d.%d", i/20, i%20), Type: workflow.TypeSDC,
			Stories: []string{fmt.Sprintf("%d.%d", i/20, i%20)},
			Source:  workflow.SourceRef{Kind: workflow.KindStory, Path: fmt.Sprintf("docs/stories/%d.md", i)}}
	}
	cs := make([]workflow.Candidate, len(in))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		copy(cs, in)
		if out := Merge(cs); len(out) != len(in) {
			b.Fatalf("%d candidates after merge", len(out))
		}
	}
}
