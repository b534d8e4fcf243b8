package gitrepo

import (
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

// TestWalksKeepHead checks that every history walk of a Repo starts from
// the HEAD its first walk found (a commit made since is not seen), and
// that a Repo opened after the commit walks from it.
func TestWalksKeepHead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, initRepoWithFile(dir))
	r := open(t, dir)
	first := r.LastChange([]string{"f"}, 0)["f"]
	if first.IsZero() {
		t.Fatal("no commit changed f")
	}
	must(t, gitfixture.WriteFile(dir, "f", "y"))
	second, err := gitfixture.Commit(dir, "two", "A", "a@x", t0.Add(time.Hour))
	must(t, err)
	if got := r.LastChange([]string{"f"}, 0)["f"]; got.Hash != first.Hash {
		t.Errorf("second walk of the same Repo: %s, want %s", got.Hash, first.Hash)
	}
	got, err := r.CommitsTouching(Commit{}, []string{"f"}, 0)
	must(t, err)
	if len(got["f"]) != 1 || got["f"][0].Hash != first.Hash {
		t.Errorf("CommitsTouching of the same Repo: %v", got["f"])
	}
	if h, err := r.Head(); err != nil || h.Hash != second {
		t.Errorf("Head: %v %v, want %s", h, err, second)
	}
	if got := open(t, dir).LastChange([]string{"f"}, 0)["f"]; got.Hash != second {
		t.Errorf("a new Repo: %s, want %s", got.Hash, second)
	}
}
