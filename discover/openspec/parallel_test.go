package openspec

import (
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestChangesReadInParallel: change folders read on several workers give
// the candidates and findings of a read on one (GOMAXPROCS 1), with and
// without the cache: active changes in every state, archived ones (open
// boxes, undated, a nested copy, one also active), enough of them for the
// workers to share.
func TestChangesReadInParallel(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"openspec/config.yaml": "schema: spec-driven\n"}
	for i := range 40 {
		c := fmt.Sprintf("openspec/changes/change-%02d/", i)
		switch i % 4 {
		case 0:
			files[c+"tasks.md"] = tasksPartial
			files[c+"proposal.md"] = "# p\n"
			files[c+"specs/auth/spec.md"] = "# s\n"
			files[c+".openspec.yaml"] = fmt.Sprintf("schema: spec-driven\ncreated: 2026-01-%02d\n", i%28+1)
		case 1:
			files[c+"tasks.md"] = tasksDone
		case 2:
			files[c+"tasks.md"] = tasksFresh
			files[c+"design.md"] = "# d\n"
		default:
			files[c+"proposal.md"] = "# only a proposal\n"
		}
		a := fmt.Sprintf("openspec/changes/archive/2025-11-%02d-old-%02d/", i%28+1, i)
		files[a+"tasks.md"] = []string{tasksDone, tasksPartial}[i%2]
	}
	files["openspec/changes/archive/undated/tasks.md"] = tasksDone
	files["openspec/changes/archive/2025-12-24-copy/copy/tasks.md"] = tasksPartial
	files["openspec/changes/archive/2025-12-09-change-00/tasks.md"] = tasksDone
	files["src/app.ts"] = "x\n"
	sourcetest.Write(t, root, files)

	scan := func(c *diskcache.Cache) ([]workflow.Candidate, []workflow.Finding) {
		r, _ := source.NewRepo(root, config.Default())
		r.Cache = c
		return OpenSpecSource.Scan(r)
	}
	prev := runtime.GOMAXPROCS(1)
	wantC, wantF := scan(nil)
	runtime.GOMAXPROCS(max(prev, 4))
	defer runtime.GOMAXPROCS(prev)
	if len(wantC) != 40 {
		t.Fatalf("%d candidates, want 40", len(wantC))
	}
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	for _, run := range []struct {
		what string
		c    *diskcache.Cache
	}{{"off", nil}, {"cold", c}, {"warm", c}} {
		gotC, gotF := scan(run.c)
		if !reflect.DeepEqual(gotC, wantC) {
			t.Errorf("%s: the candidates differ from a read on one processor", run.what)
		}
		if !reflect.DeepEqual(gotF, wantF) {
			t.Errorf("%s: findings\n%+v\nwant\n%+v", run.what, gotF, wantF)
		}
	}
}
