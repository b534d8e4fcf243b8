package kiro

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

// TestSpecsReadInParallel: spec folders read and settled on several
// workers (each settle looks task paths up through the scan's shared
// memo) give the candidates and findings of a read on one (GOMAXPROCS 1),
// with and without the cache: every producer's layout, enough specs for
// the workers to share, several in flight naming the same files.
func TestSpecsReadInParallel(t *testing.T) {
	root := t.TempDir()
	var parts []map[string]string
	for i := range 40 {
		name := []string{"ide1x", "early", "ccsdd", "bugfix", "headings"}[i%5]
		parts = append(parts, fixture(t, name, fmt.Sprintf(".kiro/specs/spec-%02d", i)))
	}
	parts = append(parts, map[string]string{"src/stt/client.ts": "x\n", "src/stt/models.ts": "x\n", "app/billing/page.tsx": "x\n"})
	sourcetest.Write(t, root, merge(parts...))

	scan := func(c *diskcache.Cache) ([]workflow.Candidate, []workflow.Finding) {
		r, _ := source.NewRepo(root, config.Default())
		r.Cache = c
		return KiroSource.Scan(r)
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
