package source_test

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// TestStatTableRoundTrip: a value added by one scan is found by the next
// while the file's stat data is unchanged, and missed once it changes; a
// file changed within the racy window is not storable; the Hits hook sees
// each scan's hits and new entries; another salt finds nothing; a repository
// without a cache has no table.
func TestStatTableRoundTrip(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	if err := os.WriteFile(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, fs := source.NewRepo(dir, config.Default())
	if len(fs) != 0 {
		t.Fatal(fs)
	}
	if source.OpenStatTable(r, &source.StatTableKind{Name: "t"}) != nil {
		t.Fatal("a table without a cache")
	}
	r.Cache = diskcache.New(filepath.Join(t.TempDir(), "cache"))
	var hits, added int
	kind := &source.StatTableKind{Name: "t", Label: "test", Version: 1,
		Now:  func() time.Time { return time.Now().Add(time.Hour) },
		Hits: func(h, a int) { hits, added = h, a }}
	d, err := safefile.OpenDir(dir, ".", false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	scan := func(k *source.StatTableKind, extra ...string) (got string) {
		t.Helper()
		tb := source.OpenStatTable(r, k, extra...)
		if v, _, ok := tb.Lookup(d, "a.md", "a.md", nil); ok {
			tb.AddHits(1)
			got = string(v)
		} else if data, fs, ok := tb.ReadRegular(d, "a.md"); ok && tb.Storable(fs) {
			tb.Add("a.md", fs, append([]byte("v:"), data...), nil)
		}
		tb.Save()
		return got
	}
	if got := scan(kind); got != "" || hits != 0 || added != 1 {
		t.Fatalf("cold scan: %q, %d hits, %d added", got, hits, added)
	}
	if got := scan(kind); got != "v:one" || hits != 1 || added != 0 {
		t.Fatalf("warm scan: %q, %d hits, %d added", got, hits, added)
	}
	if got := scan(kind, "other"); got != "" {
		t.Fatalf("another salt found %q", got)
	}
	if err := os.WriteFile(p, []byte("two!"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := scan(kind); got != "" || added != 1 {
		t.Fatalf("after an edit: %q, %d added", got, added)
	}
	kind.Now = nil // the file was just written: too close to the clock to store
	if err := os.WriteFile(p, []byte("three"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := scan(kind); got != "" || added != 0 {
		t.Fatalf("a racy file: %q, %d added", got, added)
	}
}

// TestStatTablePerWorkTree: each work tree has its own table, named for
// the folder (TableName): a run in another repository neither reads nor
// rewrites this one's table, whose file stays as this repository's runs
// wrote it; a root that is not a folder has no table.
func TestStatTablePerWorkTree(t *testing.T) {
	cache := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	kind := &source.StatTableKind{Name: "t", Label: "test", Version: 1,
		Now: func() time.Time { return time.Now().Add(time.Hour) }}
	fill := func(dir string, n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			if err := os.WriteFile(filepath.Join(dir, string(rune('a'+i))+".md"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	scan := func(dir string, n int) (found, added int, name string) {
		t.Helper()
		r, _ := source.NewRepo(dir, config.Default())
		r.Cache = cache
		d, err := safefile.OpenDir(dir, ".", false)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		kind.Hits = func(h, a int) { found, added = h, a }
		tb := source.OpenStatTable(r, kind)
		for i := 0; i < n; i++ {
			name := string(rune('a'+i)) + ".md"
			if _, _, ok := tb.Lookup(d, name, name, nil); ok {
				tb.AddHits(1)
			} else if _, fs, ok := tb.ReadRegular(d, name); ok && tb.Storable(fs) {
				tb.Add(name, fs, []byte("v"), nil)
			}
		}
		tb.Save()
		return found, added, source.TableName(kind, dir)
	}
	a, b := t.TempDir(), t.TempDir()
	fill(a, 3)
	fill(b, 2)
	// the table of the older layout, one for every repository, leaves
	// the folder with the first save
	legacy := diskcache.NewBuilder(sha256.Size)
	legacy.Add(make([]byte, sha256.Size), []byte("v"))
	if err := cache.Write("t", nil, legacy); err != nil {
		t.Fatal(err)
	}
	if _, added, _ := scan(a, 3); added != 3 {
		t.Fatalf("a's cold scan added %d", added)
	}
	_, _, nameA := scan(a, 3)
	before, err := os.ReadFile(cache.Path(nameA))
	if err != nil {
		t.Fatal(err)
	}
	found, added, nameB := scan(b, 2)
	if found != 0 || added != 2 || nameA == nameB || !strings.HasPrefix(nameA, "t-") || !strings.HasPrefix(nameB, "t-") {
		t.Fatalf("b: %d found, %d added, tables %q and %q", found, added, nameA, nameB)
	}
	if after, err := os.ReadFile(cache.Path(nameA)); err != nil || !bytes.Equal(before, after) {
		t.Fatalf("a's table changed by b's run: %v", err)
	}
	if found, added, _ := scan(a, 3); found != 3 || added != 0 {
		t.Fatalf("a warm: %d found, %d added", found, added)
	}
	if _, err := os.Stat(cache.Path("t")); err == nil {
		t.Fatal("the table shared by every repository is still there")
	}
	if n := source.TableName(kind, filepath.Join(a, "a.md")); n != "" {
		t.Fatalf("a file's table name %q", n)
	}
}
