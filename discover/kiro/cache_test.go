package kiro

import (
	"crypto/sha256"
	"encoding/json"
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

// cacheScan is scanCounting with the draft table keeping nothing
// (sourcetest.KeepNothing).
func cacheScan(t *testing.T, root string, c *diskcache.Cache) (out string, hits, added int) {
	t.Helper()
	sourcetest.KeepNothing(t, &draftCacheKind)
	return scanCounting(t, root, c)
}

// scanCounting scans root's Kiro specs with cache c (nil: off), returning
// every field of the candidates and the findings as JSON, and the scan's
// hits and new entries.
func scanCounting(t *testing.T, root string, c *diskcache.Cache) (out string, hits, added int) {
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

// cacheStored are the entries of cacheRepo's specs: four tasks.md and the
// other documents (ide1x's .config.kiro and tasks.meta.json, ccsdd's
// spec.json).
const cacheStored = 7

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
	if hits != 0 || added != cacheStored {
		t.Errorf("cold: %d hits, %d added (want 0, %d)", hits, added, cacheStored)
	}
	warm, hits, added := cacheScan(t, root, cache)
	if hits != cacheStored || added != 0 {
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
	if got != off || hits != cacheStored-1 || added != 1 {
		t.Errorf("a changed answer: %d hits, %d added (want %d, 1); same answers %v", hits, added, cacheStored-1, got == off)
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
	if got != off || hits != cacheStored-1 || added != 1 {
		t.Errorf("a changed file: %d hits, %d added (want %d, 1); same answers %v", hits, added, cacheStored-1, got == off)
	}
	if got, hits, _ := cacheScan(t, root, cache); got != off || hits != cacheStored {
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
		t.Fatalf("another key: %d added", added)
	}
	mine = diskcache.New(dir)
	if got, hits, added := cacheScan(t, root, mine); got != off || hits != 0 || added != cacheStored {
		t.Fatalf("a table of another key: %d hits, %d added; same answers %v", hits, added, got == off)
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

	// racy: files written just now, by the scan's clock (pinned to the
	// newest file's time: a loaded machine may take longer than the racy
	// window between the writes and the scan)
	r, _ := source.NewRepo(root, config.Default())
	r.Cache = diskcache.New(filepath.Join(t.TempDir(), "fresh"))
	added = -1
	newest := sourcetest.Newest(t, root)
	tasksCacheKind.Hits, tasksCacheKind.Now = func(_, a int) { added = a }, func() time.Time { return newest }
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

// docRoundTrip encodes doc with k and decodes it back; ok is false when
// the value does not decode whole.
func docRoundTrip[T any](k docCodec[T], doc T) (T, []byte, bool) {
	v := k.encode(nil, &doc)
	d := &docReader{b: v}
	back := k.decode(d)
	return back, v, !d.bad && len(d.b) == 0
}

// TestDocEncoding checks the other documents' values: every fixture's and
// odd ones round trip; a value cut short, with bytes after it, or with a
// time outside the parser's years is a miss.
func TestDocEncoding(t *testing.T) {
	check := func(name string, ok bool, equal bool, v []byte, decodes func([]byte) bool) {
		t.Helper()
		if !ok || !equal {
			t.Errorf("%s: round trip %v, equal %v", name, ok, equal)
		}
		for cut := 0; cut < len(v); cut++ {
			if decodes(v[:cut]) {
				t.Errorf("%s: a value cut at %d decodes", name, cut)
			}
		}
		if decodes(append(append([]byte(nil), v...), 0)) {
			t.Errorf("%s: trailing bytes decode", name)
		}
	}
	whole := func(decode func(*docReader)) func([]byte) bool {
		return func(b []byte) bool {
			d := &docReader{b: b}
			decode(d)
			return !d.bad && len(d.b) == 0
		}
	}
	configs := []string{string(readDoc0(t, "ide1x/.config.kiro")), "{}", "not json", `{"specId":"x","workflowType":"requirements-first","specType":"bugfix","generationMode":"g"}`}
	for _, c := range configs {
		doc := parseConfig([]byte(c))
		back, v, ok := docRoundTrip(configCodec, doc)
		check("config "+c, ok, reflect.DeepEqual(back, doc), v, whole(func(d *docReader) { configCodec.decode(d) }))
	}
	metas := []string{string(readDoc0(t, "ide1x/tasks.meta.json")), "{}", "[", `{"executionHistory":3}`}
	for _, m := range metas {
		doc := parseMeta([]byte(m))
		back, v, ok := docRoundTrip(metaCodec, doc)
		check("meta "+m, ok, reflect.DeepEqual(back, doc), v, whole(func(d *docReader) { metaCodec.decode(d) }))
	}
	specs := []string{string(readDoc0(t, "ccsdd/spec.json")), "{}", `{"phase":"tasks-generated","approvals":{"tasks":{"approved":true}}}`}
	for _, s := range specs {
		doc := parseSpecJSON([]byte(s))
		back, v, ok := docRoundTrip(specJSONCodec, doc)
		check("spec.json "+s, ok, reflect.DeepEqual(back, doc), v, whole(func(d *docReader) { specJSONCodec.decode(d) }))
	}
	// a time before 2000 (the parser never keeps one)
	early := metaCodec.encode(nil, &meta{LastTask: "1 a", LastID: "1", LastAt: time.UnixMilli(1000).UTC()})
	if whole(func(d *docReader) { metaCodec.decode(d) })(early) {
		t.Error("a time before 2000 decodes")
	}
}

// readDoc0 reads a fixture file.
func readDoc0(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A stored value of another kind of document, or one that does not
// decode, is a miss (replaced), and the answers are those of no cache.
func TestDocCacheBadValues(t *testing.T) {
	root := cacheRepo(t)
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	off, _, _ := cacheScan(t, root, nil)
	if _, _, added := cacheScan(t, root, c); added != cacheStored {
		t.Fatalf("cold scan added %d", added)
	}
	tbl, _ := c.Open(source.TableName(&tasksCacheKind, root), sha256.Size)
	b := diskcache.NewBuilder(sha256.Size)
	salt := tasksCacheKind.Salt()
	for p, v := range map[string][]byte{
		".kiro/specs/speech-to-text/.config.kiro":    specJSONCodec.encode([]byte{docSpecJSON}, &specJSON{Present: true}),
		".kiro/specs/speech-to-text/tasks.meta.json": {docMeta, 0xff},
		".kiro/specs/syndication-service/spec.json":  {docSpecJSON, 0, 2, 0},
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
	if got != off || hits != cacheStored-3 || added != 3 {
		t.Fatalf("bad values: %d hits, %d added (want %d, 3); same answers %v", hits, added, cacheStored-3, got == off)
	}
}
