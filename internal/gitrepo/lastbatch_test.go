package gitrepo

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// TestLastChangesAtMatchesLastChangeAt asks random batches of questions
// (commits of the chain, subsets of the paths, bounds) and checks every
// known answer against LastChangeAt asked alone, with the cache off, empty
// and filled; questions that cannot be placed (an unknown commit, a path
// not clean) are left unknown.
func TestLastChangesAtMatchesLastChangeAt(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			h := sharedRefHistory(t, seed)
			cache := diskcache.New(t.TempDir())
			opens := map[string]func() *Repo{
				"off": func() *Repo { return open(t, h.dir) },
				"cache": func() *Repo {
					r := open(t, h.dir)
					r.UseCache(cache)
					return r
				},
			}
			rng := rand.New(rand.NewSource(seed))
			for round := 0; round < 6; round++ {
				var qs []LastChangeQuestion
				for n := 2 + rng.Intn(8); n > 0; n-- {
					var paths []string
					for k := 1 + rng.Intn(6); k > 0; k-- {
						paths = append(paths, h.asked[rng.Intn(len(h.asked))])
					}
					qs = append(qs, LastChangeQuestion{At: Commit{Hash: h.chain[rng.Intn(len(h.chain))]}, Paths: paths})
				}
				qs = append(qs,
					LastChangeQuestion{At: Commit{Hash: "0123456789012345678901234567890123456789"}, Paths: []string{h.asked[1]}},
					LastChangeQuestion{At: Commit{Hash: h.chain[0]}, Paths: []string{"./" + h.asked[1]}})
				limit := []int{0, 1, 3, 2000}[round%4]
				// each question asked alone, of a Repo of its own, once for
				// both batches (the last two are not placed)
				wants := make([]map[string]Commit, len(qs)-2)
				for i, q := range qs[:len(wants)] {
					wants[i] = opens["off"]().LastChangeAt(q.At, q.Paths, limit)
				}
				for _, name := range []string{"off", "cache"} {
					r := opens[name]()
					answers, known := r.LastChangesAt(qs, limit)
					placed := 0
					for i, q := range qs {
						if !known[i] {
							continue
						}
						placed++
						if i < len(wants) && !reflect.DeepEqual(answers[i], wants[i]) {
							t.Fatalf("%s round %d question %d (%v, limit %d):\ngot  %v\nwant %v", name, round, i, q.Paths, limit, answers[i], wants[i])
						}
					}
					if placed != len(qs)-2 || known[len(qs)-1] || known[len(qs)-2] {
						t.Fatalf("%s round %d: known %v", name, round, known)
					}
					if name == "cache" {
						must(t, r.SaveCache())
					}
				}
			}
		})
	}
}

// TestLastChangesAtEmpty: no questions, no paths, no commits.
func TestLastChangesAtEmpty(t *testing.T) {
	t.Parallel()
	h := sharedRefHistory(t, 1)
	r := open(t, h.dir)
	a, k := r.LastChangesAt(nil, 10)
	if len(a) != 0 || len(k) != 0 {
		t.Fatalf("got %v %v", a, k)
	}
	a, k = r.LastChangesAt([]LastChangeQuestion{{At: Commit{Hash: h.chain[0]}}, {At: Commit{Hash: "nope"}, Paths: []string{"a"}}}, 10)
	if k[0] || k[1] || a[0] != nil || a[1] != nil {
		t.Fatalf("got %v %v", a, k)
	}
}
