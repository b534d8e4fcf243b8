package discover

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
)

// TestDateOnce: each path is asked of the wrapped Times once, whatever the
// calls; a path asked again takes its first answer, or its absence; the
// answer of each call is the wrapped function's for its paths.
func TestDateOnce(t *testing.T) {
	at := Stamp{When: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), From: "git:abc1234"}
	committed := map[string]bool{"a": true, "c": true}
	tests := []struct {
		name  string
		calls [][]string
		want  []map[string]Stamp
		asked map[string]int
	}{
		{"nil paths", [][]string{nil}, []map[string]Stamp{{}}, map[string]int{}},
		{"one call", [][]string{{"a", "b"}}, []map[string]Stamp{{"a": at}}, map[string]int{"a": 1, "b": 1}},
		{"asked again", [][]string{{"a", "b"}, {"b", "a"}, {"a"}},
			[]map[string]Stamp{{"a": at}, {"a": at}, {"a": at}}, map[string]int{"a": 1, "b": 1}},
		{"overlap", [][]string{{"a", "b"}, {"b", "c", "d"}},
			[]map[string]Stamp{{"a": at}, {"c": at}}, map[string]int{"a": 1, "b": 1, "c": 1, "d": 1}},
		{"twice in one call", [][]string{{"c", "c"}}, []map[string]Stamp{{"c": at}}, map[string]int{"c": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked := map[string]int{}
			f := dateOnce(func(paths []string) map[string]Stamp {
				out := map[string]Stamp{}
				if !slices.Contains(paths, "unasked") {
					out["unasked"] = at // a stray answer: never kept
				}
				for _, p := range paths {
					asked[p]++
					if committed[p] {
						out[p] = at
					}
				}
				return out
			})
			for i, c := range tt.calls {
				if got := f(c); !reflect.DeepEqual(got, tt.want[i]) {
					t.Errorf("call %d %v = %v, want %v", i, c, got, tt.want[i])
				}
			}
			if !reflect.DeepEqual(asked, tt.asked) {
				t.Errorf("asked %v, want %v", asked, tt.asked)
			}
			if got := f([]string{"unasked"}); len(got) != 0 || asked["unasked"] != 1 {
				t.Errorf("a stray answer was kept: %v, asked %d", got, asked["unasked"])
			}
		})
	}
	if dateOnce(nil) != nil {
		t.Error("dateOnce(nil) is not nil")
	}
}

// TestDateOnceConcurrent: calls from several goroutines take turns (the
// wrapped function is never entered twice at once) and still ask each
// path once (run with -race).
func TestDateOnceConcurrent(t *testing.T) {
	var mu sync.Mutex
	inside, asked := 0, map[string]int{}
	f := dateOnce(func(paths []string) map[string]Stamp {
		mu.Lock()
		inside++
		if inside > 1 {
			t.Error("entered twice at once")
		}
		for _, p := range paths {
			asked[p]++
		}
		mu.Unlock()
		time.Sleep(time.Millisecond) // widen the window a second entry would use
		mu.Lock()
		inside--
		mu.Unlock()
		return nil
	})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f([]string{"x", "y", "z"})
		}()
	}
	wg.Wait()
	if !reflect.DeepEqual(asked, map[string]int{"x": 1, "y": 1, "z": 1}) {
		t.Errorf("asked %v", asked)
	}
}

// TestScanDatesEachPathOnce: a scan asks the repository's times of each
// path once: a story in flight with an uncommitted edit (no answer from
// the prefetch) is not asked again after Merge, and the candidates are
// dated as before (the committed story from git, the edited one by mtime).
func TestScanDatesEachPathOnce(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"docs/stories/1.1.wip.md":  "# Story 1.1: Committed\n\n**Status:** InProgress\n",
		"docs/stories/1.2.edit.md": "# Story 1.2: Edited\n\n**Status:** InProgress\n",
		"docs/stories/1.3.rev.md":  "# Story 1.3: Review\n\n**Status:** InReview\n",
		".orchestrate/workflows/sdc-1.yaml": "execution_id: sdc-1\nworkflow: story-development-cycle\nstatus: interrupted\n" +
			"story: \"1.3\"\n",
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
	at := Stamp{When: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), From: "git:abc1234"}
	var mu sync.Mutex
	asked := map[string]int{}
	times := func(paths []string) map[string]Stamp {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]Stamp{}
		for _, p := range paths {
			asked[p]++
			if p == "docs/stories/1.1.wip.md" {
				out[p] = at
			}
		}
		return out
	}
	r, _ := source.NewRepo(dir, config.Default())
	res := Scan(r, Options{Times: times})
	for p, n := range asked {
		if n != 1 {
			t.Errorf("%s asked %d times", p, n)
		}
	}
	if asked["docs/stories/1.2.edit.md"] != 1 || asked["docs/stories/1.1.wip.md"] != 1 {
		t.Errorf("the stories in flight were not asked: %v", asked)
	}
	dated := map[string]string{}
	for _, c := range res.Candidates {
		dated[c.Source.Path] = c.UpdatedFrom
	}
	if dated["docs/stories/1.1.wip.md"] != "git:abc1234" || dated["docs/stories/1.2.edit.md"] != "mtime" {
		t.Errorf("dated %v", dated)
	}
}
