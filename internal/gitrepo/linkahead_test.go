package gitrepo

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// linkChain commits n commits in a new repository (one file changed each,
// every tenth also changing a second one), packed, through git
// fast-import; it returns the folder and the commits, oldest first.
func linkChain(t *testing.T, n int) (string, []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary to build the history with")
	}
	dir := t.TempDir()
	must(t, gitfixture.Init(dir))
	var in strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&in, "commit refs/heads/master\nmark :%d\ncommitter A <a@x> %d +0000\ndata 3\nc%02d\n", i+1, t0.Unix()+int64(i)*60, i%100)
		if i > 0 {
			fmt.Fprintf(&in, "from :%d\n", i)
		}
		body := fmt.Sprint(i)
		fmt.Fprintf(&in, "M 100644 inline a/f\ndata %d\n%s\n", len(body), body)
		if i%10 == 0 {
			fmt.Fprintf(&in, "M 100644 inline b/g\ndata %d\n%s\n", len(body), body)
		}
	}
	fmt.Fprintf(&in, "reset HEAD\nfrom :%d\n", n) // nothing: HEAD is the branch
	gitIn(t, dir, in.String(), "fast-import", "--quiet", "--export-marks=.git/marks")
	gitIn(t, dir, "", "symbolic-ref", "HEAD", "refs/heads/master")
	marks, err := os.ReadFile(filepath.Join(dir, ".git", "marks"))
	must(t, err)
	chain := make([]string, n)
	for _, line := range strings.Split(strings.TrimSpace(string(marks)), "\n") {
		var m int
		var h string
		if _, err := fmt.Sscanf(line, ":%d %s", &m, &h); err == nil && m >= 1 && m <= n {
			chain[m-1] = h
		}
	}
	must(t, repack(dir))
	return dir, chain
}

// gitIn runs git in dir with stdin in and returns its output.
func gitIn(t *testing.T, dir, in string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// walkAnswers is what the walks say of dir: LastChange of both files, and
// CommitsTouching since every tenth commit (errors as text).
func walkAnswers(t *testing.T, dir string, chain []string, ahead bool, cache *diskcache.Cache) string {
	t.Helper()
	r := open(t, dir)
	r.noAhead = !ahead
	if cache != nil {
		r.UseCache(cache)
	}
	var b strings.Builder
	last := r.LastChange([]string{"a/f", "b/g", "nowhere"}, 0)
	for _, p := range []string{"a/f", "b/g", "nowhere"} { // in order: a map's is random
		if c, ok := last[p]; ok {
			fmt.Fprintf(&b, "last %s %s\n", p, c.Hash)
		}
	}
	for i := 0; i < len(chain); i += 10 {
		got, err := r.CommitsTouching(Commit{Hash: chain[i]}, []string{"a/f", "b/g"}, 3)
		fmt.Fprintf(&b, "since %d: %v %v\n", i, len(got["a/f"]), err)
		for _, c := range got["b/g"] {
			fmt.Fprintf(&b, "  b/g %s\n", c.Hash)
		}
	}
	if cache != nil {
		must(t, r.SaveCache())
	}
	return b.String()
}

// The walks answer the same with the chain read ahead as without, cache
// off and on (each commit then read whole and verified), over a chain
// longer than the reader's lead.
func TestLinkAheadSameAnswers(t *testing.T) {
	t.Parallel()
	dir, chain := linkChain(t, 3*gitobj.ChainAhead)
	want := walkAnswers(t, dir, chain, false, nil)
	if got := walkAnswers(t, dir, chain, true, nil); got != want {
		t.Errorf("read ahead:\n%s\nwant:\n%s", got, want)
	}
	c := diskcache.New(t.TempDir())
	if got := walkAnswers(t, dir, chain, true, c); got != want {
		t.Errorf("read ahead, cache cold:\n%s\nwant:\n%s", got, want)
	}
	if got := walkAnswers(t, dir, chain, true, c); got != want {
		t.Errorf("read ahead, cache warm:\n%s\nwant:\n%s", got, want)
	}
}

// A commit the reader cannot read (here: not in the repository) stops it
// there; the walk reads that commit itself and ends the history there, as
// without the reader.
func TestLinkAheadStopsWhereTheWalkWould(t *testing.T) {
	t.Parallel()
	dir, chain := linkChain(t, 40)
	packWithout(t, dir, chain[20]) // the history behind commit 20 is gone
	want := walkAnswers(t, dir, chain, false, nil)
	if !strings.Contains(want, "since 0:") {
		t.Fatalf("no answers: %s", want)
	}
	if got := walkAnswers(t, dir, chain, true, nil); got != want {
		t.Errorf("read ahead:\n%s\nwant:\n%s", got, want)
	}
}

// Close stops a reader that is waiting for the walk to take what it read
// (a walk that stopped early), and waits for it.
func TestLinkAheadClose(t *testing.T) {
	t.Parallel()
	dir, chain := linkChain(t, 2*gitobj.ChainAhead)
	r, err := Open(dir)
	must(t, err)
	// one step of a walk from HEAD starts the reader
	if _, ok, err := r.parentLinks(links{hash: plumbing.NewHash(chain[len(chain)-1]), parent: plumbing.NewHash(chain[len(chain)-2])}); !ok || err != nil {
		t.Fatalf("parentLinks: %v %v", ok, err)
	}
	a := r.ahead
	if a == nil {
		t.Fatal("no reader started")
	}
	must(t, r.Close())
	select {
	case <-a.Done():
	default:
		t.Fatal("Close returned before the reader ended")
	}
	if r.ahead != nil {
		t.Error("the reader is still set after Close")
	}
}

// packWithout repacks the repository at dir with every object but gone.
func packWithout(t *testing.T, dir, gone string) {
	t.Helper()
	var keep []string
	for _, line := range strings.Split(strings.TrimSpace(gitIn(t, dir, "", "rev-list", "--objects", "--all")), "\n") {
		if h, _, _ := strings.Cut(line, " "); h != gone {
			keep = append(keep, h)
		}
	}
	tmp := t.TempDir()
	gitIn(t, dir, strings.Join(keep, "\n")+"\n", "pack-objects", "-q", filepath.Join(tmp, "pack"))
	old, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*"))
	must(t, err)
	for _, p := range old {
		must(t, os.Remove(p))
	}
	made, err := filepath.Glob(filepath.Join(tmp, "pack-*"))
	must(t, err)
	for _, p := range made {
		must(t, os.Rename(p, filepath.Join(dir, ".git", "objects", "pack", filepath.Base(p))))
	}
}

// A commit the reader reads with the cache on is verified as the walk's
// own reads are: a commit whose content is another's (a loose object that
// lies, read ahead) leaves nothing in the cache.
func TestLinkAheadVerifiesWhatItReads(t *testing.T) {
	t.Parallel()
	dir, chain := linkChain(t, 40)
	x, y := chain[30], chain[10]
	packWithout(t, dir, x)
	content := gitIn(t, dir, "", "cat-file", "commit", y)
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	fmt.Fprintf(w, "commit %d\x00%s", len(content), content)
	must(t, w.Close())
	p := looseObject(dir, plumbing.NewHash(x))
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, z.Bytes(), 0o444))

	c := diskcache.New(t.TempDir())
	r := open(t, dir)
	r.UseCache(c)
	r.LastChange([]string{"a/f", "b/g"}, 0) // from HEAD (39) back through x (30)
	if r.ahead == nil {
		t.Fatal("the walk read no chain ahead")
	}
	if err := r.SaveCache(); !errors.Is(err, errUnverified) {
		t.Fatalf("SaveCache after a lying commit read ahead: %v", err)
	}
	if names := gitTables(t, c); len(names) != 0 {
		t.Fatalf("a lying commit left tables: %v", names)
	}
}

// A walk that reaches commits an earlier walk of the Repo read (their links
// remembered) still takes them from the chain reader, which then reads
// their trees ahead: one reader for the whole walk, started at HEAD's
// parent, not one started again past the remembered commits (the walk
// reading the trees of those itself meanwhile). The answers are those of
// the walk without a reader.
func TestLinkAheadRememberedCommits(t *testing.T) {
	t.Parallel()
	dir, chain := linkChain(t, 60)
	answers := func(ahead bool) (string, *Repo) {
		r := open(t, dir)
		r.noAhead = !ahead
		var b strings.Builder
		last := r.LastChange([]string{"b/g"}, 0) // walks to commit 50: ten commits remembered
		fmt.Fprintf(&b, "last %s\n", last["b/g"].Hash)
		got, err := r.CommitsTouching(Commit{Hash: chain[0]}, []string{"a/f", "b/g"}, 0)
		fmt.Fprintf(&b, "%v %d %d\n", err, len(got["a/f"]), len(got["b/g"]))
		for _, c := range got["a/f"] {
			b.WriteString(c.Hash[:10] + " ")
		}
		return b.String(), r
	}
	want, _ := answers(false)
	got, r := answers(true)
	if got != want {
		t.Errorf("read ahead:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(want, "last "+chain[50]) || !strings.Contains(want, "<nil> 59 5") {
		t.Fatalf("unexpected answers: %s", want)
	}
	if n := r.ahead.Taken; n != len(chain)-1 {
		t.Errorf("the last walk's reader gave %d commits, want %d (every parent from HEAD's)", n, len(chain)-1)
	}
}
