package openspec

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// cacheFiles are the changes of the cache tests: every status, fenced and
// unclosed fences, requirement references, a task naming a folder (its
// parse asks the file system: never stored), archived changes (one with
// open boxes, one without tasks.md) and a change without tasks.md.
func cacheFiles(t *testing.T) map[string]string {
	t.Helper()
	fixture := func(name string) string {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	return map[string]string{
		"openspec/config.yaml":                                 "schema: spec-driven\n",
		"openspec/changes/partial/tasks.md":                    tasksPartial,
		"openspec/changes/partial/proposal.md":                 "# Partial\n",
		"openspec/changes/partial/.openspec.yaml":              "created: 2026-01-02\n",
		"openspec/changes/partial/specs/auth/spec.md":          "# Auth\n",
		"openspec/changes/done/tasks.md":                       tasksDone,
		"openspec/changes/fresh/tasks.md":                      tasksFresh,
		"openspec/changes/fenced/tasks.md":                     fixture("tasks_fenced.md"),
		"openspec/changes/unclosed/tasks.md":                   fixture("tasks_unclosed.md"),
		"openspec/changes/markers/tasks.md":                    fixture("tasks_markers.md"),
		"openspec/changes/v1/tasks.md":                         fixture("tasks_v1.md"),
		"openspec/changes/asks/tasks.md":                       "## 1. Go\n\n- [x] 1.1 Build `src/components`\n- [ ] 1.2 Ship\n",
		"openspec/changes/draft/proposal.md":                   "# Draft\n",
		"openspec/changes/archive/2026-01-01-old/tasks.md":     "- [x] 1.1 a\n- [ ] 1.2 b\n```\n- [ ] x\n```\n",
		"openspec/changes/archive/2026-01-02-bare/proposal.md": "# Bare\n",
		"src/components/button.tsx":                            "x\n",
	}
}

// cacheScan is scanCounting with the draft table keeping nothing
// (sourcetest.KeepNothing).
func cacheScan(t *testing.T, root string, c *diskcache.Cache) (out string, hits, added int) {
	t.Helper()
	sourcetest.KeepNothing(t, &draftCacheKind)
	return scanCounting(t, root, c)
}

// scanCounting scans root's OpenSpec changes with cache c (nil: off),
// returning every field of the candidates and the findings as JSON, and
// the scan's hits and new entries.
func scanCounting(t *testing.T, root string, c *diskcache.Cache) (out string, hits, added int) {
	t.Helper()
	r, _ := source.NewRepo(root, config.Default())
	r.Cache = c
	hits, added = -1, -1
	tasksCacheKind.Hits = func(h, a int) { hits, added = h, a }
	tasksCacheKind.Now = func() time.Time { return time.Now().Add(time.Hour) } // store what was just written
	t.Cleanup(func() { tasksCacheKind.Hits, tasksCacheKind.Now = nil, nil })
	cs, fs := OpenSpecSource.Scan(r)
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

// The stored entries of cacheFiles: every tasks.md, the archived one and
// those whose parse asked the file system (asks: src/ for src/components;
// v1: /api/v2/preferences) included, and the .openspec.yaml of the change
// in flight (partial).
const cacheStored = 10

// A scan with the cache off, a first one that fills it and a warm one give
// the same candidates and findings; the warm scan reads every stored
// tasks.md from the cache; a value that does not decode, a changed file
// and a symlinked tasks.md are misses that give the same answers as no
// cache.
func TestTasksCacheWarmEqualsCold(t *testing.T) {
	root := t.TempDir()
	sourcetest.Write(t, root, cacheFiles(t))
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))

	off, _, _ := cacheScan(t, root, nil)
	cold, hits, added := cacheScan(t, root, c)
	if cold != off {
		t.Fatalf("cold scan differs from a scan without cache:\n%s\n%s", cold, off)
	}
	if hits != 0 || added != cacheStored {
		t.Fatalf("cold scan: %d hits, %d added, want 0 and %d", hits, added, cacheStored)
	}
	for i := 0; i < 2; i++ {
		warm, hits, added := cacheScan(t, root, c)
		if warm != off {
			t.Fatalf("warm scan %d differs from a scan without cache:\n%s\n%s", i, warm, off)
		}
		if hits != cacheStored || added != 0 {
			t.Fatalf("warm scan %d: %d hits, %d added, want %d and 0", i, hits, added, cacheStored)
		}
	}

	// values that do not decode, or are of the other kind, are misses (and
	// are replaced)
	tbl, _ := c.Open(source.TableName(&tasksCacheKind, root), sha256.Size)
	b := diskcache.NewBuilder(sha256.Size)
	salt := tasksCacheKind.Salt()
	for p, v := range map[string][]byte{
		"openspec/changes/partial/tasks.md":                encodeCounts(1, 2, 2), // an archived change's value for an active one
		"openspec/changes/done/tasks.md":                   {0xee, 1, 2},
		"openspec/changes/archive/2026-01-01-old/tasks.md": encodeTasks(nil, &Tasks{}),
		"openspec/changes/partial/.openspec.yaml":          append(encodeMeta("2026-01-02", ""), 0),
	} {
		dir, name := filepath.Split(p)
		d, err := safefile.OpenDir(root, strings.TrimSuffix(dir, "/"), false)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := d.StatNoFollow(name)
		d.Close()
		if err != nil {
			t.Fatal(err)
		}
		k := source.StatCacheKey(salt, p, fs, nil)
		b.Add(k[:], v)
	}
	if err := c.Write(source.TableName(&tasksCacheKind, root), tbl, b); err != nil {
		t.Fatal(err)
	}
	got, hits, added := cacheScan(t, root, c)
	if got != off || hits != cacheStored-4 || added != 4 {
		t.Fatalf("corrupt values: %d hits, %d added (want %d, 4); same answers %v", hits, added, cacheStored-4, got == off)
	}

	// a changed file is a miss; a symlinked tasks.md is read the usual way
	p := filepath.Join(root, "openspec/changes/fresh/tasks.md")
	if err := os.WriteFile(p, []byte(tasksPartial+"- [x] 1.3 More\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "openspec/changes/linked"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../done/tasks.md", filepath.Join(root, "openspec/changes/linked/tasks.md")); err != nil {
		t.Fatal(err)
	}
	off, _, _ = cacheScan(t, root, nil)
	got, hits, added = cacheScan(t, root, c)
	if got != off || hits != cacheStored-1 || added != 1 {
		t.Fatalf("changed file: %d hits, %d added (want %d, 1); same answers %v", hits, added, cacheStored-1, got == off)
	}
	if got, hits, _ := cacheScan(t, root, c); got != off || hits != cacheStored {
		t.Fatalf("warm scan after the change: %d hits; same answers %v", hits, got == off)
	}

	// an answer the stored parse depends on changes (src/ is gone: `src/components`
	// is no path any more): a miss, for that change only
	if err := os.RemoveAll(filepath.Join(root, "src")); err != nil {
		t.Fatal(err)
	}
	before := off
	off, _, _ = cacheScan(t, root, nil)
	if off == before {
		t.Fatal("removing src/ changed nothing (the test proves nothing)")
	}
	got, hits, added = cacheScan(t, root, c)
	if got != off || hits != cacheStored-1 || added != 1 {
		t.Fatalf("a changed answer: %d hits, %d added (want %d, 1); same answers %v", hits, added, cacheStored-1, got == off)
	}
	if got, hits, _ := cacheScan(t, root, c); got != off || hits != cacheStored {
		t.Fatalf("warm scan after the changed answer: %d hits; same answers %v", hits, got == off)
	}
}

// A parse that asked more than source.MaxAsked questions is not stored;
// one that asked up to it is, and gives the same answers warm.
func TestTasksCacheManyQuestions(t *testing.T) {
	root := t.TempDir()
	task := func(n int) string {
		var b strings.Builder
		b.WriteString("## 1. Work\n\n- [x] 1.1 Done\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "- [ ] 1.%d Build `dir%d/pages`\n", i+2, i)
		}
		return b.String()
	}
	files := map[string]string{
		"openspec/changes/few/tasks.md":  task(source.MaxAsked),
		"openspec/changes/many/tasks.md": task(source.MaxAsked + 1),
		"dir3/pages/x.ts":                "x\n",
	}
	sourcetest.Write(t, root, files)
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	off, _, _ := cacheScan(t, root, nil)
	if got, hits, added := cacheScan(t, root, c); got != off || hits != 0 || added != 1 {
		t.Fatalf("cold: %d hits, %d added (want 0, 1); same answers %v", hits, added, got == off)
	}
	if got, hits, added := cacheScan(t, root, c); got != off || hits != 1 || added != 0 {
		t.Fatalf("warm: %d hits, %d added (want 1, 0); same answers %v", hits, added, got == off)
	}
}

// A table of another version (the salt of another parser), another user's
// key, or damaged by one byte is not read: no hit, the same answers.
func TestTasksCacheSaltAndTable(t *testing.T) {
	root := t.TempDir()
	sourcetest.Write(t, root, cacheFiles(t))
	dir := filepath.Join(t.TempDir(), "cache")
	mine := diskcache.New(dir)
	off, _, _ := cacheScan(t, root, nil)
	if _, _, added := cacheScan(t, root, mine); added != cacheStored {
		t.Fatalf("cold scan added %d", added)
	}

	v := tasksCacheKind.Version
	tasksCacheKind.Version = v + 1
	got, hits, added := cacheScan(t, root, mine)
	tasksCacheKind.Version = v
	if got != off || hits != 0 || added != cacheStored {
		t.Fatalf("another version: %d hits, %d added; same answers %v", hits, added, got == off)
	}

	other := t.TempDir()
	theirs, err := diskcache.ForUser(func(k string) string {
		return map[string]string{"HOME": other, diskcache.EnvDir: dir}[k]
	}, nil)
	if err != nil || theirs == nil {
		t.Fatalf("another user's cache: %v", err)
	}
	if _, _, added := cacheScan(t, root, theirs); added != cacheStored {
		t.Fatalf("another key: %d added (nothing read from the table of this key)", added)
	}
	mine = diskcache.New(dir)
	if got, hits, added := cacheScan(t, root, mine); got != off || hits != 0 || added != cacheStored {
		t.Fatalf("a table of another key: %d hits, %d added; same answers %v", hits, added, got == off)
	}
	if _, hits, _ := cacheScan(t, root, mine); hits != cacheStored {
		t.Fatalf("the table written again: %d hits", hits)
	}
	p := mine.Path(source.TableName(&tasksCacheKind, root))
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
}

// A tasks.md changed within source.StatCacheRacy of the scan is not
// stored.
func TestTasksCacheRacy(t *testing.T) {
	root := t.TempDir()
	sourcetest.Write(t, root, map[string]string{"openspec/changes/partial/tasks.md": tasksPartial})
	r, _ := source.NewRepo(root, config.Default())
	r.Cache = diskcache.New(filepath.Join(t.TempDir(), "cache"))
	added := -1
	newest := sourcetest.Newest(t, root) // the scan's clock: just after the write, however long it took
	tasksCacheKind.Hits, tasksCacheKind.Now = func(_, a int) { added = a }, func() time.Time { return newest }
	t.Cleanup(func() { tasksCacheKind.Hits, tasksCacheKind.Now = nil, nil })
	OpenSpecSource.Scan(r)
	if added != 0 {
		t.Fatalf("a file written just now was stored (%d entries)", added)
	}
}

// A tasks.md given from the cache draws its boxes from the scan's budget:
// a budget too small for them refuses it with the finding a read gives.
func TestTasksCacheBudget(t *testing.T) {
	root := t.TempDir()
	big := "## 1. Work\n\n" + strings.Repeat("- [x] 1.1 Done\n", 400) + "- [ ] 1.2 Open\n"
	sourcetest.Write(t, root, map[string]string{"openspec/changes/big/tasks.md": big})
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	if _, _, added := cacheScan(t, root, c); added != 1 {
		t.Fatalf("cold scan added %d", added)
	}
	for _, cache := range []*diskcache.Cache{nil, c} {
		r, _ := source.NewRepo(root, config.Default())
		r.Cache = cache
		r.BeginBudget(100) // under the 401 boxes, and under the file's lines
		cs, _ := OpenSpecSource.Scan(r)
		r.EndBudget()
		if len(cs) != 1 || candFinding(&cs[0], "too-many") == nil {
			t.Fatalf("cache %v: the budget did not refuse the file: %+v", cache != nil, cs)
		}
	}
}

// The value encoding gives every fixture's parse back; a value cut short,
// with bytes after it, or past a bound is a miss.
func TestTasksEncoding(t *testing.T) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "tasks_*.md"))
	if len(seeds) == 0 {
		t.Fatal("no fixtures")
	}
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ts := ParseTasks(data)
		v := encodeTasks(nil, &ts)
		got, ok := decodeTasks(v)
		if !ok || !reflect.DeepEqual(got, ts) {
			t.Errorf("%s: round trip %v\n%+v\n%+v", p, ok, got, ts)
		}
		for _, cut := range []int{0, 1, len(v) / 2, len(v) - 1} {
			if _, ok := decodeTasks(v[:cut]); ok {
				t.Errorf("%s: a value cut at %d decodes", p, cut)
			}
		}
		if _, ok := decodeTasks(append(append([]byte(nil), v...), 0)); ok {
			t.Errorf("%s: trailing bytes decode", p)
		}
	}
	// a group index past the groups, a fenced task in a group, lines out of
	// order
	for name, ts := range map[string]Tasks{
		"group index": {Tasks: []Task{{Item: "1", GroupIx: 0, Line: 1}}},
		"fenced":      {Groups: []string{"G"}, Tasks: []Task{{Item: "1", Fenced: true, GroupIx: 0, Line: 1}}},
		"lines":       {Tasks: []Task{{Item: "1", GroupIx: -1, Line: 3}, {Item: "2", GroupIx: -1, Line: 3}}},
	} {
		if _, ok := decodeTasks(encodeTasks(nil, &ts)); ok {
			t.Errorf("%s: decodes", name)
		}
	}
	for _, m := range [][2]string{{"", ""}, {"2026-01-02", "spec-driven"}} {
		v := encodeMeta(m[0], m[1])
		if c, s, ok := decodeMeta(v); !ok || c != m[0] || s != m[1] {
			t.Errorf("meta %q: %v %q %q", m, ok, c, s)
		}
		for cut := 0; cut < len(v); cut++ {
			if _, _, ok := decodeMeta(v[:cut]); ok {
				t.Errorf("meta %q cut at %d decodes", m, cut)
			}
		}
		if _, _, ok := decodeMeta(append(v, 0)); ok {
			t.Errorf("meta %q: trailing bytes decode", m)
		}
	}
	if _, _, _, ok := decodeCounts(encodeCounts(1, 2, 3)); !ok {
		t.Error("counts do not decode")
	}
	for _, v := range [][]byte{encodeCounts(3, 2, 3), encodeCounts(1, 4, 3), encodeCounts(1, 2, maxTasks+1), encodeTasks(nil, &Tasks{}), append(encodeCounts(1, 2, 3), 0)} {
		if _, _, _, ok := decodeCounts(v); ok {
			t.Errorf("counts %x decode", v)
		}
	}
}
