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

// A walk sets the paths it follows for the reader (Repo.want), so that the
// reader's items carry their trees.
func TestTreeAheadWalkWantsItsPaths(t *testing.T) {
	t.Parallel()
	dir, _ := linkChain(t, 20)
	r := open(t, dir)
	r.LastChange([]string{"a/f", "b/g"}, 0)
	if r.ahead == nil || r.want == nil || len(r.want.Paths) != 1 {
		t.Fatalf("reader %v, paths %v: want a reader and b/g's trie (a/f found at HEAD)", r.ahead != nil, r.want)
	}
}
