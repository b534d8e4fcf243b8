package gitrepo

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// graphRepo is a repository with merges (one of them an octopus) and a
// commit-graph written by git; it returns its folder and every commit.
func graphRepo(t *testing.T) (string, []plumbing.Hash) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	g := func(args ...string) {
		runGit(t, dir, append([]string{"-c", "user.name=A", "-c", "user.email=a@x"}, args...)...)
	}
	write := func(p, c string) {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644))
	}
	g("init", "-q", "-b", "main")
	for i := 0; i < 6; i++ {
		write(fmt.Sprintf("src/a/f%d.go", i%3), fmt.Sprint("main ", i))
		g("add", "-A")
		g("commit", "-qm", fmt.Sprint("main ", i))
		if i == 2 {
			for _, b := range []string{"x", "y", "z"} {
				g("checkout", "-qb", b)
				write("src/"+b+"/g.go", b)
				g("add", "-A")
				g("commit", "-qm", b)
				g("checkout", "-q", "main")
			}
			g("merge", "-q", "--no-ff", "-m", "merge x", "x")
			g("merge", "-q", "--no-ff", "-m", "octopus", "y", "z")
		}
	}
	g("commit-graph", "write", "--reachable")
	out, err := exec.Command("git", "-C", dir, "rev-list", "--all").Output()
	must(t, err)
	var all []plumbing.Hash
	for _, l := range strings.Fields(string(out)) {
		all = append(all, plumbing.NewHash(l))
	}
	return dir, all
}

// The links read from a commit-graph are the ones read from the commits,
// for every commit (root, merges, an octopus), and the walks give the same
// answers with and without the graph.
func TestCommitGraphMatchesCommits(t *testing.T) {
	t.Parallel()
	dir, all := graphRepo(t)
	withGraph, without := open(t, dir), open(t, dir)
	without.graphTried = true // as a repository with no graph
	if withGraph.commitGraph() == nil {
		t.Fatal("the commit-graph git wrote is not loaded")
	}
	for _, h := range all {
		want, err := without.readLinksUncached(h)
		must(t, err)
		got, ok := withGraph.graphLinks(h)
		if !ok || got != want {
			t.Errorf("%s: graph %+v (%v), commit %+v", h, got, ok, want)
		}
	}
	if _, ok := withGraph.graphLinks(plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")); ok {
		t.Error("an unknown hash found in the graph")
	}
	first := Commit{Hash: all[len(all)-1].String()}
	paths := []string{"src/a/f0.go", "src/a/f1.go", "src/x/g.go", "src/z/g.go", "none"}
	got, err := withGraph.CommitsTouching(first, paths, 100)
	must(t, err)
	want, err := without.CommitsTouching(first, paths, 100)
	must(t, err)
	if !reflect.DeepEqual(hashMap(got), hashMap(want)) || len(got) == 0 {
		t.Errorf("CommitsTouching with the graph %v, without %v", hashMap(got), hashMap(want))
	}
	at, err := withGraph.InterruptionCommit("", time.Now().Add(time.Hour))
	must(t, err)
	if wantAt, err := without.InterruptionCommit("", time.Now().Add(time.Hour)); err != nil || at != wantAt {
		t.Errorf("InterruptionCommit with the graph %+v, without %+v (%v)", at, wantAt, err)
	}
}

// The walks take a commit's links from the graph, not from the commit: a
// graph naming another tree for a commit is believed (as git believes it).
func TestCommitGraphIsRead(t *testing.T) {
	t.Parallel()
	dir, all := graphRepo(t)
	name := filepath.Join(dir, ".git", "objects", "info", "commit-graph")
	b, err := os.ReadFile(name)
	must(t, err)
	oids, cdat := graphChunks(t, b)
	i := -1
	for x := 0; x < len(oids)/20; x++ {
		if bytes.Equal(oids[20*x:20*x+20], all[0][:]) {
			i = x
		}
	}
	if i < 0 {
		t.Fatal("HEAD not in the graph")
	}
	cdat[i*graphRecordLen] ^= 0xff // the first byte of the tree, in b
	must(t, os.Chmod(name, 0o644))
	must(t, os.WriteFile(name, b, 0o644))
	r := open(t, dir)
	l, err := r.readLinks(all[0])
	must(t, err)
	real, _ := graphRepoLinks(t, dir, all[0])
	if l.tree == real {
		t.Errorf("tree %s: the commit's, not the graph's", l.tree)
	}
}

// graphRepoLinks reads the links of h with the graph left out.
func graphRepoLinks(t *testing.T, dir string, h plumbing.Hash) (plumbing.Hash, plumbing.Hash) {
	r := open(t, dir)
	r.graphTried = true
	l, err := r.readLinksUncached(h)
	must(t, err)
	return l.tree, l.parent
}

// graphRecordLen is the size of a commit's record in a commit-graph's CDAT
// chunk: its tree, two parent positions, generation and time.
const graphRecordLen = 20 + 16

// graphChunks returns the OIDL and CDAT chunks of the commit-graph file b:
// its commits' hashes (sorted, 20 bytes each) and their records
// (graphRecordLen each), as git's format documents them.
func graphChunks(t *testing.T, b []byte) (oids, cdat []byte) {
	t.Helper()
	if len(b) < 8 || string(b[:4]) != "CGPH" {
		t.Fatal("not a commit-graph")
	}
	n := int(b[6])
	for i := 0; i < n && 8+12*(i+2) <= len(b); i++ {
		e := b[8+12*i:]
		off, end := binary.BigEndian.Uint64(e[4:12]), binary.BigEndian.Uint64(e[16:24])
		switch string(e[:4]) {
		case "OIDL":
			oids = b[off:end]
		case "CDAT":
			cdat = b[off:end]
		}
	}
	if oids == nil || cdat == nil {
		t.Fatal("a commit-graph without its OIDL or CDAT chunk")
	}
	return oids, cdat
}
