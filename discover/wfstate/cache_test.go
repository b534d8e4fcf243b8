package wfstate

import (
	"crypto/sha256"
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
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// stateCacheFiles are the state files of the cache tests: every layout,
// hostile text (undecodable, binary, invalid UTF-8, an alias bomb, deep
// nesting, odd scalars and times that are not in UTC), .bak twins and epic
// states (skipped) and a story file.
func stateCacheFiles() map[string]string {
	deep := "a: " + strings.Repeat("[", 70) + strings.Repeat("]", 70) + "\n"
	return map[string]string{
		".orchestrate/workflows/ours.yaml":        wfOurs,
		".orchestrate/workflows/ours.yaml.bak":    wfOurs,
		".orchestrate/workflows/aios.yaml":        wfAIOS,
		".orchestrate/workflows/aiox.yaml":        wfAIOX,
		".orchestrate/workflows/unknown.yaml":     wfUnknownWorkflow,
		".orchestrate/workflows/offset.yaml":      "execution_id: off-1\nupdated_at: 2026-01-02T03:04:05+02:00\nstatus: paused\n",
		".orchestrate/workflows/scalars.yaml":     "execution_id: sc-1\nstatus: running\ncontext: {big: 18446744073709551615, neg: -9223372036854775808, f: !!float \"2.5\", inf: .inf, id: 1.10, b: !!binary aGk=, n: ~, t: 2026-01-02T03:04:05.5Z, d: 2026-01-02}\n",
		".orchestrate/workflows/bad.yaml":         "status: \x00\x01binary",
		".orchestrate/workflows/worse.yaml":       "a: [unclosed\n",
		".orchestrate/workflows/utf8.yaml":        "status: \xff\xfe\n",
		".orchestrate/workflows/bomb.yaml":        sourcetest.AliasBomb(),
		".orchestrate/workflows/deep.yaml":        deep,
		".orchestrate/workflows/list.yaml":        "- a\n- b\n",
		".orchestrate/workflows/empty.yaml":       "",
		".nexos/workflow-state/EPIC-1-state.yaml": wfCheckpointPaused,
		".nexos/workflow-state/EPIC-2-state.yaml": wfCheckpointAborted,
		".aiox/custom-state.yaml":                 "epic_state:\n  epic_id: X\n",
		"docs/stories/.session-state.yaml":        wfSession,
		"docs/stories/4.2.login.md":               "# Story 4.2: Login\n",
	}
}

// stateCacheScan scans root's workflow states with cache c (nil: off),
// returning the candidates and the scan's hits and new entries.
func stateCacheScan(t *testing.T, root string, c *diskcache.Cache) (cs []workflow.Candidate, hits, added int) {
	t.Helper()
	r, _ := source.NewRepo(root, config.Default())
	r.Cache = c
	r.Stories["4.2"] = &workflow.Story{ID: "4.2", Path: "docs/stories/4.2.login.md"}
	stateCacheKind.Hits = func(h, a int) { hits, added = h, a }
	stateCacheKind.Now = func() time.Time { return time.Now().Add(time.Hour) } // store what was just written
	t.Cleanup(func() { stateCacheKind.Hits, stateCacheKind.Now = nil, nil })
	cs, _ = WorkflowStateSource.Scan(r)
	return cs, hits, added
}

// A scan with a warm cache, a cold one and none give the same candidates;
// the warm scan reads every decodable state from the cache and adds
// nothing; a value that does not decode, a changed file and a file reached
// through a symlink are misses that give the same candidates as no cache.
func TestStateCacheWarmEqualsCold(t *testing.T) {
	setStateWorkers(t, 1, 4, 1)
	root := t.TempDir()
	files := stateCacheFiles()
	sourcetest.Write(t, root, files)
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))

	off, _, _ := stateCacheScan(t, root, nil)
	cold, hits, added := stateCacheScan(t, root, c)
	if !reflect.DeepEqual(cold, off) {
		t.Fatalf("cold scan differs from a scan without cache")
	}
	// stored: ours, aios, aiox, unknown, scalars, two checkpoints, the epic's
	// (decoded, then skipped), the session; not the offset time, nor any
	// file that does not decode
	if hits != 0 || added != 9 {
		t.Fatalf("cold scan: %d hits, %d added, want 0 and 9", hits, added)
	}
	for i := 0; i < 2; i++ {
		warm, hits, added := stateCacheScan(t, root, c)
		if !reflect.DeepEqual(warm, off) {
			t.Fatalf("warm scan %d differs from a scan without cache", i)
		}
		if hits != 9 || added != 0 {
			t.Fatalf("warm scan %d: %d hits, %d added, want 9 and 0", i, hits, added)
		}
	}

	// values that do not decode are misses (and are replaced)
	tbl, _ := c.Open(source.TableName(&stateCacheKind, root), sha256.Size)
	b := diskcache.NewBuilder(sha256.Size)
	dir, err := safefile.OpenDir(root, ".orchestrate/workflows", false)
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := source.NewRepo(root, config.Default())
	salt := stateCacheKind.Salt(definitionsSalt(repo.Definitions))
	for _, name := range []string{"ours.yaml", "aios.yaml"} {
		fs, err := dir.StatNoFollow(name)
		if err != nil {
			t.Fatal(err)
		}
		k := source.StatCacheKey(salt, ".orchestrate/workflows/"+name, fs, nil)
		b.Add(k[:], []byte{0xee, 1, 2})
	}
	dir.Close()
	if err := c.Write(source.TableName(&stateCacheKind, root), tbl, b); err != nil {
		t.Fatal(err)
	}
	got, hits, added := stateCacheScan(t, root, c)
	if !reflect.DeepEqual(got, off) || hits != 7 || added != 2 {
		t.Fatalf("corrupt values: %d hits, %d added (want 7, 2); same candidates %v", hits, added, reflect.DeepEqual(got, off))
	}

	// a changed file is a miss; a symlinked state is read the usual way
	p := filepath.Join(root, ".orchestrate/workflows/ours.yaml")
	if err := os.WriteFile(p, []byte(strings.Replace(wfOurs, "interrupted", "paused", 1)+"# changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("aios.yaml", filepath.Join(root, ".orchestrate/workflows/link.yaml")); err != nil {
		t.Fatal(err)
	}
	off, _, _ = stateCacheScan(t, root, nil)
	got, hits, added = stateCacheScan(t, root, c)
	if !reflect.DeepEqual(got, off) || hits != 8 || added != 1 {
		t.Fatalf("changed file: %d hits, %d added (want 8, 1); same candidates %v", hits, added, reflect.DeepEqual(got, off))
	}
	if got, _, _ := stateCacheScan(t, root, c); !reflect.DeepEqual(got, off) {
		t.Fatal("warm scan after the change differs")
	}
}

// A file changed within source.StatCacheRacy of the scan is not stored.
func TestStateCacheRacy(t *testing.T) {
	root := t.TempDir()
	sourcetest.Write(t, root, map[string]string{".orchestrate/workflows/ours.yaml": wfOurs})
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	r, _ := source.NewRepo(root, config.Default())
	r.Cache = c
	added := -1
	newest := sourcetest.Newest(t, root) // the scan's clock: just after the write, however long it took
	stateCacheKind.Hits, stateCacheKind.Now = func(_, a int) { added = a }, func() time.Time { return newest }
	t.Cleanup(func() { stateCacheKind.Hits, stateCacheKind.Now = nil, nil })
	WorkflowStateSource.Scan(r)
	if added != 0 {
		t.Fatalf("a file written just now was stored (%d entries)", added)
	}
}

// A symlinked state folder is never opened for the cache: its states are
// read the usual way (which refuses a folder leading out of the root).
func TestStateCacheSymlinkedFolder(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	sourcetest.Write(t, outside, map[string]string{"ours.yaml": wfOurs})
	if err := os.MkdirAll(filepath.Join(root, ".orchestrate"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".orchestrate/workflows")); err != nil {
		t.Fatal(err)
	}
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	off, _, _ := stateCacheScan(t, root, nil)
	got, hits, added := stateCacheScan(t, root, c)
	if !reflect.DeepEqual(got, off) || hits != 0 || added != 0 {
		t.Fatalf("symlinked folder: %d hits, %d added; same candidates %v", hits, added, reflect.DeepEqual(got, off))
	}
}

// A state table that is not this user's (written with another key: a cache
// folder restored from elsewhere), or damaged by one byte, is not read: no
// hit, the same candidates as without a cache.
func TestStateCacheForeignOrDamagedTable(t *testing.T) {
	setStateWorkers(t, 1, 4, 1)
	root := t.TempDir()
	sourcetest.Write(t, root, stateCacheFiles())
	dir := filepath.Join(t.TempDir(), "cache")
	off, _, _ := stateCacheScan(t, root, nil)

	other := t.TempDir()
	theirs, err := diskcache.ForUser(func(k string) string {
		return map[string]string{"HOME": other, diskcache.EnvDir: dir}[k]
	}, nil)
	if err != nil || theirs == nil {
		t.Fatalf("another user's cache: %v", err)
	}
	if _, _, added := stateCacheScan(t, root, theirs); added == 0 {
		t.Fatal("nothing stored (the test proves nothing)")
	}
	mine := diskcache.New(dir)
	got, hits, added := stateCacheScan(t, root, mine)
	if !reflect.DeepEqual(got, off) || hits != 0 || added == 0 {
		t.Fatalf("a table of another key: %d hits, %d added; same candidates %v", hits, added, reflect.DeepEqual(got, off))
	}
	if _, hits, _ := stateCacheScan(t, root, mine); hits == 0 {
		t.Fatal("the table written again is not read")
	}
	p := mine.Path(source.TableName(&stateCacheKind, root))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/3] ^= 0x10
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	got, hits, _ = stateCacheScan(t, root, mine)
	if !reflect.DeepEqual(got, off) || hits != 0 {
		t.Fatalf("a damaged table: %d hits; same candidates %v", hits, reflect.DeepEqual(got, off))
	}
}

// A state holding more entries than a state may is refused the same way
// read (cold), from the cache (warm, where the entries are counted once for
// the budget and the refusal) and without a cache.
func TestStateCacheTooManyEntries(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	b.WriteString("execution_id: big-1\nstatus: running\n")
	for _, k := range []string{"files", "files_changed", "artifacts", "changed_files", "filesChanged", "outputs"} {
		b.WriteString(k + ":\n")
		for range maxStateEntries / 5 {
			b.WriteString("- a\n")
		}
	}
	sourcetest.Write(t, root, map[string]string{".orchestrate/workflows/big.yaml": b.String()})
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	off, _, _ := stateCacheScan(t, root, nil)
	if len(off) != 1 || off[0].Status != "unreadable" || !sourcetest.HasFinding(off[0].Findings, "too-many", workflow.Blocking) {
		t.Fatalf("without a cache: %+v", off)
	}
	cold, _, added := stateCacheScan(t, root, c)
	warm, hits, _ := stateCacheScan(t, root, c)
	if added != 1 || hits != 1 {
		t.Fatalf("cold added %d, warm hits %d: want 1, 1", added, hits)
	}
	if !reflect.DeepEqual(cold, off) || !reflect.DeepEqual(warm, off) {
		t.Fatalf("cold or warm differ from no cache:\n%+v\n%+v\n%+v", cold, warm, off)
	}
}

// The .bak twin is found alike with the cache's open folder (which tells a
// missing one, by a stat or from the folder's listing) and without: a file, a symlink to one, a folder; not a
// dangling symlink, nor nothing.
func TestStateCacheBackupTwin(t *testing.T) {
	root := t.TempDir()
	state := "execution_id: %s\nstatus: running\n"
	files := map[string]string{}
	for _, n := range []string{"file", "link", "dangling", "folder", "none"} {
		files[".orchestrate/workflows/"+n+".yaml"] = fmt.Sprintf(state, n)
	}
	files[".orchestrate/workflows/file.yaml.bak"] = "x: 1\n"
	files[".orchestrate/workflows/folder.yaml.bak/inside"] = "x\n"
	sourcetest.Write(t, root, files)
	dir := filepath.Join(root, ".orchestrate/workflows")
	if err := os.Symlink("file.yaml.bak", filepath.Join(dir, "link.yaml.bak")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("gone", filepath.Join(dir, "dangling.yaml.bak")); err != nil {
		t.Fatal(err)
	}
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	off, _, _ := stateCacheScan(t, root, nil)
	baks := map[string]string{}
	for _, cd := range off {
		baks[cd.Key] = cd.BackupPath
	}
	want := map[string]string{"file": ".orchestrate/workflows/file.yaml.bak", "link": ".orchestrate/workflows/link.yaml.bak",
		"folder": ".orchestrate/workflows/folder.yaml.bak", "dangling": "", "none": ""}
	if !reflect.DeepEqual(baks, want) {
		t.Fatalf("backups = %v, want %v", baks, want)
	}
	for i := range 2 {
		if got, _, _ := stateCacheScan(t, root, c); !reflect.DeepEqual(got, off) {
			t.Fatalf("scan %d with the cache differs from one without", i)
		}
	}
	// and with the folder listed once (a folder of many states)
	old := listFolderMin
	listFolderMin = 1
	t.Cleanup(func() { listFolderMin = old })
	for i := range 2 {
		if got, _, _ := stateCacheScan(t, root, c); !reflect.DeepEqual(got, off) {
			t.Fatalf("scan %d with the folder listed differs from one without the cache", i)
		}
	}
}
