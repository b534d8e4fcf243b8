package story

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// storyCacheInputs are story texts by file name: the real-world fixtures
// and the odd cases of the parser (CRLF, kept sections, invalid UTF-8, no
// status, a README, an empty file, many findings).
func storyCacheInputs(t testing.TB) map[string]string {
	files, err := filepath.Glob("testdata/realworld/*/docs/stories/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no story files: %v", err)
	}
	inputs := map[string]string{
		"1.2.sections.md": "# Story 1.2: A title\n\n**Status:** InProgress\n**Executor:** @dev\n**Quality Gate:** @qa\n**Epic:** 1\n\n" + strings.Repeat("intro line\n", 20) + "## Acceptance Criteria\n\n1. works\n\n## File List\n\n- `src/a.go`\n- src/b.go\n- /abs/../../etc/passwd\n",
		"1.3.crlf.md":     "# Story 1.3: CRLF\r\n\r\n## Status\r\n\r\nDone\r\n\r\n## Tasks\r\n\r\n- [x] a\r\n",
		"1.4.kept.md": "# Story 1.4: Kept\n\n**Status:** Draft\n\n## Dependencies\n\n- Story 1.1\n\n## Scope\n\nall of it\n\n" +
			"## Change Log\n\n| Date | Change |\n|---|---|\n| 2026-01-01 | created |\n\n## Dev Notes\n\nnone\n",
		"1.5.kept-crlf.md": "# Story 1.5: Kept\r\n\r\n## Scope  \r\n\r\nall  \r\nof it\r\n\r\n## Change Log\r\n\r\n- created\r\n",
		"1.6.invalid.md":   "# Story 1.6: Bad \xff\n\n**Status:** Done\n\n## Change Log\n\n- x\n\n## Tasks\n\n- [ ] y\n",
		"1.7.no-status.md": "# Story 4.4: only a title\n",
		"1.8.unknown.md":   "# Story 1.8: Odd\n\n**Status:** Shipped-ish\n",
		"README.md":        "# Stories\n\nAn index.\n",
		"empty.md":         "",
		"notes.md":         "no title, no status\n",
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(f)] = string(data)
	}
	return inputs
}

// TestStoryCacheRoundTrip checks that decoding a scan's encoded story gives
// the story back, for every fixture, and that a value cut short, grown or
// changed in its kind never decodes to something else silently.
func TestStoryCacheRoundTrip(t *testing.T) {
	var state storyState
	a := new(storyArena)
	for name, text := range storyCacheInputs(t) {
		p := "docs/stories/" + name
		parsed := state.parse(p, []byte(text), map[string][]string{"Done": {"shipped"}}, true)
		st := parsed.story
		v := storyEncode(nil, st)
		if v == nil {
			t.Fatalf("%s: not encodable", name)
		}
		got, isStory, ok := storyDecode(p, v, nil)
		if !ok || !isStory || !reflect.DeepEqual(got, st) {
			t.Errorf("%s: decode(encode(x)) = %+v (story %v, ok %v), want %+v", name, got, isStory, ok, st)
		}
		for cut := 0; cut < len(v); cut++ {
			if _, _, ok := storyDecode(p, v[:cut], a); ok {
				t.Errorf("%s: a value cut to %d of %d bytes decodes", name, cut, len(v))
			}
		}
		if _, _, ok := storyDecode(p, append(v[:len(v):len(v)], 0), a); ok {
			t.Errorf("%s: a value with a byte too many decodes", name)
		}
	}
	if st, isStory, ok := storyDecode("docs/stories/README.md", storyEncode(nil, nil), nil); !ok || isStory || st != nil {
		t.Errorf("not-a-story value: %v %v %v", st, isStory, ok)
	}
	for _, v := range [][]byte{nil, {2}, {storyValNotStory, 0}} {
		if _, _, ok := storyDecode("x.md", v, nil); ok {
			t.Errorf("value %v decodes", v)
		}
	}
	// a story that cannot be encoded faithfully is not stored
	if v := storyEncode(nil, &workflow.Story{ID: "1", Sections: workflow.Sections{{Name: "not-canonical"}}}); v != nil {
		t.Error("a section of no canonical name was encoded")
	}
	if v := storyEncode(nil, &workflow.Story{ID: "1", StatusLine: -1}); v != nil {
		t.Error("a negative line was encoded")
	}
}

// FuzzStoryCacheDecode feeds the decoder arbitrary values: it must never
// panic, a value it accepts must encode back to a value that decodes to
// the same story, and the scan's decode into views (storyDecodeView) must
// give what the copying decode gives.
func FuzzStoryCacheDecode(f *testing.F) {
	var state storyState
	for name, text := range storyCacheInputs(f) {
		f.Add(storyEncode(nil, state.parse("docs/stories/"+name, []byte(text), nil, true).story))
	}
	f.Add([]byte{storyValNotStory})
	a := new(storyArena)
	f.Fuzz(func(t *testing.T, v []byte) {
		sameDecode(t, "docs/stories/1.1.x.md", v)
		st, isStory, ok := storyDecode("docs/stories/1.1.x.md", v, a)
		if !ok || !isStory {
			return
		}
		v2 := storyEncode(nil, st)
		if v2 == nil {
			t.Fatalf("a decoded story does not encode: %+v", st)
		}
		st2, isStory2, ok2 := storyDecode("docs/stories/1.1.x.md", v2, nil)
		if !ok2 || !isStory2 || !reflect.DeepEqual(st, st2) {
			t.Fatalf("round trip differs:\n got %+v\nwant %+v", st2, st)
		}
	})
}

// cacheScanResult is what a scan gives.
type cacheScanResult struct {
	cands   []workflow.Candidate
	stories map[string]*workflow.Story
	hits    int
	added   int
}

// cacheScan scans dir's stories with cache c (nil: none) and maxSize.
func cacheScan(t *testing.T, dir string, c *diskcache.Cache, maxSize int64) cacheScanResult {
	t.Helper()
	cfg := config.Default()
	if maxSize > 0 {
		cfg.MaxFileSize = maxSize
	}
	r, _ := source.NewRepo(dir, cfg)
	r.Cache = c
	var res cacheScanResult
	storyCacheKind.Hits = func(hits, added int) { res.hits, res.added = hits, added }
	defer func() { storyCacheKind.Hits = nil }()
	res.cands, _ = scanStories(r)
	res.stories = r.Stories
	return res
}

// storyCacheLater moves the cache's clock an hour ahead for the test, so
// that the files it has just written are old enough to be stored.
func storyCacheLater(t *testing.T) {
	storyCacheKind.Now = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { storyCacheKind.Now = nil })
}

// sameScan fails unless got is the scan want is (candidates and stories).
func sameScan(t *testing.T, what string, got, want cacheScanResult) {
	t.Helper()
	if !reflect.DeepEqual(got.cands, want.cands) {
		for i := range want.cands {
			if i < len(got.cands) && !reflect.DeepEqual(got.cands[i], want.cands[i]) {
				t.Errorf("%s: candidate %d differs:\n got %+v\nwant %+v", what, i, got.cands[i], want.cands[i])
			}
		}
		t.Fatalf("%s: %d candidates differ from the scan without a cache (%d)", what, len(got.cands), len(want.cands))
	}
	if !reflect.DeepEqual(got.stories, want.stories) {
		t.Fatalf("%s: the stories differ from the scan without a cache", what)
	}
}

// TestStoryCacheWarmEqualsCold checks that a scan with an empty cache, one
// with the cache it filled and one without a cache give the same
// candidates and stories; that the warm scan takes every stored story
// from the cache; and that a file edited between scans (same size, its
// modification time put back or moved) is read again.
func TestStoryCacheWarmEqualsCold(t *testing.T) {
	storyCacheLater(t)
	dir := t.TempDir()
	files := map[string]string{}
	for name, text := range storyCacheInputs(t) {
		files["docs/stories/"+name] = text
	}
	files["docs/stories/epic2/2.1.nested.md"] = "# Story 2.1: Nested\n\n**Status:** InReview\n"
	files["docs/stories/9.1.edit.md"] = "# Story 9.1: Edited\n\n**Status:** Draft\n"
	files["docs/stories/9.2.touch.md"] = "# Story 9.2: Touched\n\n**Status:** InProgress\n"
	storyWrite(t, dir, files)
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))

	off := cacheScan(t, dir, nil, 0)
	if len(off.cands) < 30 {
		t.Fatalf("only %d candidates", len(off.cands))
	}
	cold := cacheScan(t, dir, c, 0)
	sameScan(t, "cold", cold, off)
	if cold.hits != 0 || cold.added != len(files) {
		t.Errorf("cold scan: %d hits, %d added; want 0, %d", cold.hits, cold.added, len(files))
	}
	warm := cacheScan(t, dir, c, 0)
	sameScan(t, "warm", warm, off)
	if warm.hits != len(files) || warm.added != 0 {
		t.Errorf("warm scan: %d hits, %d added; want %d, 0", warm.hits, warm.added, len(files))
	}

	// same size, new content, the old modification time put back: the
	// change time still differs
	edit := filepath.Join(dir, "docs", "stories", "9.1.edit.md")
	fi, err := os.Stat(edit)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edit, []byte("# Story 9.1: Edited\n\n**Status:** Ready\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(edit, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	// same content, a new modification time
	touch := filepath.Join(dir, "docs", "stories", "9.2.touch.md")
	if err := os.Chtimes(touch, time.Now(), time.Now().Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	off2 := cacheScan(t, dir, nil, 0)
	if st := off2.stories["9.1"]; st == nil || st.Status != workflow.StatusReady {
		t.Fatalf("the edited story is %+v", st)
	}
	warm2 := cacheScan(t, dir, c, 0)
	sameScan(t, "after the edit", warm2, off2)
	if warm2.hits != len(files)-2 || warm2.added != 2 {
		t.Errorf("after the edit: %d hits, %d added; want %d, 2", warm2.hits, warm2.added, len(files)-2)
	}
}

// TestStoryCacheRacy checks that a file changed within two seconds of the
// scan (or in the future) is not stored, and is read again next time.
func TestStoryCacheRacy(t *testing.T) {
	dir := t.TempDir()
	storyWrite(t, dir, map[string]string{
		"docs/stories/1.1.a.md": "# Story 1.1: A\n\n**Status:** Done\n",
	})
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	for i := 0; i < 2; i++ {
		res := cacheScan(t, dir, c, 0) // the real clock: the file was just written
		if res.hits != 0 || res.added != 0 {
			t.Errorf("scan %d of a file just written: %d hits, %d added; want none", i, res.hits, res.added)
		}
	}
	if _, err := os.Stat(c.Path(source.TableName(&storyCacheKind, dir))); err == nil {
		t.Error("a table was written with nothing in it")
	}
	// an hour ahead, a file dated two hours ahead is still in the future
	storyCacheLater(t)
	future := time.Now().Add(2 * time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "docs", "stories", "1.1.a.md"), future, future); err != nil {
		t.Fatal(err)
	}
	if res := cacheScan(t, dir, c, 0); res.added != 0 {
		t.Errorf("a file dated in the future was stored (%d added)", res.added)
	}
	// the racy-clean window itself: source.TestStatCacheStorable
}

// TestStoryCacheHostile checks that a symlinked story (inside and outside
// the repository), a story in a symlinked folder, a FIFO, an oversize and a
// binary file give the same findings with a cold cache, a warm one and
// none, and that none of them is ever stored.
func TestStoryCacheHostile(t *testing.T) {
	storyCacheLater(t)
	dir := t.TempDir()
	outside := t.TempDir()
	storyWrite(t, dir, map[string]string{
		"docs/stories/1.1.plain.md":     "# Story 1.1: Plain\n\n**Status:** Done\n",
		"docs/other/1.2.target.md":      "# Story 1.2: Target\n\n**Status:** InProgress\n",
		"docs/real/1.4.in-linked.md":    "# Story 1.4: Linked folder\n\n**Status:** Done\n",
		"docs/stories/1.6.big.md":       "# Story 1.6: Big\n\n**Status:** Done\n\n" + strings.Repeat("x", 4096) + "\n",
		"docs/stories/1.7.binary.md":    "# Story 1.7: Bin\n\x00\n",
		"docs/stories/linkdir/.keep.md": "",
	})
	storyWrite(t, outside, map[string]string{"1.3.out.md": "# Story 1.3: Out\n\n**Status:** Done\n"})
	links := map[string]string{
		"docs/stories/1.2.link.md": "../other/1.2.target.md",
		"docs/stories/1.3.out.md":  filepath.Join(outside, "1.3.out.md"),
		"docs/stories/epic":        "../real",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "docs", "stories", "1.5.fifo.md"), 0o644); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	const max = 2048
	off := cacheScan(t, dir, nil, max)
	cold := cacheScan(t, dir, c, max)
	warm := cacheScan(t, dir, c, max)
	sameScan(t, "cold", cold, off)
	sameScan(t, "warm", warm, off)
	// stored: the plain story and the empty .keep.md (not a story)
	stored := 0
	for _, p := range []string{"docs/stories/1.1.plain.md", "docs/stories/linkdir/.keep.md"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			stored++
		}
	}
	if cold.added > stored || warm.hits != cold.added || warm.added != 0 {
		t.Errorf("cold %d added, warm %d hits %d added; want at most %d stored, all hits", cold.added, warm.hits, warm.added, stored)
	}
	var codes []string
	for _, cand := range off.cands {
		for _, f := range cand.Findings {
			codes = append(codes, cand.Key+":"+f.Code)
		}
	}
	joined := strings.Join(codes, " ")
	t.Logf("candidates %d, findings %s", len(off.cands), joined)
	// (the glob lists no FIFO: there is none to refuse)
	for _, want := range []string{"1.3", "1.6", "1.7"} {
		if !strings.Contains(joined, want+":") {
			t.Errorf("no finding for story %s: %s", want, joined)
		}
	}
	// the cache's own read refuses what is not a regular file reached
	// without a symlink, leaving it to the usual read (whatever the glob)
	r, _ := source.NewRepo(dir, config.Default())
	r.Cache = c
	r.Config.MaxFileSize = max
	w := openStoryCache(r).worker()
	defer w.done()
	var state storyState
	for _, p := range []string{"docs/stories/1.2.link.md", "docs/stories/1.3.out.md", "docs/stories/epic/1.4.in-linked.md",
		"docs/stories/1.5.fifo.md", "docs/stories/1.6.big.md", "docs/stories/1.7.binary.md", "docs/stories/9.9.missing.md", "docs/../x.md"} {
		if st, _, done := w.read(p, &state); done {
			t.Errorf("the cache read %s itself: %+v", p, st)
		}
	}
	if st, _, done := w.read("docs/stories/1.1.plain.md", &state); !done || st == nil || st.ID != "1.1" {
		t.Errorf("the cache did not read the plain story: %+v %v", st, done)
	}
	tbl, err := c.Open(source.TableName(&storyCacheKind, dir), sha256.Size)
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Len() != cold.added {
		t.Errorf("table holds %d entries, want %d", tbl.Len(), cold.added)
	}
}

// storyFileStat is a regular file's stat data with these times.
func storyFileStat(m, c time.Time) (fs safefile.FileStat) {
	fs.Mode = syscall.S_IFREG | 0o644
	fs.Mtime, fs.Ctime = m, c
	return fs
}

// BenchmarkStoryCacheDecode measures the decode of one typical story.
func BenchmarkStoryCacheDecode(b *testing.B) {
	var state storyState
	st := state.parse("docs/stories/1.1.inventory-config.md", []byte(benchStoryText), nil, true).story
	v := storyEncode(nil, st)
	b.ReportAllocs()
	b.SetBytes(int64(len(v)))
	var a storyArena
	for i := 0; i < b.N; i++ {
		if _, _, ok := storyDecode("docs/stories/1.1.inventory-config.md", v, &a); !ok {
			b.Fatal("no decode")
		}
	}
}

// TestStoryCacheFolders checks the worker's open folders as it moves
// between siblings, up, down, into a symlinked folder (refused: the usual
// read takes it) and back.
func TestStoryCacheFolders(t *testing.T) {
	storyCacheLater(t)
	dir := t.TempDir()
	storyWrite(t, dir, map[string]string{
		"docs/s/e1/1.1.a.md": "# Story 1.1: A\n\n**Status:** Done\n",
		"docs/s/e2/1.2.b.md": "# Story 1.2: B\n\n**Status:** Done\n",
		"docs/s/1.3.c.md":    "# Story 1.3: C\n\n**Status:** Done\n",
		"1.4.d.md":           "# Story 1.4: D\n\n**Status:** Done\n",
		"docs/t/e1/1.5.e.md": "# Story 1.5: E\n\n**Status:** Done\n",
	})
	if err := os.Symlink("e1", filepath.Join(dir, "docs", "s", "lnk")); err != nil {
		t.Fatal(err)
	}
	r, _ := source.NewRepo(dir, config.Default())
	r.Cache = diskcache.New(filepath.Join(t.TempDir(), "cache"))
	w := openStoryCache(r).worker()
	defer w.done()
	var state storyState
	steps := []struct {
		path string
		id   string // "": refused
	}{
		{"docs/s/e1/1.1.a.md", "1.1"},
		{"docs/s/e2/1.2.b.md", "1.2"},
		{"docs/s/1.3.c.md", "1.3"},
		{"docs/s/lnk/1.1.a.md", ""},
		{"docs/s/lnk/1.1.a.md", ""},
		{"docs/s/e1/1.1.a.md", "1.1"},
		{"1.4.d.md", "1.4"},
		{"docs/t/e1/1.5.e.md", "1.5"},
		{"docs/s/e1/1.1.a.md", "1.1"},
		{"docs/s/none/1.9.md", ""},
		{"docs//s/1.3.c.md", ""},
		{"docs/s/../s/1.3.c.md", ""},
		{"docs/s/e2/1.2.b.md", "1.2"},
	}
	for _, s := range steps {
		st, _, done := w.read(s.path, &state)
		switch {
		case s.id == "" && done:
			t.Errorf("%s: read by the cache, want refused", s.path)
		case s.id != "" && (!done || st == nil || st.ID != s.id):
			t.Errorf("%s: %+v (done %v), want story %s", s.path, st, done, s.id)
		}
		if len(w.dirs) != len(w.names)+1 && w.cur != nil {
			t.Errorf("%s: %d folders open for %v", s.path, len(w.dirs), w.names)
		}
	}
}

// BenchmarkStoryCacheOpen measures what a warm scan of 20,000 stories
// pays for the table: opening it (read, checksum, key order) and one
// look-up and decode per story. It reports the table's size.
func BenchmarkStoryCacheOpen(b *testing.B) {
	const n = 20000
	var state storyState
	c := diskcache.New(filepath.Join(b.TempDir(), "cache"))
	bld := diskcache.NewBuilder(sha256.Size)
	salt := storyCacheKind.Salt()
	keys := make([][]byte, n)
	var scratch []byte
	for i := 0; i < n; i++ {
		p := "docs/stories/" + strings.Repeat("x", i%7) + ".md"
		st := state.parse(p, []byte(benchStoryText), nil, true).story
		k := source.StatCacheKey(salt, p, safefile.FileStat{Ino: uint64(i)}, &scratch)
		keys[i] = k[:]
		bld.Add(keys[i], storyEncode(nil, st))
	}
	if err := c.Write(storyCacheKind.Name, nil, bld); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(c.Path(storyCacheKind.Name))
	if err != nil {
		b.Fatal(err)
	}
	for _, decode := range []bool{false, true} {
		name := "open"
		if decode {
			name = "open+decode"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				t, err := c.Open(storyCacheKind.Name, sha256.Size)
				if err != nil || t.Len() != n {
					b.Fatal(t.Len(), err)
				}
				if !decode {
					continue
				}
				var a storyArena
				for _, k := range keys {
					v, ok := t.Get(k)
					if !ok {
						b.Fatal("missing")
					}
					if _, _, ok := storyDecode("docs/stories/1.1.x.md", v, &a); !ok {
						b.Fatal("no decode")
					}
				}
			}
			b.ReportMetric(float64(fi.Size())/n, "table-bytes/story")
		})
	}
}

// TestStoryCacheHeap checks that stories from a warm cache keep no more
// live heap than stories read and parsed (the arena's blocks are shared,
// the table is not kept).
func TestStoryCacheHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1,000 files")
	}
	storyCacheLater(t)
	dir := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 1000; i++ {
		text := strings.Replace(benchStoryText, "1.1: Inventory", fmt.Sprintf("%d.%d: Inventory", i/100+1, i%100+1), 1)
		files[fmt.Sprintf("docs/stories/epic-%d/%d.%d.x.md", i/100, i/100+1, i%100+1)] = text
	}
	storyWrite(t, dir, files)
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	heap := func(cache *diskcache.Cache) (int64, cacheScanResult) {
		before := storyLiveHeap()
		res := cacheScan(t, dir, cache, 0)
		after := storyLiveHeap()
		runtime.KeepAlive(res)
		return int64(after-before) / int64(len(files)), res
	}
	cold, _ := heap(nil)
	_, filled := heap(c)
	warm, res := heap(c)
	if filled.added != len(files) || res.hits != len(files) {
		t.Fatalf("%d stored, %d hits; want %d", filled.added, res.hits, len(files))
	}
	t.Logf("live heap per story: %d bytes read and parsed, %d from the cache", cold, warm)
	if warm > cold+cold/10+64 {
		t.Errorf("a story from the cache keeps %d bytes, one read and parsed %d", warm, cold)
	}
}

// storyLiveHeap is the live heap after a full collection.
func storyLiveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkStoryCacheKey measures one story's table key.
func BenchmarkStoryCacheKey(b *testing.B) {
	salt := storyCacheKind.Salt()
	var scratch []byte
	fs := storyFileStat(time.Unix(1700000000, 5), time.Unix(1700000001, 7))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		fs.Ino = uint64(i)
		_ = source.StatCacheKey(salt, "docs/stories/epic-12/12.345.inventory-config-export.md", fs, &scratch)
	}
}

// TestStoryCacheCopiedOrFlippedTable: another table's file copied over the
// story table (entries made for another name) and a story table with one
// byte flipped are not read: no hit, the same scan as without a cache.
func TestStoryCacheCopiedOrFlippedTable(t *testing.T) {
	storyCacheLater(t)
	dir := t.TempDir()
	storyWrite(t, dir, map[string]string{
		"docs/stories/1.1.a.md": "# Story 1.1: A\n\n**Status:** InProgress\n",
		"docs/stories/1.2.b.md": "# Story 1.2: B\n\n**Status:** Done\n",
	})
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	off := cacheScan(t, dir, nil, 0)
	if cold := cacheScan(t, dir, c, 0); cold.added != 2 {
		t.Fatalf("cold: %d added", cold.added)
	}
	// the same entries, written under another table's name
	tbl, err := c.Open(source.TableName(&storyCacheKind, dir), sha256.Size)
	if err != nil || tbl.Len() != 2 {
		t.Fatalf("%v, %d entries", err, tbl.Len())
	}
	b := diskcache.NewBuilder(sha256.Size)
	b.Add(make([]byte, sha256.Size), nil)
	if err := c.Write("other", tbl, b); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(c.Path("other"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.Path(source.TableName(&storyCacheKind, dir)), data, 0o600); err != nil {
		t.Fatal(err)
	}
	got := cacheScan(t, dir, c, 0)
	sameScan(t, "a copied table", got, off)
	if got.hits != 0 {
		t.Fatalf("a table copied from another name: %d hits", got.hits)
	}
	if warm := cacheScan(t, dir, c, 0); warm.hits != 2 {
		t.Fatalf("rewritten: %d hits", warm.hits)
	}
	data, err = os.ReadFile(c.Path(source.TableName(&storyCacheKind, dir)))
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 1
	if err := os.WriteFile(c.Path(source.TableName(&storyCacheKind, dir)), data, 0o600); err != nil {
		t.Fatal(err)
	}
	got = cacheScan(t, dir, c, 0)
	sameScan(t, "a flipped table", got, off)
	if got.hits != 0 {
		t.Fatalf("a flipped table: %d hits", got.hits)
	}
}

// TestStoryCacheTrimmed checks the trimmed sections of a story not in flight
// through the cache: a scan's Draft story keeps only its Change Log and
// Dependencies and says so, its value says so too, and a value whose kind
// or sections disagree with the story's status is a miss.
func TestStoryCacheTrimmed(t *testing.T) {
	inputs := storyCacheInputs(t)
	var state storyState
	p := "docs/stories/1.4.kept.md"
	st := state.parse(p, []byte(inputs["1.4.kept.md"]), nil, true).story
	if !st.SectionsTrimmed || len(st.Sections) != 2 || st.Sections[0].Name != workflow.SectionChangeLog || st.Sections[1].Name != workflow.SectionDependencies {
		t.Fatalf("a Draft story's scan: trimmed %v, sections %+v; want only the change log and the dependencies", st.SectionsTrimmed, st.Sections)
	}
	full, _ := ParseStory(p, []byte(inputs["1.4.kept.md"]), nil)
	if full.SectionsTrimmed || len(full.Sections) != 4 {
		t.Fatalf("ParseStory: trimmed %v, %d sections; want every section", full.SectionsTrimmed, len(full.Sections))
	}
	v := storyEncode(nil, st)
	if v == nil || v[0] != storyValStoryTrimmed {
		t.Fatalf("value %v: want kind %d", v, storyValStoryTrimmed)
	}
	if got, _, ok := storyDecode(p, v, nil); !ok || !reflect.DeepEqual(got, st) {
		t.Fatalf("decode = %+v, %v; want %+v", got, ok, st)
	}
	// an in-flight story is never trimmed: a value saying so is a miss
	inflight := state.parse("docs/stories/1.2.sections.md", []byte(inputs["1.2.sections.md"]), nil, true).story
	if inflight.SectionsTrimmed || len(inflight.Sections) != 2 {
		t.Fatalf("an InProgress story's scan: trimmed %v, sections %+v; want all", inflight.SectionsTrimmed, inflight.Sections)
	}
	v = storyEncode(nil, inflight)
	v[0] = storyValStoryTrimmed
	if _, _, ok := storyDecode("docs/stories/1.2.sections.md", v, nil); ok {
		t.Error("an InProgress story's value marked trimmed decodes")
	}
	// a story not in flight with a section kept only for its hash was not
	// written by a scan: a miss
	done := &workflow.Story{ID: "1.9", Status: workflow.StatusDone, Sections: workflow.Sections{{Name: workflow.SectionAcceptance, Line: 3}}}
	if _, _, ok := storyDecode("docs/stories/1.9.x.md", storyEncode(nil, done), nil); ok {
		t.Error("a Done story's value with its acceptance criteria decodes")
	}
}
