package kiro

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// folderScan is cacheScan with the folder cache storing what was just
// made too, returning the folder cache's hits and new entries.
func folderScan(t *testing.T, root string, c *diskcache.Cache) (out string, hits, added int) {
	t.Helper()
	hits, added = -1, -1
	folderCacheKind.Hits = func(h, a int) { hits, added = h, a }
	folderCacheKind.Now = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { folderCacheKind.Hits, folderCacheKind.Now = nil, nil })
	out, _, _ = cacheScan(t, root, c)
	return out, hits, added
}

// nextTick waits until the file system's clock has moved past the change
// time of path: a change made after it gives path other times.
func nextTick(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	was := fi.Sys().(*syscall.Stat_t).Ctim
	probe := filepath.Join(t.TempDir(), "probe")
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		if err := os.WriteFile(probe, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		pi, err := os.Lstat(probe)
		if err != nil {
			t.Fatal(err)
		}
		if pi.Sys().(*syscall.Stat_t).Ctim.Nano() > was.Nano() {
			return
		}
	}
	t.Fatal("the file system's clock did not move")
}

// The folder cache: a warm scan takes every spec folder's listing from it
// and gives what a scan without cache gives; a file removed, one added
// back with the folder's modification time put back, a file swapped for a
// folder are misses giving the cache-off answer, which each change
// alters (a value that does not decode: pathglob's TestListingCodec).
func TestFolderCacheStale(t *testing.T) {
	root := cacheRepo(t)
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	off, _, _ := cacheScan(t, root, nil)
	if cold, hits, added := folderScan(t, root, c); cold != off || hits != 0 || added != 4 {
		t.Fatalf("cold: %d hits, %d added (want 0, 4); same answers %v", hits, added, cold == off)
	}
	if warm, hits, added := folderScan(t, root, c); warm != off || hits != 4 || added != 0 {
		t.Fatalf("warm: %d hits, %d added (want 4, 0); same answers %v", hits, added, warm == off)
	}
	dir := filepath.Join(root, ".kiro/specs/billing-dashboard")
	design := filepath.Join(dir, "design.md")
	data, err := os.ReadFile(design)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name   string
		change func() error
	}{
		{"file removed", func() error { return os.Remove(design) }},
		{"file added, mtime put back", func() error {
			fi, err := os.Stat(dir)
			if err != nil {
				return err
			}
			if err := os.WriteFile(design, data, 0o644); err != nil {
				return err
			}
			return os.Chtimes(dir, fi.ModTime(), fi.ModTime())
		}},
		{"file swapped for a folder", func() error {
			if err := os.Remove(design); err != nil {
				return err
			}
			return os.Mkdir(design, 0o755)
		}},
	} {
		nextTick(t, dir)
		if err := step.change(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		now, _, _ := cacheScan(t, root, nil)
		if now == off {
			t.Fatalf("%s: the answer without cache did not change", step.name)
		}
		if got, hits, added := folderScan(t, root, c); got != now || added != 1 || hits != 3 {
			t.Fatalf("%s: %d hits, %d added (want 3, 1); same answers %v", step.name, hits, added, got == now)
		}
		off = now
	}
}
