package gitrepo

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

// TestWalksMatchReference checks CommitsTouching and LastChange against a
// brute-force reading of a random history whose every state the test knows:
// many paths, so that the walks drop paths and shrink their trie on the way
// (see CommitsTouching), contents that come back to earlier ones, deletions.
func TestWalksMatchReference(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			h := sharedRefHistory(t, seed)
			h.check(t, func(t *testing.T) *Repo { return open(t, h.dir) })
		})
	}
}

// buildRefHistory commits a random history of seed in folder dir: many
// paths, so that the walks drop paths and shrink their trie on the way
// (see CommitsTouching), contents that come back to earlier ones,
// deletions. Tests take it through sharedRefHistory or copyRefHistory.
func buildRefHistory(t testing.TB, dir string, seed int64) refHistory {
	t.Helper()
	var files []string
	for i := 0; i < 40; i++ {
		files = append(files, fmt.Sprintf("d%d/s%d/f%d", i%3, i%5, i))
	}
	asked := append([]string{"never/there"}, files...)
	rng := rand.New(rand.NewSource(seed))
	must(t, gitfixture.Init(dir))
	state := map[string]string{} // path -> content; absent: not there
	for _, f := range files {
		state[f] = "0"
		must(t, gitfixture.WriteFile(dir, f, "0"))
	}
	first, err := gitfixture.Commit(dir, "import", "A", "a@x", t0)
	must(t, err)
	chain := []string{first}
	states := []map[string]string{copyState(state)}
	for i := 1; i <= 30; i++ {
		var touched []string // staged alone: the rest of the tree is as committed
		for n := 1 + rng.Intn(6); n > 0; n-- {
			f := files[rng.Intn(len(files))]
			touched = append(touched, f)
			if _, ok := state[f]; ok && rng.Intn(5) == 0 {
				must(t, gitfixture.Remove(dir, f))
				delete(state, f)
				continue
			}
			c := fmt.Sprint(rng.Intn(3))
			must(t, gitfixture.WriteFile(dir, f, c))
			state[f] = c
		}
		h, err := gitfixture.Commit(dir, fmt.Sprint("step ", i), "A", "a@x", t0.Add(time.Duration(i)*time.Minute), touched...)
		if err != nil {
			continue // nothing changed
		}
		chain = append(chain, h)
		states = append(states, copyState(state))
	}
	return refHistory{dir: dir, chain: chain, states: states, asked: asked, seed: seed}
}

// refHistory is a random history whose every state the test knows.
type refHistory struct {
	dir    string
	chain  []string            // the commits, oldest first
	states []map[string]string // per commit: path -> content
	asked  []string
	seed   int64
}

// check runs LastChange and CommitsTouching on repositories openRepo opens
// and compares them with a brute-force reading of h.
func (h refHistory) check(t *testing.T, openRepo func(*testing.T) *Repo) {
	t.Helper()
	chain, states, asked := h.chain, h.states, h.asked
	qrng := rand.New(rand.NewSource(h.seed * 7919))
	at := func(i int, p string) (string, bool) {
		if i < 0 {
			return "", false
		}
		c, ok := states[i][p]
		return c, ok
	}
	changedAt := func(i int, p string) bool {
		a, aok := at(i, p)
		b, bok := at(i-1, p)
		return a != b || aok != bok
	}
	head := len(chain) - 1

	// LastChange: the newest commit that changed each path.
	wantLast := map[string]string{}
	for _, p := range asked {
		for i := head; i >= 0; i-- {
			if changedAt(i, p) {
				wantLast[p] = chain[i]
				break
			}
		}
	}
	gotLast := map[string]string{}
	for p, c := range openRepo(t).LastChange(asked, 0) {
		gotLast[p] = c.Hash
	}
	if !reflect.DeepEqual(gotLast, wantLast) {
		t.Errorf("LastChange = %v\nwant %v", gotLast, wantLast)
	}

	// CommitsTouching: net change since base, newest first, limit.
	r := openRepo(t)
	for q := 0; q < 30; q++ {
		b := qrng.Intn(len(chain))
		limit := qrng.Intn(4)
		want := map[string][]string{}
		for _, p := range asked {
			bc, bok := at(b, p)
			for i := head; i > b; i-- {
				if c, ok := at(i, p); c == bc && ok == bok {
					break // as in base from here back: accounted for
				}
				if limit > 0 && len(want[p]) >= limit {
					break
				}
				if changedAt(i, p) {
					want[p] = append(want[p], chain[i])
				}
			}
		}
		got, err := r.CommitsTouching(Commit{Hash: chain[b]}, asked, limit)
		must(t, err)
		if g := hashMap(got); !reflect.DeepEqual(g, want) && !(len(g) == 0 && len(want) == 0) {
			t.Fatalf("query %d (base %d of %d, limit %d):\ngot  %v\nwant %v", q, b, head, limit, g, want)
		}
	}
}

func copyState(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
