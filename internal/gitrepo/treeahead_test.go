package gitrepo

import (
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// A folder's tree gone from the repository (here: the tree of a at commit
// 20, whose history is otherwise whole) is not read ahead: the walks read
// it themselves and answer as without the reader, cache off and on.
func TestTreeAheadMissingTree(t *testing.T) {
	t.Parallel()
	dir, chain := linkChain(t, 40)
	packWithout(t, dir, strings.TrimSpace(gitIn(t, dir, "", "rev-parse", chain[20]+":a")))
	want := walkAnswers(t, dir, chain, false, nil)
	if !strings.Contains(want, "since 0:") {
		t.Fatalf("no answers: %s", want)
	}
	if got := walkAnswers(t, dir, chain, true, nil); got != want {
		t.Errorf("read ahead:\n%s\nwant:\n%s", got, want)
	}
	if got := walkAnswers(t, dir, chain, true, diskcache.New(t.TempDir())); got != want {
		t.Errorf("read ahead, cache on:\n%s\nwant:\n%s", got, want)
	}
}

// A walk sets the paths it follows for the reader (Repo.want) while it
// runs, so that the reader's items carry their trees, and clears them when
// it ends: another chain's reading (a batch placing its bases) reads no
// trees for paths no walk follows.
func TestTreeAheadWalkWantsItsPaths(t *testing.T) {
	t.Parallel()
	dir, chain := linkChain(t, 20)
	r := open(t, dir)
	r.LastChange([]string{"a/f", "b/g"}, 0)
	if r.ahead == nil || r.want != nil {
		t.Fatalf("reader %v, paths %v: want a reader, and no paths once the walk ended", r.ahead != nil, r.want)
	}
	if _, err := r.CommitsTouching(Commit{Hash: chain[5]}, []string{"a/f"}, 0); err != nil || r.want != nil {
		t.Fatalf("CommitsTouching: %v, paths %v after it", err, r.want)
	}
}
