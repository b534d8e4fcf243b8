package gitrepo

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

// TestChangedPaths: the files a commit changed against its first parent,
// a root commit adding all it holds, capped at max with more set.
func TestChangedPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	at := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	write := func(rel, s string) { t.Helper(); must(t, gitfixture.WriteFile(dir, rel, s)) }
	commit := func(msg, author string, when time.Time) string {
		t.Helper()
		h, err := gitfixture.Commit(dir, msg, author, author+"@example.com", when)
		must(t, err)
		return h
	}
	must(t, gitfixture.Init(dir))
	write("a.txt", "a\n")
	write("src/x/one.ts", "1\n")
	write("src/x/two.ts", "2\n")
	write("src/y/three.ts", "3\n")
	root := commit("root", "ana", at)
	write("src/x/two.ts", "22\n")
	write("src/new/four.ts", "4\n")
	must(t, gitfixture.Remove(dir, "a.txt"))
	second := commit("second", "bruno", at.Add(time.Hour))
	write("src/y/three.ts", "33\n")
	third := commit("third", "ana", at.Add(2*time.Hour))

	r := open(t, dir)
	tests := []struct {
		name string
		c    string
		max  int
		want []string
		more bool
	}{
		{"root adds everything", root, 0, []string{"a.txt", "src/x/one.ts", "src/x/two.ts", "src/y/three.ts"}, false},
		{"edit, add, delete", second, 0, []string{"src/new/four.ts", "src/x/two.ts", "a.txt"}, false},
		{"one file", third, 0, []string{"src/y/three.ts"}, false},
		{"capped", root, 2, []string{"a.txt", "src/x/one.ts"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, more, err := r.ChangedPaths(Commit{Hash: tt.c}, tt.max)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) || more != tt.more {
				t.Errorf("got %v (more %v), want %v (more %v)", got, more, tt.want, tt.more)
			}
		})
	}
	if _, _, err := r.ChangedPaths(Commit{Hash: "abc"}, 0); err == nil {
		t.Error("a short hash: no error")
	}

	// LastChangeAt: from the second commit, three.ts was last changed by the root.
	last := r.LastChangeAt(Commit{Hash: second}, []string{"src/y/three.ts", "src/x/two.ts", "nope"}, 0)
	if last["src/y/three.ts"].Hash != root || last["src/x/two.ts"].Hash != second || len(last) != 2 {
		t.Errorf("LastChangeAt = %v", last)
	}
	if got := r.LastChangeAt(Commit{Hash: "zz"}, []string{"a.txt"}, 0); len(got) != 0 {
		t.Errorf("LastChangeAt of a bad hash = %v", got)
	}
}

// changedWant is one ChangedPaths answer: the paths, more, and whether
// there was an error (and one of missing history).
type changedWant struct {
	paths        []string
	more         bool
	err, missing bool
}

func changedOf(paths []string, more bool, err error) changedWant {
	return changedWant{paths: paths, more: more, err: err != nil, missing: MissingHistory(err)}
}

// firstBounds are the (max, first) pairs TestChangedPathsFirstMatches asks.
var firstBounds = [][2]int{{200, 1}, {200, 2}, {200, 3}, {3, 1}, {3, 2}, {2, 2}, {1, 1}, {5, 0}}

// checkFirst asks r ChangedPathsFirst of every commit for firstBounds and
// holds each answer to ref's ChangedPaths alone: a full answer is
// ChangedPaths(c, max)'s, a cut one ChangedPaths(c, first)'s, the first
// paths of ChangedPaths(c, max)'s with more following.
func checkFirst(t *testing.T, name string, r, ref *Repo, commits []string) {
	t.Helper()
	for _, c := range commits {
		for _, b := range firstBounds {
			max, first := b[0], b[1]
			paths, more, full, err := r.ChangedPathsFirst(Commit{Hash: c, Short: c[:7]}, max, first)
			got := changedOf(paths, more, err)
			wantMax := changedOf(ref.ChangedPaths(Commit{Hash: c, Short: c[:7]}, max))
			if full {
				if !reflect.DeepEqual(got, wantMax) {
					t.Fatalf("%s: ChangedPathsFirst(%.7s, %d, %d) full %+v, ChangedPaths %+v", name, c, max, first, got, wantMax)
				}
				continue
			}
			wantFirst := changedOf(ref.ChangedPaths(Commit{Hash: c, Short: c[:7]}, first))
			if !reflect.DeepEqual(got, wantFirst) || !more || len(paths) != first || err != nil ||
				len(wantMax.paths) < first || !reflect.DeepEqual(wantMax.paths[:first], paths) || (len(wantMax.paths) == first && !wantMax.more) {
				t.Fatalf("%s: ChangedPathsFirst(%.7s, %d, %d) cut %+v; ChangedPaths(c, first) %+v, (c, max) %+v", name, c, max, first, got, wantFirst, wantMax)
			}
		}
	}
}

// TestChangedPathsFirstMatches: the first files of a commit's change
// (ChangedPathsFirst) on random histories, with merges, a shallow
// boundary, and bounds hit, cache off, cold and warm: a full answer is
// ChangedPaths(c, max)'s, a cut one its first paths; the table keeps cut
// answers apart from full ones.
func TestChangedPathsFirstMatches(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= 3; seed++ {
		h := copyRefHistory(t, seed)
		commits := h.chain
		if seed <= 2 {
			m := sharedMergeHistory(t, seed)
			checkFirst(t, fmt.Sprint("merges ", seed), open(t, m.dir), open(t, m.dir), append(append([]string(nil), m.chain...), m.side...))
		}
		for _, shallow := range []bool{false, true} {
			if shallow {
				must(t, os.WriteFile(filepath.Join(h.dir, ".git", "shallow"), []byte(h.chain[len(h.chain)/2]+"\n"), 0o644))
			}
			ref := open(t, h.dir)
			name := fmt.Sprintf("seed %d shallow %v", seed, shallow)
			checkFirst(t, name+" off", open(t, h.dir), ref, commits)
			o := &cachedOpener{dir: h.dir, c: diskcache.New(t.TempDir()), walks: true}
			checkFirst(t, name+" cold", o.open(t), ref, commits)
			o.save(t)
			checkFirst(t, name+" warm", o.open(t), ref, commits)
			o.save(t)
			checkFirst(t, name+" warm again", o.open(t), ref, commits)
			o.save(t)
		}
	}
}

// TestChangedPathsFirstTable: a cut answer the table keeps is never taken
// for a full one or for a cut one of another bound, and a full answer
// asked later in the run replaces it there.
func TestChangedPathsFirstTable(t *testing.T) {
	t.Parallel()
	h := sharedRefHistory(t, 2)
	ref := open(t, h.dir)
	var wide []string // commits that changed more than two files
	for _, c := range h.chain[1:] {
		if paths, _, _ := ref.ChangedPaths(Commit{Hash: c}, 200); len(paths) > 2 {
			wide = append(wide, c)
		}
	}
	if len(wide) == 0 {
		t.Fatal("no commit changed more than two files")
	}
	o := &cachedOpener{dir: h.dir, c: diskcache.New(t.TempDir()), walks: true}
	r := o.open(t)
	for _, c := range wide {
		if _, _, full, err := r.ChangedPathsFirst(Commit{Hash: c}, 200, 1); full || err != nil {
			t.Fatalf("%.7s: a cut answer expected (full %v, %v)", c, full, err)
		}
	}
	o.save(t)
	r = o.open(t)
	for _, c := range wide {
		paths, more, full, err := r.ChangedPathsFirst(Commit{Hash: c}, 200, 2)
		if want := changedOf(ref.ChangedPaths(Commit{Hash: c}, 2)); full || !reflect.DeepEqual(changedOf(paths, more, err), want) {
			t.Fatalf("%.7s: first 2 after a cut answer of 1 was kept: %v %v %v, want %+v", c, paths, more, full, want)
		}
		want := changedOf(ref.ChangedPaths(Commit{Hash: c}, 200))
		if got := changedOf(r.ChangedPaths(Commit{Hash: c}, 200)); !reflect.DeepEqual(got, want) {
			t.Fatalf("%.7s after a cut answer was kept: %+v, want %+v", c, got, want)
		}
	}
	o.save(t)
	// the cut answers of this run (bound 2) are replaced by the full ones
	r = o.open(t)
	for _, c := range wide {
		if _, _, full, _ := r.ChangedPathsFirst(Commit{Hash: c}, 200, 2); full {
			t.Fatalf("%.7s: the table did not keep the cut answer of 2", c)
		}
		if _, _, full, _ := r.ChangedPathsFirst(Commit{Hash: c}, 200, 200); !full {
			t.Fatalf("%.7s: not full", c)
		}
	}
	o.save(t)
	r = o.open(t)
	for _, c := range wide {
		paths, more, full, err := r.ChangedPathsFirst(Commit{Hash: c}, 200, 2)
		if want := changedOf(ref.ChangedPaths(Commit{Hash: c}, 200)); !full || !reflect.DeepEqual(changedOf(paths, more, err), want) {
			t.Fatalf("%.7s: the full answer was not kept: %v %v %v", c, paths, more, full)
		}
	}
	if st := r.cmemo.Stats(); st.Hits != len(wide) || st.Misses != 0 {
		t.Fatalf("last run: %+v, want %d hits", st, len(wide))
	}
}
