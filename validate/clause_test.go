package validate

import (
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
)

// TestClauseMemoEqualsByClause: the Run's kept "changed by" texts are
// byClause's, for commit lists that differ in one field each (hash, short,
// author, email, time to the second, order), asked twice through one Run.
func TestClauseMemoEqualsByClause(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	a := gitrepo.Commit{Hash: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", Short: "aaaaaaa", Author: "Ana", Email: "ana@x", When: at}
	b := gitrepo.Commit{Hash: "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", Author: "", Email: "bo@x", When: at.Add(time.Hour)}
	variants := [][]gitrepo.Commit{
		nil,
		{a},
		{b},
		{a, b},
		{b, a},
		{func() gitrepo.Commit { c := a; c.Short = "aaaaaaaa"; return c }()},
		{func() gitrepo.Commit { c := a; c.Author = "Ana B"; return c }()},
		{func() gitrepo.Commit { c := a; c.Author = ""; return c }()},
		{func() gitrepo.Commit { c := a; c.Email = "other@x"; c.Author = ""; return c }()},
		{func() gitrepo.Commit { c := a; c.When = at.Add(time.Second); return c }()},
		{func() gitrepo.Commit { c := a; c.When = at.In(time.FixedZone("x", 3600)); return c }()},
		{func() gitrepo.Commit {
			c := a
			c.Hash = "cccccccccccccccccccccccccccccccccccccccc"
			c.Short = ""
			return c
		}()},
	}
	v := &validator{in: Input{Run: &Run{}}}
	for round := 0; round < 2; round++ {
		for i, by := range variants {
			got, detail := v.clause(by)
			if want := byClause(true, false, by); got != want || detail != "changed "+want {
				t.Errorf("round %d, variant %d: %q, %q, want %q", round, i, got, detail, want)
			}
		}
	}
	if got := len(v.in.Run.clauses); got != len(variants)-2 { // nil is not kept; the other zone is the same text
		t.Errorf("%d texts kept, want %d", got, len(variants)-2)
	}
}
