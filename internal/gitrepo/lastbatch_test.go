package gitrepo

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
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

// TestLastChangesWithHistory: LastChangesWith, taking a History's changes
// for the paths it knows in its newest commits, answers random batches as
// LastChangesAt does alone — the same questions known, each known answer
// LastChangeAt's — on random histories with merges and a shallow boundary,
// with bounds hit, Histories walked for none, some or all of the paths
// asked, with the cache off and on.
func TestLastChangesWithHistory(t *testing.T) {
	t.Parallel()
	type hist struct {
		name  string
		dir   string
		chain []string
		asked []string
	}
	var hs []hist
	for seed := int64(1); seed <= 2; seed++ {
		m := sharedMergeHistory(t, seed)
		hs = append(hs, hist{fmt.Sprint("merges ", seed), m.dir, m.chain, m.asked})
		r := copyRefHistory(t, seed+1)
		hs = append(hs, hist{fmt.Sprint("plain ", seed+1), r.dir, r.chain, r.asked})
		s := copyRefHistory(t, seed+1)
		must(t, os.WriteFile(filepath.Join(s.dir, ".git", "shallow"), []byte(s.chain[len(s.chain)/3]+"\n"), 0o644))
		hs = append(hs, hist{fmt.Sprint("shallow ", seed+1), s.dir, s.chain, s.asked})
	}
	for hi, h := range hs {
		rng := rand.New(rand.NewSource(int64(hi) + 17))
		cache := diskcache.New(t.TempDir())
		used := 0 // batches the History answered some paths of
		for round := 0; round < 8; round++ {
			pick := func(n int) []string {
				var out []string
				for ; n > 0; n-- {
					out = append(out, h.asked[rng.Intn(len(h.asked))])
				}
				return out
			}
			var qs []LastChangeQuestion
			for n := 2 + rng.Intn(8); n > 0; n-- {
				qs = append(qs, LastChangeQuestion{At: Commit{Hash: h.chain[rng.Intn(len(h.chain))]}, Paths: pick(1 + rng.Intn(6))})
			}
			limit := []int{0, 1, 3, 2000}[round%4]
			var bases []Commit
			for n := 1 + rng.Intn(4); n > 0; n-- {
				bases = append(bases, Commit{Hash: h.chain[rng.Intn(len(h.chain))]})
			}
			var walked []string
			switch round % 3 {
			case 0:
				walked = h.asked
			case 1:
				walked = pick(len(h.asked) / 2)
			default:
				walked = pick(3)
			}
			want, wantKnown := open(t, h.dir).LastChangesAt(qs, limit)
			for i, q := range qs {
				if wantKnown[i] {
					if alone := open(t, h.dir).LastChangeAt(q.At, q.Paths, limit); !reflect.DeepEqual(want[i], alone) {
						t.Fatalf("%s round %d: LastChangesAt %v, LastChangeAt %v", h.name, round, want[i], alone)
					}
				}
			}
			for _, withCache := range []bool{false, true} {
				r := open(t, h.dir)
				if withCache {
					r.UseCache(cache)
				}
				hy := r.HistoryFor(bases, walked, 0)
				got, gotKnown := r.LastChangesWith(qs, limit, hy)
				if !reflect.DeepEqual(gotKnown, wantKnown) {
					t.Fatalf("%s round %d cache %v: known %v, want %v", h.name, round, withCache, gotKnown, wantKnown)
				}
				for i := range qs {
					if gotKnown[i] && !reflect.DeepEqual(got[i], want[i]) {
						t.Fatalf("%s round %d cache %v question %d (%.7s %v, limit %d, History of %v at %v):\ngot  %v\nwant %v",
							h.name, round, withCache, i, qs[i].At.Hash, qs[i].Paths, limit, walked, bases, got[i], want[i])
					}
				}
				if hy != nil && hy.known > 0 {
					used++
				}
				if withCache {
					must(t, r.SaveCache())
				}
			}
		}
		if used == 0 {
			t.Fatalf("%s: no History took part", h.name)
		}
	}
	// a History of another Repo is not used
	h := sharedRefHistory(t, 1)
	qs := []LastChangeQuestion{{At: Commit{Hash: h.chain[len(h.chain)-1]}, Paths: h.asked}, {At: Commit{Hash: h.chain[1]}, Paths: h.asked[:3]}}
	want, wantKnown := open(t, h.dir).LastChangesAt(qs, 0)
	other := open(t, h.dir).HistoryFor([]Commit{{Hash: h.chain[0]}, {Hash: h.chain[2]}}, h.asked, 0)
	if got, known := open(t, h.dir).LastChangesWith(qs, 0, other); !reflect.DeepEqual(got, want) || !reflect.DeepEqual(known, wantKnown) {
		t.Fatalf("with another Repo's History: %v %v, want %v %v", got, known, want, wantKnown)
	}
}
