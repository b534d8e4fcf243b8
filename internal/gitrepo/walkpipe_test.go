package gitrepo

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

// randomHistory commits, through git fast-import, n first-parent commits
// that each add, edit or delete one to three files of a tree of nested
// folders (so that consecutive trees are deltas of each other once
// packed), every seventh a merge of a side branch of two commits of its
// own; it returns the folder, the first-parent chain (oldest first) and
// every path ever written.
func randomHistory(t *testing.T, rng *rand.Rand, n int) (string, []string, []string) {
	t.Helper()
	dir := t.TempDir()
	must(t, gitfixture.Init(dir))
	var paths []string
	for d := 0; d < 4; d++ {
		for e := 0; e < 3; e++ {
			for f := 0; f < 6; f++ {
				paths = append(paths, fmt.Sprintf("d%d/e%d/f%d.txt", d, e, f))
			}
		}
	}
	paths = append(paths, "top.txt", "d0/loose.txt")
	var in strings.Builder
	mark, when := 0, t0.Unix()
	commit := func(branch string, from int, merge int) int {
		mark++
		when += 60
		fmt.Fprintf(&in, "commit refs/heads/%s\nmark :%d\ncommitter A <a@x> %d +0000\ndata 4\nc%03d\n", branch, mark, when, mark%1000)
		if from > 0 {
			fmt.Fprintf(&in, "from :%d\n", from)
		}
		if merge > 0 {
			fmt.Fprintf(&in, "merge :%d\n", merge)
		}
		for k := 1 + rng.IntN(3); k > 0; k-- {
			p := paths[rng.IntN(len(paths))]
			if mark > 1 && rng.IntN(6) == 0 {
				fmt.Fprintf(&in, "D %s\n", p)
				continue
			}
			body := fmt.Sprint(mark, p)
			fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", p, len(body), body)
		}
		return mark
	}
	marks := make([]int, 0, n)
	head := 0
	for i := 0; i < n; i++ {
		if i > 0 && i%7 == 0 {
			side := commit("side", head, 0)
			side = commit("side", side, 0)
			head = commit("master", head, side)
		} else {
			head = commit("master", head, 0)
		}
		marks = append(marks, head)
	}
	gitIn(t, dir, in.String(), "fast-import", "--quiet", "--export-marks=.git/marks")
	gitIn(t, dir, "", "symbolic-ref", "HEAD", "refs/heads/master")
	raw, err := os.ReadFile(filepath.Join(dir, ".git", "marks"))
	must(t, err)
	byMark := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var m int
		var h string
		if _, err := fmt.Sscanf(line, ":%d %s", &m, &h); err == nil {
			byMark[m] = h
		}
	}
	chain := make([]string, n)
	for i, m := range marks {
		chain[i] = byMark[m]
	}
	must(t, repack(dir))
	return dir, chain, paths
}

// pipeAnswers is what the walks of one Repo say of dir, read ahead
// (pipelined) or not: LastChange with and without a bound, CommitsTouching
// since several commits with several limits (an early stop each), every
// answer and error as text. It checks that no reader goroutine outlives a
// walk.
func pipeAnswers(t *testing.T, dir string, chain, sets [][]string, ahead bool) string {
	t.Helper()
	r, err := Open(dir)
	must(t, err)
	defer func() { must(t, r.Close()) }()
	r.noAhead = !ahead
	var b strings.Builder
	ended := func(what string) {
		if a := r.ahead; a != nil {
			select {
			case <-a.Done():
			default:
				t.Fatalf("%s: the chain reader still runs after the walk", what)
			}
		}
	}
	for si, paths := range sets {
		for _, bound := range []int{0, 5, 40} {
			last := r.LastChange(paths, bound)
			ended("LastChange")
			for _, p := range paths {
				if c, ok := last[p]; ok {
					fmt.Fprintf(&b, "set %d last(%d) %s %s\n", si, bound, p, c.Hash[:10])
				}
			}
		}
		for i := 0; i < len(chain); i += 1 + len(chain)/6 {
			for _, limit := range []int{0, 1, 3} {
				got, err := r.CommitsTouching(Commit{Hash: chain[i][0]}, paths, limit)
				ended("CommitsTouching")
				fmt.Fprintf(&b, "set %d since %d limit %d: %v\n", si, i, limit, err)
				keys := make([]string, 0, len(got))
				for p := range got {
					keys = append(keys, p)
				}
				sort.Strings(keys)
				for _, p := range keys {
					fmt.Fprintf(&b, "  %s:", p)
					for _, c := range got[p] {
						fmt.Fprintf(&b, " %s", c.Hash[:10])
					}
					b.WriteByte('\n')
				}
			}
		}
	}
	return b.String()
}

// TestPipelinedWalkRandomHistories: on random histories (merges, trees
// that are deltas of each other), cut short by a shallow boundary or a
// commit missing mid-chain, the walks with the chain and its trees read
// ahead on their own goroutines answer as the walk that reads everything
// itself, errors included; every reader has ended once its walk returns,
// and none is left running once the Repo is closed. The histories and path
// sets are drawn one after the other from one seeded source (the same ones
// on every run); the four variants' walks then run as parallel subtests
// (their Repos share nothing), all ended before the goroutines are counted.
func TestPipelinedWalkRandomHistories(t *testing.T) {
	before := runtime.NumGoroutine()
	rng := rand.New(rand.NewPCG(25, 25))
	type variantCase struct {
		name   string
		dir    string
		starts [][]string
		sets   [][]string
	}
	var cases []variantCase
	for _, variant := range []string{"plain", "shallow", "missing commit", "missing tree"} {
		dir, chain, paths := randomHistory(t, rng, 180+rng.IntN(80))
		cut := len(chain)/3 + rng.IntN(len(chain)/3)
		switch variant {
		case "shallow":
			must(t, os.WriteFile(filepath.Join(dir, ".git", "shallow"), []byte(chain[cut]+"\n"), 0o644))
		case "missing commit":
			packWithout(t, dir, chain[cut])
		case "missing tree":
			packWithout(t, dir, strings.TrimSpace(gitIn(t, dir, "", "rev-parse", chain[cut]+"^{tree}")))
		}
		var sets [][]string
		for k := 0; k < 3; k++ {
			var set []string
			for _, p := range paths {
				if rng.IntN(4) == 0 {
					set = append(set, p)
				}
			}
			sets = append(sets, append(set, "nowhere/at/all"))
		}
		sets = append(sets, paths) // every path: the trie's folders all read ahead
		starts := make([][]string, len(chain))
		for i, h := range chain {
			starts[i] = []string{h}
		}
		cases = append(cases, variantCase{variant, dir, starts, sets})
	}
	t.Run("variants", func(t *testing.T) {
		for _, vc := range cases {
			t.Run(vc.name, func(t *testing.T) {
				t.Parallel()
				want := pipeAnswers(t, vc.dir, vc.starts, vc.sets, false)
				if strings.Count(want, "\n") < 50 {
					t.Fatalf("%s: too little to compare:\n%s", vc.name, want)
				}
				if got := pipeAnswers(t, vc.dir, vc.starts, vc.sets, true); got != want {
					t.Errorf("%s: read ahead:\n%s\nwant:\n%s", vc.name, got, want)
				}
			})
		}
	})
	// no goroutine of the readers is left (polled: others of the runtime
	// may take a moment to end)
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left running after the walks (%d before):\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
	}
}
