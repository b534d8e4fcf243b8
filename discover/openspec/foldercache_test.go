package openspec

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
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
// time of path: a change made after it gives path other times (the
// folder cache's keys stay apart even within the clock's coarse tick).
func nextTick(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	was := fi.Sys().(*syscall.Stat_t).Ctim
	probe := filepath.Join(t.TempDir(), "probe")
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if err := os.WriteFile(probe, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		pi, err := os.Lstat(probe)
		if err != nil {
			t.Fatal(err)
		}
		if now := pi.Sys().(*syscall.Stat_t).Ctim; now.Nano() > was.Nano() {
			return
		}
	}
	t.Fatal("the file system's clock did not move")
}

// The folder cache: a warm scan takes every change folder's listing and
// every specs/X/ answer from it and gives what a scan without cache gives;
// each stale case (a file added to or removed from a change folder, with
// the folder's modification time put back; spec.md added, removed, made a
// FIFO; a specs/ folder added; a specs/X/ folder swapped for a symlink to
// one holding a spec.md; a value that does not decode) is a miss that gives
// the cache-off answer, which each change alters.
func TestFolderCacheStale(t *testing.T) {
	root := t.TempDir()
	files := cacheFiles(t)
	files["openspec/changes/partial/specs/db/notes.md"] = "x\n"
	files["openspec/changes/partial/specs/.git/spec.md"] = "x\n" // never entered by the glob
	files["elsewhere/spec.md"] = "# Elsewhere\n"
	sourcetest.Write(t, root, files)
	if err := os.Symlink("../auth/spec.md", filepath.Join(root, "openspec/changes/partial/specs/db/link.md")); err != nil {
		t.Fatal(err)
	}
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	off, _, _ := cacheScan(t, root, nil)
	if cold, hits, added := folderScan(t, root, c); cold != off || hits != 0 || added == 0 {
		t.Fatalf("cold: %d hits, %d added; same answers %v", hits, added, cold == off)
	}
	warm, hits, added := folderScan(t, root, c)
	// the 11 change folders (archived ones too), partial's specs/ and its
	// two folders
	if warm != off || hits != 14 || added != 0 {
		t.Fatalf("warm: %d hits, %d added (want 14, 0); same answers %v", hits, added, warm == off)
	}
	p := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	specs := "openspec/changes/partial/specs"
	for _, step := range []struct {
		name   string
		watch  string // the folder whose clock must have moved first
		change func() error
	}{
		{"spec.md added", specs + "/db", func() error { return os.WriteFile(p(specs+"/db/spec.md"), []byte("# DB\n"), 0o644) }},
		{"spec.md removed", specs + "/auth", func() error { return os.Remove(p(specs + "/auth/spec.md")) }},
		{"specs folder added", specs, func() error {
			if err := os.Mkdir(p(specs+"/new"), 0o755); err != nil {
				return err
			}
			return os.WriteFile(p(specs+"/new/spec.md"), []byte("# New\n"), 0o644)
		}},
		{"spec.md made a FIFO", specs + "/new", func() error {
			if err := os.Remove(p(specs + "/new/spec.md")); err != nil {
				return err
			}
			return syscall.Mkfifo(p(specs+"/new/spec.md"), 0o644)
		}},
		{"specs folder swapped for a link", specs, func() error {
			if err := os.RemoveAll(p(specs + "/db")); err != nil {
				return err
			}
			return os.Symlink("../../../../../elsewhere", p(specs+"/db"))
		}},
		{"file added, mtime put back", "openspec/changes/fresh", func() error {
			fi, err := os.Stat(p("openspec/changes/fresh"))
			if err != nil {
				return err
			}
			if err := os.WriteFile(p("openspec/changes/fresh/proposal.md"), []byte("# Fresh\n"), 0o644); err != nil {
				return err
			}
			return os.Chtimes(p("openspec/changes/fresh"), fi.ModTime(), fi.ModTime())
		}},
		{"file removed", "openspec/changes/partial", func() error { return os.Remove(p("openspec/changes/partial/proposal.md")) }},
	} {
		nextTick(t, p(step.watch))
		if err := step.change(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		now, _, _ := cacheScan(t, root, nil)
		if now == off {
			t.Fatalf("%s: the answer without cache did not change", step.name)
		}
		got, hits, added := folderScan(t, root, c)
		if got != now || added == 0 {
			t.Fatalf("%s: %d hits, %d added; same answers %v\n%s\n%s", step.name, hits, added, got == now, got, now)
		}
		if again, _, added := folderScan(t, root, c); again != now || added != 0 {
			t.Fatalf("%s: warm again: %d added; same answers %v", step.name, added, again == now)
		}
		off = now
	}
}

// Stored values that do not decode are misses: the listing codec refuses
// what it would not have written.
func TestDecodeSubdirs(t *testing.T) {
	good := encodeSubdirs([]string{"a", "b"})
	if names, ok := decodeSubdirs(good); !ok || len(names) != 2 {
		t.Fatalf("round trip: %v %v", names, ok)
	}
	for name, v := range map[string][]byte{
		"empty":     nil,
		"kind":      append([]byte{valueSpecDoc}, good[1:]...),
		"unsorted":  encodeSubdirs([]string{"b", "a"}),
		"repeated":  encodeSubdirs([]string{"a", "a"}),
		"git":       encodeSubdirs([]string{".git"}),
		"slash":     encodeSubdirs([]string{"a/b"}),
		"dotdot":    encodeSubdirs([]string{".."}),
		"trailing":  append(append([]byte{}, good...), 0),
		"truncated": good[:len(good)-1],
		"huge":      {valueSubdirs, 0xff, 0xff, 0xff, 0x7f},
	} {
		if _, ok := decodeSubdirs(v); ok {
			t.Errorf("%s: decoded", name)
		}
	}
}

// FuzzDecodeSubdirs: any bytes decode without panicking, and what decodes
// encodes back to the same bytes (sorted plain names, never .git).
func FuzzDecodeSubdirs(f *testing.F) {
	f.Add(encodeSubdirs([]string{"auth", "db"}))
	f.Add([]byte{valueSubdirs, 0x80, 0})
	f.Fuzz(func(t *testing.T, v []byte) {
		names, ok := decodeSubdirs(v)
		if ok && string(encodeSubdirs(names)) != string(v) {
			t.Fatalf("%q decodes to %q, which encodes otherwise", v, names)
		}
	})
}
