package attacktest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// sdcRepo is an env with the sdc fixture committed.
func sdcRepo(t *testing.T) *env {
	t.Helper()
	e := newEnv(t)
	e.writeTxtar("sdc.txtar")
	e.commitAll("interrupted work")
	return e
}

// The baseline every git attack is compared with: the fixture answers
// status (exit 0, sdc-1 listed) and a dry run of sdc-1 (exit 0).
func TestBaseline(t *testing.T) {
	t.Parallel()
	e := sdcRepo(t)
	r := e.run("status")
	wantCode(t, r, 0)
	wantOut(t, r, "workflow:sdc-1")
	r = e.run("resume", "--mode", "autopilot", "--dry-run", "sdc-1")
	wantCode(t, r, 0)
}

// A genuine commit whose message is 32 MiB of repeated text (the attack's
// was 600 MB in a clone whose .git is 748 KB: 40 s and 5.5 GB). Objects
// are never read whole past a limit: status and a dry run answer, and the
// answer is the same with the cache off, cold and warm, with the commit a
// loose object (as committed) and packed (as cloned).
func TestAttackHugeCommitMessage(t *testing.T) {
	t.Parallel()
	e := sdcRepo(t)
	msgFile := filepath.Join(e.dir, "message")
	writeRepeated(t, msgFile, "all work and no play makes a huge commit message\n", 32<<20)
	tree := e.git(nil, "rev-parse", "HEAD^{tree}")
	parent := e.git(nil, "rev-parse", "HEAD")
	c := e.git(nil, "commit-tree", tree, "-p", parent, "-F", msgFile)
	e.git(nil, "update-ref", "refs/heads/main", c)
	if err := os.Remove(msgFile); err != nil {
		t.Fatal(err)
	}
	// the state file changes in the next commit, so its history is walked
	// through the huge commit
	e.write(".orchestrate/workflows/sdc-1.yaml", []byte("execution_id: sdc-1\nworkflow: story-development-cycle\nstory: \"4.1\"\nupdated_at: 2026-11-20T11:40:00Z\ncurrent_phase: implement\nstatus: interrupted\n"))
	e.commitAll("after the huge one")
	for _, layout := range []string{"loose", "packed"} {
		if layout == "packed" {
			e.git(nil, "repack", "-adq")
			e.git(nil, "prune")
		}
		off := e.runEnv([]string{"ORCHESTRATE_CACHE_DIR=off"}, "status", "--all", "--json")
		wantCode(t, off, 0)
		wantOut(t, off, `"id": "workflow:sdc-1"`)
		cacheDir := "ORCHESTRATE_CACHE_DIR=" + filepath.Join(e.dir, "cache-"+layout)
		for _, pass := range []string{"cold", "warm"} {
			r := e.runEnv([]string{cacheDir}, "status", "--all", "--json")
			if r.stdout != off.stdout {
				t.Errorf("%s (%s, cache %s): the answer differs from the cache off", r, layout, pass)
			}
		}
		r := e.runEnv([]string{cacheDir}, "status")
		wantCode(t, r, 0)
		wantOut(t, r, "workflow:sdc-1")
		r = e.runEnv([]string{cacheDir}, "resume", "--mode", "autopilot", "--dry-run", "sdc-1")
		wantCode(t, r, 0)
	}
}

// A FIFO where git keeps HEAD, config, packed-refs, shallow, a ref,
// commondir, or the .git file of a linked worktree hung every run. .git is
// read as git reads it: only regular files, never a blocking open; the
// repository is read as one without git and the workflows are still
// listed, nothing written.
func TestAttackFIFOInGit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, path string }{
		{"HEAD", ".git/HEAD"},
		{"config", ".git/config"},
		{"packed-refs", ".git/packed-refs"},
		{"shallow", ".git/shallow"},
		{"ref", ".git/refs/heads/main"},
		{"commondir", ".git/commondir"},
		{"dotgit-file", ".git"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := sdcRepo(t)
			p := filepath.Join(e.repo, filepath.FromSlash(tc.path))
			if tc.name == "packed-refs" {
				// the branch only in packed-refs, so it must be read
				if err := os.Remove(filepath.Join(e.repo, ".git", "refs", "heads", "main")); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, e.repo, false)
			r := e.run("status")
			wantCode(t, r, 0)
			wantOut(t, r, "workflow:sdc-1")
			r = e.run("resume", "--mode", "autopilot", "--dry-run", "sdc-1")
			if r.code != 0 && r.code != 17 {
				t.Errorf("%s: want exit 0 or 17 (an answer)", r)
			}
			// a real resume may write its own files, but never hangs on the FIFO
			e.extra = append(e.extra, "ORCHESTRATE_HANDOFF_COMMAND="+e.handoffCommand())
			sameFiles(t, "status and dry run", before, snapshot(t, e.repo, false))
			r = e.run("resume", "--mode", "autopilot", "sdc-1")
			if r.code == 0 && e.agentStarts() != 1 {
				t.Errorf("%s: exit 0 but %d agent starts", r, e.agentStarts())
			}
			if strings.Contains(r.stderr+r.stdout, "\x1b") {
				t.Errorf("%s: escape byte in the output", r)
			}
		})
	}
}

// writeRepeated writes unit over and over into a new file until it holds at
// least size bytes, without holding it in memory.
func writeRepeated(t *testing.T, path, unit string, size int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	block := strings.Repeat(unit, max(1, (1<<20)/len(unit)))
	for n := 0; n < size; n += len(block) {
		if _, err := f.WriteString(block); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// A state file over the 8 MiB read cap is refused unread as too-large; when
// git tracks it, comparing it with the commit hashed the whole file before
// (a sparse 6 GB file costs nothing to make and took over 60 s): a work-tree
// file larger than any object orchestrate reads is now "changed" unread.
func TestAttackHugeTrackedFile(t *testing.T) {
	t.Parallel()
	e := sdcRepo(t)
	e.write(".orchestrate/workflows/big.yaml", []byte(bigHead))
	e.commitAll("a state file")
	if err := os.Truncate(filepath.Join(e.repo, ".orchestrate/workflows/big.yaml"), 6<<30); err != nil {
		t.Fatal(err)
	}
	r := e.run("status", "--all", "--json")
	wantCode(t, r, 0)
	wantOut(t, r, `"code": "too-large"`)
	r = e.run("resume", "--mode", "autopilot", "--dry-run", "sdc-1")
	wantCode(t, r, 0)
}

// A 2 GB .git file or a 1.5 GB HEAD or config (sparse: free to make) ran
// out of memory: .git files are read bounded, so these answer at once as a
// repository without git, within the memory bound.
func TestAttackHugeGitFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path string
		size       int64
	}{
		{"HEAD", ".git/HEAD", 1536 << 20},
		{"config", ".git/config", 1536 << 20},
		{"packed-refs", ".git/packed-refs", 1536 << 20},
		{"dotgit-file", ".git", 2 << 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := sdcRepo(t)
			p := filepath.Join(e.repo, filepath.FromSlash(tc.path))
			var head []byte
			switch tc.name {
			case "HEAD":
				head = []byte("ref: refs/heads/main")
			case "config":
				head = []byte("[core]\n\tbare = false\n# ")
			case "packed-refs":
				if err := os.Remove(filepath.Join(e.repo, ".git", "refs", "heads", "main")); err != nil {
					t.Fatal(err)
				}
				head = []byte("# pack-refs with: peeled fully-peeled sorted \n")
			case "dotgit-file":
				head = []byte("gitdir: ")
			}
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, head, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, tc.size); err != nil {
				t.Fatal(err)
			}
			r := e.run("status")
			wantCode(t, r, 0)
			wantOut(t, r, "workflow:sdc-1")
			r = e.run("resume", "--mode", "autopilot", "--dry-run", "sdc-1")
			if r.code != 0 && r.code != 17 {
				t.Errorf("%s: want exit 0 or 17 (an answer)", r)
			}
		})
	}
}

// A repository owned by another user gave no warning where git refuses it
// ("dubious ownership"). It is refused with git's advice (exit 1), nothing
// written, no agent started. Needs root to give the repository away.
func TestAttackRepositoryOfAnotherUser(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the repository to another user")
	}
	e := sdcRepo(t)
	err := filepath.WalkDir(e.repo, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 4242, 4242)
	})
	if err != nil {
		t.Fatal(err)
	}
	e.extra = append(e.extra, "ORCHESTRATE_HANDOFF_COMMAND="+e.handoffCommand())
	before := snapshot(t, e.repo, true)
	r := e.run("status")
	wantCode(t, r, 1)
	if !strings.Contains(r.stderr, "dubious ownership") || !strings.Contains(r.stderr, "safe.directory") {
		t.Errorf("%s: no git advice on stderr: %s", r, r.stderr)
	}
	r = e.run("resume", "--mode", "autopilot", "sdc-1")
	wantCode(t, r, 1)
	if n := e.agentStarts(); n != 0 {
		t.Errorf("%d agents started in another user's repository", n)
	}
	sameFiles(t, "another user's repository", before, snapshot(t, e.repo, true))
}
