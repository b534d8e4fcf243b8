//go:build linux

package gitrepo

import (
	"github.com/orchestrate-dev/orchestrate/internal/gitcache"

	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

// TestFolderVerdicts: with the work-tree hash table, a folder LastCommitted
// found as committed is, on the next run with nothing changed, taken from
// its verdict (one hit, no file hashed or looked up); every change that
// makes the folder differ from HEAD (a file edited with its size and
// modification time kept, an untracked file added in a subfolder, a file
// removed, a folder turned into a link) is a miss that gives the cache-off
// answer, and so is a new commit that changes the folder, HEAD moved by a
// commit elsewhere, or a verdict holding another tree. A folder changed
// within the racy window is not stored.
func TestFolderVerdicts(t *testing.T) {
	d := t.TempDir()
	must(t, gitfixture.Init(d))
	must(t, gitfixture.WriteFile(d, "f/x/a.txt", "a\n"))
	must(t, gitfixture.WriteFile(d, "f/x/sub/b.txt", "b one\n"))
	must(t, gitfixture.WriteFile(d, "f/y/c.txt", "c\n"))
	must(t, gitfixture.WriteFile(d, "other.txt", "o\n"))
	_, err := gitfixture.Commit(d, "first", "Ann", "ann@example.com", t0)
	must(t, err)
	disk := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	datingNow = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { datingNow = time.Now })
	paths := []string{"f/x", "f/y"}

	run := func(c *diskcache.Cache) (map[string]string, *Repo) {
		t.Helper()
		r := open(t, d)
		r.UseCache(c)
		got := map[string]string{}
		for p, c := range r.LastCommitted(paths, 0) {
			got[p] = c.Hash
		}
		must(t, r.SaveCache())
		return got, r
	}
	// check runs without the cache, then twice with it: each answer the
	// cache-off one; hits is what the first run with the cache must see
	check := func(what string, hits int, dated ...string) {
		t.Helper()
		off, _ := run(nil)
		if len(off) != len(dated) {
			t.Fatalf("%s: off %v, want %v dated", what, off, dated)
		}
		for _, p := range dated {
			if off[p] == "" {
				t.Fatalf("%s: off %v, want %v dated", what, off, dated)
			}
		}
		got, r := run(disk)
		if !reflect.DeepEqual(got, off) {
			t.Errorf("%s: %v, off %v", what, got, off)
		}
		if st := r.wtHashes.Stats(); hits >= 0 && st.Hits != hits {
			t.Errorf("%s: %+v, want %d hits", what, st, hits)
		}
		again, _ := run(disk)
		if !reflect.DeepEqual(again, off) {
			t.Errorf("%s, again: %v, off %v", what, again, off)
		}
	}
	check("cold", 0, "f/x", "f/y")
	check("warm", 2, "f/x", "f/y") // one verdict a folder, no file looked up

	b := filepath.Join(d, "f/x/sub/b.txt")
	fi, err := os.Stat(b)
	must(t, err)
	must(t, os.WriteFile(b, []byte("b two\n"), 0o644))
	must(t, os.Chtimes(b, fi.ModTime(), fi.ModTime()))
	check("edited, size and mtime kept", -1, "f/y")
	must(t, os.WriteFile(b, []byte("b one\n"), 0o644))
	check("edit undone", -1, "f/x", "f/y")

	must(t, os.WriteFile(filepath.Join(d, "f/x/sub/new.txt"), []byte("n\n"), 0o644))
	check("untracked added", -1, "f/y")
	must(t, os.Remove(filepath.Join(d, "f/x/sub/new.txt")))
	check("untracked removed", -1, "f/x", "f/y")

	must(t, os.Rename(filepath.Join(d, "f/x/sub/b.txt"), filepath.Join(d, "b-moved")))
	check("tracked removed", -1, "f/y")
	must(t, os.Rename(filepath.Join(d, "b-moved"), filepath.Join(d, "f/x/sub/b.txt")))
	check("tracked back", -1, "f/x", "f/y")

	must(t, os.Rename(filepath.Join(d, "f/y"), filepath.Join(d, "y-copy")))
	must(t, os.Symlink(filepath.Join(d, "y-copy"), filepath.Join(d, "f/y")))
	check("folder turned into a link", -1, "f/x")
	must(t, os.Remove(filepath.Join(d, "f/y")))
	must(t, os.Rename(filepath.Join(d, "y-copy"), filepath.Join(d, "f/y")))
	check("link undone", -1, "f/x", "f/y")

	// a new commit changing f/x: its tree, and its date, are new
	must(t, gitfixture.WriteFile(d, "f/x/a.txt", "a, second\n"))
	second, err := gitfixture.Commit(d, "second", "Ann", "ann@example.com", t0.Add(time.Hour))
	must(t, err)
	check("new commit on the folder", -1, "f/x", "f/y")
	if got, _ := run(disk); got["f/x"] != second {
		t.Errorf("f/x dated %s, want the new commit %s", got["f/x"], second)
	}
	// HEAD moved by a commit elsewhere: the same trees, the same verdicts
	must(t, gitfixture.WriteFile(d, "other.txt", "o2\n"))
	_, err = gitfixture.Commit(d, "third", "Ann", "ann@example.com", t0.Add(2*time.Hour))
	must(t, err)
	check("HEAD moved elsewhere", 2, "f/x", "f/y")

	// a verdict whose value is another tree is a miss
	r := open(t, d)
	r.UseCache(disk)
	head, err := r.headObject()
	must(t, err)
	e, err := r.pathTree(head.TreeHash).entry("f/x")
	must(t, err)
	k, ok := r.folderKey("f/x", e.Hash)
	if !ok {
		t.Fatal("no key for a clean folder")
	}
	other := e.Hash
	other[0] ^= 1
	r.wtHashes.Put(k, other)
	must(t, r.wtHashes.Save())
	got, r2 := run(disk)
	if got["f/x"] == "" {
		t.Errorf("a verdict of another tree: %v", got)
	}
	// f/y's verdict, f/x's entry (found, refused: another tree), then
	// f/x's two files, compared
	if st := r2.wtHashes.Stats(); st.Hits != 1+1+2 {
		t.Errorf("a verdict of another tree: %+v, want f/x compared", st)
	}

	// racy: a folder changed within two seconds of the clock is not stored
	datingNow = time.Now
	disk2 := diskcache.New(filepath.Join(t.TempDir(), "cache2"))
	must(t, os.WriteFile(filepath.Join(d, "f/y/c.txt"), []byte("c\n"), 0o644))
	paths = []string{"f/y"}
	run(disk2)
	if _, r := run(disk2); r.wtHashes.Stats().Hits != 0 {
		t.Errorf("a folder changed within the racy window was stored: %+v", r.wtHashes.Stats())
	}
}

// TestPlainName: only a name that is one path element is stat'ed for a
// folder's key.
func TestPlainName(t *testing.T) {
	for name, want := range map[string]bool{"a.txt": true, ".hidden": true, "...": true, "": false, ".": false, "..": false, "a/b": false, `a\b`: false, "a\x00": false} {
		if got := gitcache.PlainName([]byte(name)); got != want {
			t.Errorf("gitcache.PlainName(%q) = %v, want %v", name, got, want)
		}
	}
}
