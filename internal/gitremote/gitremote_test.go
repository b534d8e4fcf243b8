package gitremote

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// needGit skips a test only where git itself is absent.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH: the shared lifecycle tests need it")
	}
}

// gitRun runs git in dir and fails the test on error.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// setup makes a bare remote with one commit and n clones of it (file://).
func setup(t *testing.T, n int) (bare string, clones []string) {
	t.Helper()
	needGit(t)
	dir := t.TempDir()
	bare = filepath.Join(dir, "remote.git")
	gitRun(t, dir, "init", "-q", "--bare", bare)
	seed := filepath.Join(dir, "seed")
	gitRun(t, dir, "init", "-q", seed)
	if err := os.WriteFile(filepath.Join(seed, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, seed, "add", "a.txt")
	gitRun(t, seed, "commit", "-q", "-m", "a")
	gitRun(t, seed, "push", "-q", "file://"+bare, "HEAD:refs/heads/main")
	for i := 0; i < n; i++ {
		c := filepath.Join(dir, "clone"+string(rune('a'+i)))
		gitRun(t, dir, "clone", "-q", "file://"+bare, c)
		clones = append(clones, c)
	}
	return bare, clones
}

func open(t *testing.T, dir string) *Remote {
	t.Helper()
	r, err := Open(dir, "origin", os.Environ(), 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCreateOnlyIfAbsent: --force-with-lease=<ref>: with an empty expected
// value creates the ref only when it does not exist; a second create loses
// (ErrRejected); a replace or delete with the wrong old value loses; with
// the right one it wins.
func TestCreateOnlyIfAbsent(t *testing.T) {
	bare, clones := setup(t, 2)
	a, b := open(t, clones[0]), open(t, clones[1])
	ca, err := a.Commit("", "lock a\n", time.Unix(1000, 0))
	if err != nil {
		t.Fatal(err)
	}
	cb, err := b.Commit("", "lock b\n", time.Unix(1000, 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Push(Update{Name: "locks/x", New: ca}); err != nil {
		t.Fatalf("create: %v", err)
	}
	if err := b.Push(Update{Name: "locks/x", New: cb}); !errors.Is(err, ErrRejected) {
		t.Fatalf("second create: %v, want ErrRejected", err)
	}
	if got := gitRun(t, bare, "rev-parse", "refs/orchestrate/locks/x"); got != ca {
		t.Fatalf("ref = %s, want %s", got, ca)
	}
	if err := b.Push(Update{Name: "locks/x", Old: cb, New: ""}); !errors.Is(err, ErrRejected) {
		t.Fatalf("delete with the wrong old value: %v", err)
	}
	if err := b.Push(Update{Name: "locks/x", Old: ca, New: cb}); err != nil {
		t.Fatalf("replace with the right old value: %v", err)
	}
	if err := a.Push(Update{Name: "locks/x", Old: ca, New: ""}); !errors.Is(err, ErrRejected) {
		t.Fatalf("delete of a replaced lock: %v", err)
	}
	if err := b.Push(Update{Name: "locks/x", Old: cb, New: ""}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if v, err := a.RemoteValue("locks/x"); err != nil || v != "" {
		t.Fatalf("after delete: %q, %v", v, err)
	}
	// nothing but refs/orchestrate/ was written
	refs := gitRun(t, bare, "for-each-ref", "--format=%(refname)")
	if refs != "refs/heads/main" {
		t.Fatalf("refs on the remote: %q", refs)
	}
}

func TestFetchAndRefs(t *testing.T) {
	_, clones := setup(t, 2)
	a, b := open(t, clones[0]), open(t, clones[1])
	c1, _ := a.Commit("", `{"n":1}`+"\n", time.Unix(1000, 0))
	c2, _ := a.Commit(c1, `{"n":2}`+"\n", time.Unix(1001, 0))
	if err := a.Push(Update{Name: "records/w", New: c2}); err != nil {
		t.Fatal(err)
	}
	if err := b.Fetch(); err != nil {
		t.Fatal(err)
	}
	refs, err := b.Refs("")
	if err != nil || len(refs) != 1 || refs[0].Name != "records/w" || refs[0].Commit != c2 || strings.TrimSpace(refs[0].Message) != `{"n":2}` {
		t.Fatalf("refs = %+v, %v", refs, err)
	}
	msgs, err := b.Log(c2, 10)
	if err != nil || len(msgs) != 2 || strings.TrimSpace(msgs[1]) != `{"n":1}` {
		t.Fatalf("log = %q, %v", msgs, err)
	}
	// a deleted ref is pruned by the next fetch
	if err := a.Push(Update{Name: "records/w", Old: c2}); err != nil {
		t.Fatal(err)
	}
	if err := b.Fetch(); err != nil {
		t.Fatal(err)
	}
	if refs, _ := b.Refs(""); len(refs) != 0 {
		t.Fatalf("after prune: %+v", refs)
	}
}

func TestUnusable(t *testing.T) {
	bare, clones := setup(t, 1)
	if _, err := Open(clones[0], "nosuch", os.Environ(), time.Second); err == nil || !strings.Contains(err.Error(), `no remote named "nosuch"`) {
		t.Fatalf("no such remote: %v", err)
	}
	if _, err := Open(clones[0], "origin", []string{"PATH=/nonexistent"}, time.Second); err == nil || !strings.Contains(err.Error(), "no git on PATH") {
		t.Fatalf("no git: %v", err)
	}
	if _, err := Open(clones[0], "-oops", os.Environ(), time.Second); err == nil {
		t.Fatal("a remote name starting with - was accepted")
	}
	r := open(t, clones[0])
	// a remote that refuses every update (read-only): not a lost swap
	readOnly(t, bare)
	c, _ := r.Commit("", "x\n", time.Unix(1, 0))
	err := r.Push(Update{Name: "locks/x", New: c})
	var ge *Error
	if !errors.As(err, &ge) || errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("read-only push: %v, want *Error with the remote's message", err)
	}
	// unreachable remote
	if err := os.Rename(bare, bare+".gone"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Rename(bare+".gone", bare) })
	err = r.Fetch()
	if !errors.As(err, &ge) || ge.Stderr == "" {
		t.Fatalf("fetch from a missing remote: %v", err)
	}
}

// TestRefComponent: every encoded id is a valid ref name for git, and
// distinct ids stay distinct.
func TestRefComponent(t *testing.T) {
	needGit(t)
	ids := []string{"sdc:4.2", "sdc_3a4.2", "task:tag/1", "..", ".hidden", "a.lock", "a_2elock", "x.", "a..b", "a b~^:?*[\\",
		"@{x}", "@", "é", "feature:001-login", strings.Repeat("y", 400), strings.Repeat("y", 401), "-", "a//b", "\x00\x01"}
	seen := map[string]string{}
	for _, id := range ids {
		c, err := RefComponent(id)
		if err != nil {
			t.Fatalf("%q: %v", id, err)
		}
		if prev, dup := seen[c]; dup {
			t.Errorf("%q and %q both encode to %q", prev, id, c)
		}
		seen[c] = id
		if !validComponent(c) {
			t.Errorf("%q -> %q: not a valid component", id, c)
		}
		if out, err := exec.Command("git", "check-ref-format", "refs/orchestrate/locks/"+c).CombinedOutput(); err != nil {
			t.Errorf("%q -> %q: git check-ref-format refuses it: %s", id, c, out)
		}
	}
	if _, err := RefComponent(""); err == nil {
		t.Error("empty id accepted")
	}
}

func FuzzRefComponent(f *testing.F) {
	for _, s := range []string{"sdc:4.2", "..", "a.lock", "x/y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		c, err := RefComponent(id)
		if id == "" {
			if err == nil {
				t.Fatal("empty id accepted")
			}
			return
		}
		if err != nil || !validComponent(c) {
			t.Fatalf("%q -> %q, %v", id, c, err)
		}
	})
}

// readOnly makes the bare repository refuse every push (a pre-receive hook
// that says so: file modes do not stop root).
func readOnly(t *testing.T, bare string) {
	t.Helper()
	hook := filepath.Join(bare, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'this remote is read-only' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// No hook of the repository runs for the shared lifecycle's git calls,
// even one the clone's .git/hooks holds (a reference-transaction hook runs
// on every ref update, fetches included).
func TestNoLocalHooks(t *testing.T) {
	_, clones := setup(t, 1)
	marker := filepath.Join(t.TempDir(), "ran")
	for _, h := range []string{"reference-transaction", "pre-push"} {
		hook := filepath.Join(clones[0], ".git", "hooks", h)
		if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch '"+marker+"'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := open(t, clones[0])
	c, err := r.Commit("", "x\n", time.Unix(1e9, 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Push(Update{Name: "locks/x", New: c}); err != nil {
		t.Fatal(err)
	}
	if err := r.Fetch(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a hook of the repository ran")
	}
	// the same hook does run for git itself (the test can fail)
	gitRun(t, clones[0], "update-ref", "refs/heads/probe", c)
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the probe hook did not run for git itself: %v", err)
	}
}
