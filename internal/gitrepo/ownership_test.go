package gitrepo

import (
	"reflect"
	"testing"
	"time"

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
