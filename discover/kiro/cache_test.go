package kiro

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// cacheScan scans root's Kiro specs with cache c (nil: off), returning
// every field of the candidates and the findings as JSON, and the scan's
// hits and new entries.
func cacheScan(t *testing.T, root string, c *diskcache.Cache) (out string, hits, added int) {
	t.Helper()
	hits, added = -1, -1
	tasksCacheKind.Hits = func(h, a int) { hits, added = h, a }
	tasksCacheKind.Now = func() time.Time { return time.Now().Add(time.Hour) } // store what was just written
	t.Cleanup(func() { tasksCacheKind.Hits, tasksCacheKind.Now = nil, nil })
	r, _ := source.NewRepo(root, config.Default())
	r.Cache = c
	cs, fs := KiroSource.Scan(r)
	var full []any
	for _, c := range cs {
		full = append(full, []any{c, c.Resume, c.Position, c.Phases, c.Files, c.Findings})
	}
	data, err := json.Marshal([]any{full, fs})
	if err != nil {
		t.Fatal(err)
	}
	return string(data), hits, added
}

// cacheRepo writes the specs of the cache tests: four layouts, one of
// whose tasks.md names a folder (`src/stt/`: its parse asks whether src/
// exists).
func cacheRepo(t *testing.T) string {
	root := t.TempDir()
	sourcetest.Write(t, root, merge(
		fixture(t, "ide1x", ".kiro/specs/speech-to-text"), // `src/stt/` asks whether src/ exists
		fixture(t, "early", ".kiro/specs/billing-dashboard"),
		fixture(t, "ccsdd", ".kiro/specs/syndication-service"),
		fixture(t, "headings", ".kiro/specs/parser"),
		map[string]string{"src/stt/client.ts": "x\n", "app/billing/page.tsx": "x\n"},
	))
	return root
}

// TestTasksCacheWarmEqualsCold checks that a scan with the cache off, a
// first scan that fills it and a warm scan that reads it give the same
// candidates; that the warm scan parsed no stored tasks.md again; that a
// parse that looked the file system up is stored with its answers and is
// a miss once an answer changes; and that a changed file is a miss.
func TestTasksCacheWarmEqualsCold(t *testing.T) {
	root := cacheRepo(t)
	cache := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	off, _, _ := cacheScan(t, root, nil)
	cold, hits, added := cacheScan(t, root, cache)
	if hits != 0 || added != 4 {
		t.Errorf("cold: %d hits, %d added (want 0, 4)", hits, added)
	}
	warm, hits, added := cacheScan(t, root, cache)
	if hits != 4 || added != 0 {
		t.Errorf("warm: %d hits, %d added", hits, added)
	}
	if off != cold || cold != warm {
		t.Errorf("off, cold and warm differ:\n%s\n%s\n%s", off, cold, warm)
	}

	// an answer the stored parse depends on changes: a miss, for that spec
	if err := os.RemoveAll(filepath.Join(root, "src")); err != nil {
		t.Fatal(err)
	}
	before := off
	off, _, _ = cacheScan(t, root, nil)
	if off == before {
		t.Fatal("removing src/ changed nothing (the test proves nothing)")
	}
	got, hits, added := cacheScan(t, root, cache)
	if got != off || hits != 3 || added != 1 {
		t.Errorf("a changed answer: %d hits, %d added (want 3, 1); same answers %v", hits, added, got == off)
	}

	// a changed file is a miss
	p := filepath.Join(root, ".kiro/specs/parser/tasks.md")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(data, "- [ ] 99. One more\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	off, _, _ = cacheScan(t, root, nil)
	got, hits, added = cacheScan(t, root, cache)
	if got != off || hits != 3 || added != 1 {
		t.Errorf("a changed file: %d hits, %d added (want 3, 1); same answers %v", hits, added, got == off)
	}
	if got, hits, _ := cacheScan(t, root, cache); got != off || hits != 4 {
		t.Errorf("warm after the changes: %d hits; same answers %v", hits, got == off)
	}
}

// A table of another version, another user's key, or damaged by one byte
// is not read: no hit, the same answers; a file written just now is not
// stored.
func TestTasksCacheSaltAndTable(t *testing.T) {
	root := cacheRepo(t)
	dir := filepath.Join(t.TempDir(), "cache")
	mine := diskcache.New(dir)
	off, _, _ := cacheScan(t, root, nil)
	if _, _, added := cacheScan(t, root, mine); added != 4 {
		t.Fatalf("cold scan added %d", added)
	}
	v := tasksCacheKind.Version
	tasksCacheKind.Version = v + 1
	got, hits, added := cacheScan(t, root, mine)
	tasksCacheKind.Version = v
	if got != off || hits != 0 || added != 4 {
		t.Fatalf("another version: %d hits, %d added; same answers %v", hits, added, got == off)
	}
	other := t.TempDir()
	theirs, err := diskcache.ForUser(func(k string) string {
		return map[string]string{"HOME": other, diskcache.EnvDir: dir}[k]
	}, nil)
	if err != nil || theirs == nil {
		t.Fatalf("another user's cache: %v", err)
	}
	if _, _, added := cacheScan(t, root, theirs); added != 4 {
		t.Fatalf("another key: %d added", added)
	}
	mine = diskcache.New(dir)
	if got, hits, added := cacheScan(t, root, mine); got != off || hits != 0 || added != 4 {
		t.Fatalf("a table of another key: %d hits, %d added; same answers %v", hits, added, got == off)
	}
	p := mine.Path(tasksCacheKind.Name)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/3] ^= 0x10
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, hits, _ := cacheScan(t, root, mine); got != off || hits != 0 {
		t.Fatalf("a flipped table: %d hits; same answers %v", hits, got == off)
	}

	// racy: the scan's own clock, files written just now
	r, _ := source.NewRepo(root, config.Default())
	r.Cache = diskcache.New(filepath.Join(t.TempDir(), "fresh"))
	added = -1
	tasksCacheKind.Hits, tasksCacheKind.Now = func(_, a int) { added = a }, nil
	KiroSource.Scan(r)
	if added != 0 {
		t.Fatalf("files written just now were stored (%d entries)", added)
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
