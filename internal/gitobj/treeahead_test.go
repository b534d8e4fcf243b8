package gitobj

import (
	"fmt"
	"github.com/orchestrate-dev/orchestrate/internal/gitverify"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// aheadChain commits n commits through git fast-import, packed: each
// changes a/x/f, every fifth b/g too, every third c/h (a folder no path
// asks about). It returns the folder and the commits, oldest first.
func aheadChain(t *testing.T, n int) (string, []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary to build the history with")
	}
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	var in strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\ncommitter A <a@x> %d +0000\ndata 2\nc\n", i+1, 1700000000+int64(i)*60)
		if i > 0 {
			fmt.Fprintf(&in, "from :%d\n", i)
		}
		file := func(p string) { fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%d\n", p, len(fmt.Sprint(i))+1, i) }
		file("a/x/f")
		if i%5 == 0 {
			file("b/g")
		}
		if i%3 == 0 {
			file("c/h")
		}
	}
	gitStdin(t, dir, in.String(), "fast-import", "--quiet")
	runGit(t, dir, "repack", "-adq")
	chain := strings.Fields(gitStdin(t, dir, "", "rev-list", "--reverse", "main"))
	if len(chain) != n {
		t.Fatalf("%d commits, want %d", len(chain), n)
	}
	return dir, chain
}

// gitStdin runs git in dir with stdin in and returns its output.
func gitStdin(t *testing.T, dir, in string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// The trees a chain reader hands with each commit are the trees a walk
// along its trie compares with the child commit's: the root, and each
// folder on the paths whose tree differs from the child's (all of them for
// the first commit read, whose child it did not read); each is the
// content its hash names.
func TestTreeAheadReadsWhatTheWalkCompares(t *testing.T) {
	t.Parallel()
	const n = 40
	dir, chain := aheadChain(t, n)
	s := openStore(t, dir)
	folders := []string{"", "a", "a/x", "b"}
	var revs []string
	for _, c := range chain {
		for _, p := range folders {
			revs = append(revs, c+":"+p)
		}
	}
	hashes := strings.Fields(gitStdin(t, dir, "", append([]string{"rev-parse"}, revs...)...))
	if len(hashes) != len(revs) {
		t.Fatalf("rev-parse: %d hashes for %d names", len(hashes), len(revs))
	}
	treeOf := func(i, f int) string { return hashes[i*len(folders)+f] }
	trie := NewTrie([]string{"a/x/f", "b/g"})
	r := StartChain(s.Fork(), plumbing.NewHash(chain[n-2]), false, func(plumbing.Hash) bool { return false }, trie)
	defer r.Halt()
	for i := n - 2; i >= 0; i-- {
		it, ok := r.Take()
		if !ok {
			t.Fatalf("commit %d: the reader stopped", i)
		}
		var got []string
		for _, tr := range it.Trees {
			if gitverify.ObjectHash(plumbing.TreeObject, tr.Raw) != tr.Hash {
				t.Fatalf("commit %d: tree %s handed with another content", i, tr.Hash)
			}
			got = append(got, tr.Hash.String())
		}
		var want []string
		for f := range folders {
			if h := treeOf(i, f); i == n-2 || h != treeOf(i+1, f) {
				want = append(want, h)
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("commit %d: trees %v, want %v", i, got, want)
		}
	}
	if _, ok := r.Take(); ok {
		t.Error("an item past the first commit")
	}
}

// Without a trie the reader hands no trees; Want gives it one from the
// next commit it reads on, and another trie starts over (every folder of
// its paths read once).
func TestTreeAheadWant(t *testing.T) {
	t.Parallel()
	dir, chain := aheadChain(t, 10)
	s := openStore(t, dir)
	var ta treeAhead
	root := func(c string) plumbing.Hash {
		return plumbing.NewHash(strings.TrimSpace(gitStdin(t, dir, "", "rev-parse", c+"^{tree}")))
	}
	if got := ta.read(s, nil, root(chain[9]), nil); got != nil {
		t.Fatalf("no trie: %d trees", len(got))
	}
	if got := ta.read(s, NewTrie([]string{"b/g"}), root(chain[9]), nil); len(got) != 2 {
		t.Fatalf("first commit: %d trees, want the root and b", len(got))
	}
	if got := ta.read(s, ta.trie, root(chain[9]), nil); len(got) != 0 {
		t.Fatalf("the same commit again: %d trees", len(got))
	}
	if got := ta.read(s, NewTrie([]string{"a/x/f"}), root(chain[9]), nil); len(got) != 3 {
		t.Fatalf("another trie: %d trees, want the root, a and a/x", len(got))
	}
	if got := ta.read(nil, ta.trie, root(chain[8]), nil); got != nil {
		t.Fatalf("no store: %d trees", len(got))
	}
}

// A tree the reader cannot read is not handed (the walk reads it and meets
// the error itself); a tree larger than aheadScanMax is handed but not
// scanned for the folders below it.
func TestTreeAheadSkipsWhatItCannotRead(t *testing.T) {
	t.Parallel()
	dir, chain := aheadChain(t, 4)
	s := openStore(t, dir)
	var ta treeAhead
	missing := plumbing.NewHash(strings.Repeat("ab", 20))
	if got := ta.read(s, NewTrie([]string{"a/x/f"}), missing, nil); len(got) != 0 {
		t.Fatalf("a missing root: %d trees", len(got))
	}
	// a root of many entries: handed, nothing below it read
	var raw []byte
	for i := 0; len(raw) <= aheadScanMax; i++ {
		raw = append(raw, fmt.Sprintf("40000 d%05d\x00", i)...)
		raw = append(raw, make([]byte, 20)...)
	}
	big := plumbing.NewHash(strings.TrimSpace(gitStdin(t, dir, string(raw), "hash-object", "-t", "tree", "-w", "--literally", "--stdin")))
	ta = treeAhead{}
	got := ta.read(openStore(t, dir), NewTrie([]string{"d00001/f"}), big, nil)
	if len(got) != 1 || got[0].Hash != big || len(got[0].Raw) != len(raw) {
		t.Fatalf("a large root: %d trees", len(got))
	}
	_ = chain
}

// A Lookup of an offered tree takes it rather than reading it, and checks
// it as a tree it read: an offered content that is not what the hash names
// marks the verifier failed. Another Offer drops the trees of the last.
func TestOfferedTreesAreVerified(t *testing.T) {
	t.Parallel()
	dir, chain := aheadChain(t, 3)
	s := openStore(t, dir)
	h := plumbing.NewHash(strings.TrimSpace(gitStdin(t, dir, "", "rev-parse", chain[2]+"^{tree}")))
	genuine, err := s.EncodedObject(plumbing.TreeObject, h)
	must(t, err)
	raw, err := ObjectBytes(genuine)
	must(t, err)

	c := NewTreeIndexCache(s, TreeIndexBudget)
	v := &gitverify.Verifier{}
	v.On.Store(true)
	c.Verify = v
	c.Offer([]AheadTree{{Hash: h, Raw: raw}})
	if _, got, err := c.Lookup(h); err != nil || string(got) != string(raw) {
		t.Fatalf("offered tree: %q %v", got, err)
	}
	if v.Failed() {
		t.Fatal("a genuine offered tree failed verification")
	}

	lie := []byte("100644 f\x00" + strings.Repeat("x", 20))
	c2 := NewTreeIndexCache(s, TreeIndexBudget)
	v2 := &gitverify.Verifier{}
	v2.On.Store(true)
	c2.Verify = v2
	c2.Offer([]AheadTree{{Hash: h, Raw: lie}})
	if _, got, _ := c2.Lookup(h); string(got) != string(lie) {
		t.Fatalf("Lookup did not take the offered tree: %q", got)
	}
	if !v2.Failed() {
		t.Fatal("an offered tree that lies passed verification")
	}

	c3 := NewTreeIndexCache(s, TreeIndexBudget)
	c3.Offer([]AheadTree{{Hash: h, Raw: lie}})
	c3.Offer(nil)
	if _, got, err := c3.Lookup(h); err != nil || string(got) != string(raw) {
		t.Fatalf("after another Offer: %q %v", got, err)
	}
}

// A root tree the commit reader read (readTreeRaw) is the one handed, not
// read again; the folders below it are read from it. Without it (nil: the
// commit reader could not read it) the tree reader reads the root itself.
// The chain reader's items carry the same trees either way.
func TestTreeAheadRootReadBefore(t *testing.T) {
	t.Parallel()
	dir, chain := aheadChain(t, 6)
	s := openStore(t, dir)
	h := plumbing.NewHash(strings.TrimSpace(gitStdin(t, dir, "", "rev-parse", chain[5]+"^{tree}")))
	raw, ok := readTreeRaw(s, h)
	if !ok || len(raw) == 0 {
		t.Fatal("the root not read")
	}
	if _, ok := readTreeRaw(s, plumbing.NewHash(strings.Repeat("ab", 20))); ok {
		t.Fatal("a missing tree read")
	}
	own := append([]byte(nil), raw...)
	var ta treeAhead
	got := ta.read(s, NewTrie([]string{"a/x/f"}), h, own)
	if len(got) != 3 || got[0].Hash != h || &got[0].Raw[0] != &own[0] {
		t.Fatalf("root read before: %d trees, the root's not the one given", len(got))
	}
	var tb treeAhead
	again := tb.read(s, NewTrie([]string{"a/x/f"}), h, nil)
	if len(again) != len(got) {
		t.Fatalf("root read by the tree reader: %d trees, want %d", len(again), len(got))
	}
	for i := range got {
		if got[i].Hash != again[i].Hash || string(got[i].Raw) != string(again[i].Raw) {
			t.Errorf("tree %d: %s, want %s", i, got[i].Hash, again[i].Hash)
		}
	}
}
