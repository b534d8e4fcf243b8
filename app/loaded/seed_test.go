package loaded

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// cacheTables lists the tables in cache c's folder by the start of their
// names (seen, git-commits, verdict, stories, …).
func cacheTables(t *testing.T, c *diskcache.Cache) []string {
	t.Helper()
	ents, err := os.ReadDir(c.Dir())
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		if name == "CACHEDIR.TAG" || strings.HasPrefix(name, ".") {
			continue
		}
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i]
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestTheFirstRunKeepsOnlyAMark: the repository's first run with a cache
// folder (a fresh clone in CI: a new folder, whose tables no later run
// would read) reads and keeps nothing there but the mark, and answers as
// the cache-off run; the next run fills git's tables (the memo only its
// marker: app/verdict's package comment), the third keeps the memos, the
// fourth uses them. Each run's reports are the cache-off run's.
func TestTheFirstRunKeepsOnlyAMark(t *testing.T) {
	useMemoClock(t)
	r := newMemoRepo(t)
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	now := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	off, _ := r.status(nil, config.Default(), now)

	got, hits := r.status(c, config.Default(), now)
	if got != off || hits != 0 {
		t.Fatalf("first run: %d memos used, reports equal to off: %v", hits, got == off)
	}
	if tabs := cacheTables(t, c); !slices.Equal(tabs, []string{"seen"}) {
		t.Fatalf("after the first run the cache holds %v, want the mark alone", tabs)
	}

	got, hits = r.status(c, config.Default(), now)
	if got != off || hits != 0 {
		t.Fatalf("second run: %d memos used, reports equal to off: %v", hits, got == off)
	}
	tabs := cacheTables(t, c)
	// (the stories and state files were just written: too recent to be
	// kept by their stat data, so their tables may not be written yet)
	for _, want := range []string{"seen", "git-commits", "verdict"} {
		if !slices.Contains(tabs, want) {
			t.Errorf("after the second run the cache holds %v: no %s table", tabs, want)
		}
	}

	got, hits = r.status(c, config.Default(), now)
	if got != off || hits != 0 {
		t.Fatalf("third run: %d memos used (want none: none was kept), reports equal to off: %v", hits, got == off)
	}
	got, hits = r.status(c, config.Default(), now)
	if got != off || hits != 5 {
		t.Fatalf("fourth run: %d memos used (want 5), reports equal to off: %v", hits, got == off)
	}
}

// TestSeedingOnlyWithACache: with the cache off nothing is marked, and a
// repository seen by one cache folder is new to another.
func TestSeedingOnlyWithACache(t *testing.T) {
	r := newMemoRepo(t)
	loc, err := Resolve(r.root)
	if err != nil {
		t.Fatal(err)
	}
	if firstSight(nil, loc.Root) {
		t.Fatal("no cache: a first sight")
	}
	a := diskcache.New(filepath.Join(t.TempDir(), "a"))
	b := diskcache.New(filepath.Join(t.TempDir(), "b"))
	loc.Cache = a
	s := Load(loc, config.Default(), time.Now())
	if !s.Seeding() {
		t.Fatal("the first run with cache a is not seeding")
	}
	s.SaveCaches()
	s.SaveCaches() // a second call writes nothing more
	if firstSight(a, loc.Root) {
		t.Fatal("cache a did not keep the mark")
	}
	if !firstSight(b, loc.Root) {
		t.Fatal("cache b has seen a repository only cache a saw")
	}
	loc.Cache = a
	if s := Load(loc, config.Default(), time.Now()); s.Seeding() {
		t.Fatal("the second run with cache a is seeding")
	}
}
