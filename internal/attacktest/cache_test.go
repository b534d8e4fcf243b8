package attacktest

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// names lists a folder's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// The cache folder is orchestrate's alone. Pointed at a folder of the
// user's, pruning removed the oldest file (a 100 MB PDF);
// ORCHESTRATE_CACHE_DIR=/ wrote tables into /; HOME=/nonexistent got
// created. Now: the user's folder is neither written nor pruned (its files
// byte-identical, nothing added, even a file named like a table), / gets
// nothing, a missing home is not created, and the answer is the one with
// the cache off.
func TestAttackCacheFolder(t *testing.T) {
	t.Parallel()
	e := sdcRepo(t)
	off := e.runEnv([]string{"ORCHESTRATE_CACHE_DIR=off"}, "status", "--all", "--json")
	wantCode(t, off, 0)

	t.Run("user-folder", func(t *testing.T) {
		papers := filepath.Join(e.dir, "papers")
		if err := os.MkdirAll(papers, 0o700); err != nil {
			t.Fatal(err)
		}
		for name, content := range map[string]string{
			"thesis.pdf": "%PDF-1.7 the user's only copy\n",
			"stories":    "a file named like one of orchestrate's tables\n",
		} {
			p := filepath.Join(papers, name)
			if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			old := commitTime.AddDate(-5, 0, 0) // the oldest, first to prune
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
		before := snapshot(t, papers, true)
		for range 3 {
			r := e.runEnv([]string{"ORCHESTRATE_CACHE_DIR=" + papers}, "status", "--all", "--json")
			if r.stdout != off.stdout {
				t.Errorf("%s: the answer differs from the cache off", r)
			}
		}
		r := e.runEnv([]string{"ORCHESTRATE_CACHE_DIR=" + papers}, "resume", "--mode", "autopilot", "--dry-run", "sdc-1")
		wantCode(t, r, 0)
		sameFiles(t, "the user's folder as the cache", before, snapshot(t, papers, true))
	})

	t.Run("root", func(t *testing.T) {
		root := names(t, "/")
		r := e.runEnv([]string{"ORCHESTRATE_CACHE_DIR=/"}, "status", "--all", "--json")
		if r.stdout != off.stdout {
			t.Errorf("%s: the answer differs from the cache off", r)
		}
		if got := names(t, "/"); len(got) != len(root) {
			t.Errorf("%s: / changed: %v, was %v", r, got, root)
		}
		if _, err := os.Lstat("/CACHEDIR.TAG"); err == nil {
			t.Errorf("%s: /CACHEDIR.TAG exists", r)
		}
	})

	t.Run("home-itself", func(t *testing.T) {
		before := names(t, e.home)
		r := e.runEnv([]string{"ORCHESTRATE_CACHE_DIR=" + e.home}, "status", "--all", "--json")
		if r.stdout != off.stdout {
			t.Errorf("%s: the answer differs from the cache off", r)
		}
		if got := names(t, e.home); len(got) != len(before) {
			t.Errorf("%s: the home folder changed: %v, was %v", r, got, before)
		}
	})

	t.Run("missing-home", func(t *testing.T) {
		home := filepath.Join(e.dir, "nonexistent")
		// a later HOME wins; XDG folders unset by pointing them nowhere
		r := e.runEnv([]string{"HOME=" + home, "XDG_CONFIG_HOME=", "XDG_CACHE_HOME="}, "status", "--all", "--json")
		if r.stdout != off.stdout {
			t.Errorf("%s: the answer differs from the cache off", r)
		}
		if _, err := os.Lstat(home); err == nil {
			t.Errorf("%s: the missing home %s was created", r, home)
		}
	})
}

// A table file copied over another repository's table name changed that
// repository's answer (which is what restoring a cache folder between CI
// jobs does). Entries are bound to what they were derived from and
// authenticated: repository B, whose per-repository tables are replaced by
// repository A's, still answers as with the cache off.
func TestAttackCopiedCacheTable(t *testing.T) {
	t.Parallel()
	a, b := sdcRepo(t), newEnv(t)
	b.writeTxtar("sdc.txtar")
	b.commitAll("interrupted work")
	// B's history differs: the story of sdc-1 changed after the interruption
	b.write("docs/stories/4.1.a.md", []byte("# Story 4.1: A\n**Status:** InProgress\n\n## Dev Notes\nchanged\n"))
	b.commitAll("later work on 4.1")
	cache := filepath.Join(a.dir, "cache")
	env := []string{"ORCHESTRATE_CACHE_DIR=" + cache}
	offB := b.runEnv([]string{"ORCHESTRATE_CACHE_DIR=off"}, "status", "--all", "--json")
	a.runEnv(env, "status", "--all", "--json")
	ofA := map[string]bool{}
	for _, n := range names(t, cache) {
		ofA[n] = true
	}
	b.runEnv(env, "status", "--all", "--json")
	copied := 0
	for _, nb := range names(t, cache) {
		if ofA[nb] {
			continue
		}
		// B's own table: overwrite it with A's table of the same kind
		for na := range ofA {
			if len(na) == len(nb) && na[:len(na)-32] == nb[:len(nb)-32] {
				data, err := os.ReadFile(filepath.Join(cache, na))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(cache, nb), data, 0o600); err != nil {
					t.Fatal(err)
				}
				copied++
			}
		}
	}
	if copied == 0 {
		t.Fatalf("no per-repository table to copy: %v", names(t, cache))
	}
	for range 2 {
		r := b.runEnv(env, "status", "--all", "--json")
		if r.stdout != offB.stdout {
			t.Errorf("%s: with %d tables of another repository copied in, the answer differs from the cache off", r, copied)
		}
	}
}

// lyingCacheRepo makes, at e.repo, the genuine repository of
// TestAttackLyingCacheOutlivesItsRepository: sdc-1 interrupted at 11:30,
// its story committed at 09:00 and changed in a commit at 11:45.
func lyingCacheRepo(e *env) {
	e.t.Helper()
	e.when = time.Time{}
	e.writeTxtar("sdc.txtar")
	e.commitAll("interrupted work")
	e.write("docs/stories/4.1.a.md", []byte("# Story 4.1: A\n**Status:** Done\n\n## Dev Notes\nfinished by someone else\n"))
	e.when = commitTime.Add(165 * time.Minute)
	e.commitAll("4.1 finished elsewhere")
	e.when = time.Time{}
}

// A tampered .git whose tree lies was read with a cache folder; the folder
// was deleted and a genuine repository created at the same path (same .git
// inode, 5 of 5 times on ext4) reported the lie's answer from the cache.
// Entries are bound to what they were derived from: the genuine
// repository, re-created where the liar was, answers as with the cache
// off.
func TestAttackLyingCacheOutlivesItsRepository(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	needGit(t)
	lyingCacheRepo(e)
	genuine := e.runEnv([]string{"ORCHESTRATE_CACHE_DIR=off"}, "resume", "--mode", "autopilot", "--dry-run", "--json", "sdc-1")
	genuineStatus := e.runEnv([]string{"ORCHESTRATE_CACHE_DIR=off"}, "status", "--all", "--json")

	// the liar: the last commit's tree object holds the first commit's
	// tree (the story never changed, says git)
	lie, truth := e.git(nil, "rev-parse", "HEAD~1^{tree}"), e.git(nil, "rev-parse", "HEAD^{tree}")
	obj := func(h string) string { return filepath.Join(e.repo, ".git", "objects", h[:2], h[2:]) }
	data, err := os.ReadFile(obj(lie))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(obj(truth)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(obj(truth), data, 0o444); err != nil {
		t.Fatal(err)
	}
	liar := e.runEnv([]string{"ORCHESTRATE_CACHE_DIR=off"}, "resume", "--mode", "autopilot", "--dry-run", "--json", "sdc-1")
	if liar.stdout == genuine.stdout {
		t.Fatalf("%s: the tampered repository answers as the genuine one: the attack is not built", liar)
	}
	cache := []string{"ORCHESTRATE_CACHE_DIR=" + filepath.Join(e.dir, "cache")}
	e.runEnv(cache, "resume", "--mode", "autopilot", "--dry-run", "--json", "sdc-1")
	e.runEnv(cache, "status", "--all", "--json")

	// the genuine repository, created again at the same path
	if err := os.RemoveAll(e.repo); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(e.repo, 0o755); err != nil {
		t.Fatal(err)
	}
	lyingCacheRepo(e)
	if got := e.git(nil, "rev-parse", "HEAD^{tree}"); got != truth {
		t.Fatalf("the re-created repository is not the same (tree %s, want %s)", got, truth)
	}
	r := e.runEnv(cache, "resume", "--mode", "autopilot", "--dry-run", "--json", "sdc-1")
	if r.code != genuine.code || r.stdout != genuine.stdout {
		t.Errorf("%s: the re-created genuine repository answers with the cache otherwise than with it off (exit %d)", r, genuine.code)
	}
	r = e.runEnv(cache, "status", "--all", "--json")
	if r.stdout != genuineStatus.stdout {
		t.Errorf("%s: status with the cache differs from the cache off", r)
	}
}
