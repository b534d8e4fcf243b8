//go:build linux

package gitrepo

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

// TestLastCommittedHashTable: with the work-tree hash table, a second run
// takes the hashes of the files LastCommitted compares from the table and
// gives the answers the first run and a run without the cache give; a file
// rewritten with other content of the same size and its modification time
// put back (its change time differs) is read again and no longer dated; a
// file changed within the racy window is not stored.
func TestLastCommittedHashTable(t *testing.T) {
	h := newHistory(t)
	dir := filepath.Join(t.TempDir(), "clone")
	must(t, gitfixture.Clone(h.dir, dir))
	disk := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	datingNow = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { datingNow = time.Now })

	run := func(c *diskcache.Cache) (map[string]string, *Repo) {
		t.Helper()
		r := open(t, dir)
		r.UseCache(c)
		got := map[string]string{}
		for p, c := range r.LastCommitted(datingPaths, 0) {
			got[p] = c.Hash
		}
		must(t, r.SaveCache())
		return got, r
	}
	off, _ := run(nil)
	if len(off) < 5 {
		t.Fatalf("only %d paths dated: %v", len(off), off)
	}
	cold, r := run(disk)
	if !reflect.DeepEqual(cold, off) {
		t.Fatalf("cold: %v\nwant %v", cold, off)
	}
	if st := r.wtHashes.Stats(); st.Hits != 0 {
		t.Errorf("cold run: %+v", st)
	}
	warm, r := run(disk)
	if !reflect.DeepEqual(warm, off) {
		t.Fatalf("warm: %v\nwant %v", warm, off)
	}
	// every file compared: 4 named, and those of docs/stories, src/lib,
	// src/app, docs
	if st := r.wtHashes.Stats(); st.Hits < 8 || st.Misses != 0 {
		t.Errorf("warm run: %+v, want every file's hash from the table", st)
	}

	main := filepath.Join(dir, "src", "app", "main.go")
	fi, err := os.Stat(main)
	must(t, err)
	old, err := os.ReadFile(main)
	must(t, err)
	edited := []byte("package main // v9\n")
	if len(edited) != len(old) {
		t.Fatalf("the edit must keep the size: %d vs %d", len(edited), len(old))
	}
	must(t, os.WriteFile(main, edited, 0o644))
	must(t, os.Chtimes(main, fi.ModTime(), fi.ModTime()))
	offEdited, _ := run(nil)
	if _, ok := offEdited["src/app/main.go"]; ok {
		t.Fatalf("an edited file is dated: %v", offEdited)
	}
	afterEdit, r := run(disk)
	if !reflect.DeepEqual(afterEdit, offEdited) {
		t.Errorf("after the edit: %v\nwant %v", afterEdit, offEdited)
	}
	if st := r.wtHashes.Stats(); st.Misses == 0 {
		t.Errorf("after the edit: %+v, want the edited file read again", st)
	}

	// racy: nothing written within two seconds of the clock is stored
	datingNow = time.Now
	disk2 := diskcache.New(filepath.Join(t.TempDir(), "cache2"))
	must(t, os.WriteFile(main, old, 0o644)) // changed now
	run(disk2)
	_, r = run(disk2)
	if st := r.wtHashes.Stats(); st.Misses == 0 {
		t.Errorf("a file changed within the racy window was stored: %+v", st)
	}
}
