package gitobj

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	graphv2 "github.com/go-git/go-git/v5/plumbing/format/commitgraph/v2"
)

// graphHistory makes a repository of n linear commits (git fast-import, in
// parts batches), its commit-graph written after each batch: as one file,
// or, with split, as a chain of parts files (git commit-graph write
// --split=no-merge). It returns the git folder and the commits, newest
// first.
func graphHistory(tb testing.TB, n, parts int, split bool) (string, []plumbing.Hash) {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("no git binary")
	}
	dir := tb.TempDir()
	git := func(stdin string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_TERMINAL_PROMPT=0")
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("", "init", "-q", "-b", "main")
	for p := 0; p < parts; p++ {
		var s strings.Builder
		for i := p * n / parts; i < (p+1)*n/parts; i++ {
			fmt.Fprintf(&s, "commit refs/heads/main\ncommitter A <a@x> %d +0000\ndata 4\nc%03d", 1700000000+i, i%1000)
			if i > 0 && i == p*n/parts {
				s.WriteString("\nfrom refs/heads/main^0")
			}
			body := fmt.Sprintf("file %d\n", i)
			fmt.Fprintf(&s, "\nM 644 inline d%d/f%d.txt\ndata %d\n%s\n", i%7, i%50, len(body), body)
		}
		git(s.String(), "fast-import", "--quiet")
		if split {
			git("", "commit-graph", "write", "--reachable", "--split=no-merge")
		}
	}
	if !split {
		git("", "commit-graph", "write", "--reachable")
	}
	var hs []plumbing.Hash
	for _, l := range strings.Fields(git("", "rev-list", "main")) {
		hs = append(hs, plumbing.NewHash(l))
	}
	return filepath.Join(dir, ".git"), hs
}

// headerLinks parses the tree and first parent of a commit's first bytes.
func headerLinks(raw []byte) (tree, parent plumbing.Hash) {
	for _, line := range bytes.Split(raw, []byte("\n")) {
		switch {
		case bytes.HasPrefix(line, []byte("tree ")) && len(line) == 45:
			tree = plumbing.NewHash(string(line[5:]))
		case bytes.HasPrefix(line, []byte("parent ")) && len(line) == 47 && parent.IsZero():
			parent = plumbing.NewHash(string(line[7:]))
		case len(line) == 0:
			return tree, parent
		}
	}
	return tree, parent
}

// TestCommitGraphV2Agrees checks, on a single commit-graph file and on a
// chain of three, that go-git's commitgraph/v2 gives every commit the tree
// and first parent its commit object names, and that this package's reader
// does on the file (it takes no chain: the walks then read the commits).
func TestCommitGraphV2Agrees(t *testing.T) {
	for _, split := range []bool{false, true} {
		gitdir, hs := graphHistory(t, 300, 3, split)
		fs := osfs.New(gitdir)
		idx, err := graphv2.OpenChainOrFileIndex(fs)
		must(t, err)
		own := OpenCommitGraph(fs)
		if (own == nil) != split {
			t.Fatalf("split %v: own reader loaded %v", split, own != nil)
		}
		s := openStore(t, filepath.Dir(gitdir))
		for _, h := range hs {
			raw, _, err := s.CommitPrefix(h, 512)
			must(t, err)
			tree, parent := headerLinks(raw)
			i, err := idx.GetIndexByHash(h)
			must(t, err)
			cd, err := idx.GetCommitDataByIndex(i)
			must(t, err)
			var p2 plumbing.Hash
			if len(cd.ParentHashes) > 0 {
				p2 = cd.ParentHashes[0]
			}
			if cd.TreeHash != tree || p2 != parent {
				t.Fatalf("split %v: %s: v2 %s %s, commit %s %s", split, h, cd.TreeHash, p2, tree, parent)
			}
			if own != nil {
				if ot, op, ok := own.Links(h); !ok || ot != tree || op != parent {
					t.Fatalf("%s: own %s %s %v, commit %s %s", h, ot, op, ok, tree, parent)
				}
			}
		}
		must(t, idx.Close())
		must(t, own.Close())
	}
}

// BenchmarkCommitGraphLinks reads the tree and first parent of every
// commit of a 3,000-commit history: with this package's reader from one
// commit-graph file, with go-git's commitgraph/v2 from that file and from
// a chain of three, and from the commits themselves (what a walk reads
// when the graph is a chain this reader does not take). Opening the graph
// is in the loop: a Repo opens it once per run.
func BenchmarkCommitGraphLinks(b *testing.B) {
	fileDir, hs := graphHistory(b, 3000, 3, false)
	chainDir, chs := graphHistory(b, 3000, 3, true)
	b.Run("own/file", func(b *testing.B) {
		fs := osfs.New(fileDir)
		for b.Loop() {
			g := OpenCommitGraph(fs)
			for _, h := range hs {
				if _, _, ok := g.Links(h); !ok {
					b.Fatal("not in the graph")
				}
			}
			_ = g.Close()
		}
	})
	v2 := func(dir string, hs []plumbing.Hash) func(b *testing.B) {
		return func(b *testing.B) {
			fs := osfs.New(dir)
			for b.Loop() {
				idx, err := graphv2.OpenChainOrFileIndex(fs)
				if err != nil {
					b.Fatal(err)
				}
				for _, h := range hs {
					i, err := idx.GetIndexByHash(h)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := idx.GetCommitDataByIndex(i); err != nil {
						b.Fatal(err)
					}
				}
				_ = idx.Close()
			}
		}
	}
	b.Run("gogit-v2/file", v2(fileDir, hs))
	b.Run("gogit-v2/chain", v2(chainDir, chs))
	b.Run("own/chain-commits", func(b *testing.B) {
		s := openStore(b, filepath.Dir(chainDir))
		for b.Loop() {
			for _, h := range chs {
				raw, _, err := s.CommitPrefix(h, 128)
				if err != nil {
					b.Fatal(err)
				}
				headerLinks(raw)
			}
		}
	})
}
