package source_test

import (
	"os"
	"path/filepath"
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
