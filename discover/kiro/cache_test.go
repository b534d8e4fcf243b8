package kiro

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// TestTasksCacheWarmEqualsCold checks that a scan with the cache off, a
// first scan that fills it and a warm scan that reads it give the same
// candidates; that the warm scan parsed no stored tasks.md again; and that
// a parse that looked the file system up (a path without an extension)
// is never stored.
func TestTasksCacheWarmEqualsCold(t *testing.T) {
	var hits, added int
	tasksCacheKind.Hits = func(h, a int) { hits, added = h, a }
	tasksCacheKind.Now = func() time.Time { return time.Now().Add(time.Hour) } // store what was just written
	t.Cleanup(func() { tasksCacheKind.Hits, tasksCacheKind.Now = nil, nil })
	root := t.TempDir()
	sourcetest.Write(t, root, merge(
		fixture(t, "ide1x", ".kiro/specs/speech-to-text"), // `src/stt/` asks whether src/ exists
		fixture(t, "early", ".kiro/specs/billing-dashboard"),
		fixture(t, "ccsdd", ".kiro/specs/syndication-service"),
		fixture(t, "headings", ".kiro/specs/parser"),
		map[string]string{"src/stt/client.ts": "x\n", "app/billing/page.tsx": "x\n"},
	))
	cache := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	run := func(c *diskcache.Cache) string {
		r, _ := source.NewRepo(root, config.Default())
		r.Cache = c
		cs, fs := KiroSource.Scan(r)
		var full []any
		for _, c := range cs {
			full = append(full, []any{c, c.Resume, c.Position, c.Phases, c.Files, c.Findings})
		}
		out, err := json.Marshal([]any{full, fs})
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	off := run(nil)
	cold := run(cache)
	if hits != 0 || added != 3 {
		t.Errorf("cold: %d hits, %d added (want 0, 3: not the spec that asked the file system)", hits, added)
	}
	warm := run(cache)
	if hits != 3 || added != 0 {
		t.Errorf("warm: %d hits, %d added", hits, added)
	}
	if off != cold || cold != warm {
		t.Errorf("off, cold and warm differ:\n%s\n%s\n%s", off, cold, warm)
	}
}

// TestTasksEncoding checks the value encoding round trip on every fixture
// and that damaged values are misses.
func TestTasksEncoding(t *testing.T) {
	for _, name := range []string{"ide1x", "early", "ccsdd", "bugfix", "headings"} {
		ts := ParseTasks(readFixture(t, name))
		v := encodeTasks(&ts)
		got, ok := decodeTasks(v)
		if !ok || !reflect.DeepEqual(got, ts) {
			t.Errorf("%s: round trip %v\n%+v\n%+v", name, ok, got, ts)
		}
		for _, cut := range []int{0, 1, len(v) / 2, len(v) - 1} {
			if _, ok := decodeTasks(v[:cut]); ok && cut != len(v) {
				t.Errorf("%s: a value cut at %d decodes", name, cut)
			}
		}
		if _, ok := decodeTasks(append(append([]byte(nil), v...), 0)); ok {
			t.Errorf("%s: trailing bytes decode", name)
		}
	}
}
