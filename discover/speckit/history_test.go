package speckit_test

import (
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/discover/speckit"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
)

// TestRecencyFromHistory builds real history: two partial features on
// main (no current feature in V1), 003's tasks.md last ticked before 002's.
// The time work stopped is tasks.md's last commit, so 002 comes first
// (FORMATS rec. 7: the newest tasks.md commit wins without an answer).
func TestRecencyFromHistory(t *testing.T) {
	dir := t.TempDir()
	if err := gitfixture.Init(dir); err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	write := func(rel, content string) {
		if err := gitfixture.WriteFile(dir, rel, content); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(msg, when string, paths ...string) {
		if _, err := gitfixture.Commit(dir, msg, "Dev", "dev@example.com", at(when), paths...); err != nil {
			t.Fatal(err)
		}
	}
	write(".specify/memory/constitution.md", "# Constitution\n")
	write("specs/002-export-csv/tasks.md", "## Phase 1: Setup\n- [ ] T001 a\n- [ ] T002 b\n")
	write("specs/003-search/tasks.md", "## Phase 1: Setup\n- [ ] T001 a\n- [ ] T002 b\n")
	commit("tasks", "2026-11-01T10:00:00Z", ".specify", "specs")
	write("specs/003-search/tasks.md", "## Phase 1: Setup\n- [x] T001 a\n- [ ] T002 b\n")
	commit("003: T001", "2026-11-02T10:00:00Z", "specs")
	write("specs/002-export-csv/tasks.md", "## Phase 1: Setup\n- [x] T001 a\n- [ ] T002 b\n")
	commit("002: T001", "2026-11-03T10:00:00Z", "specs")

	g, err := gitrepo.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := source.NewRepo(dir, config.Default())
	res := discover.Scan(r, discover.Options{
		Sources: []source.Source{speckit.SpecKitSource},
		Times: func(paths []string) map[string]discover.Stamp {
			out := map[string]discover.Stamp{}
			for p, c := range g.LastChange(paths, 100) {
				out[p] = discover.Stamp{When: c.When, From: "git:" + c.Short}
			}
			return out
		},
	})
	if len(res.Candidates) != 2 {
		t.Fatalf("%d candidates", len(res.Candidates))
	}
	first, second := res.Candidates[0], res.Candidates[1]
	if first.ID != "feature:002-export-csv" || !first.UpdatedAt.Equal(at("2026-11-03T10:00:00Z")) || first.UpdatedFrom[:4] != "git:" {
		t.Errorf("first = %s at %s from %s", first.ID, first.UpdatedAt, first.UpdatedFrom)
	}
	if second.ID != "feature:003-search" || !second.UpdatedAt.Equal(at("2026-11-02T10:00:00Z")) {
		t.Errorf("second = %s at %s", second.ID, second.UpdatedAt)
	}
	if first.Resume.Note != "no current feature: branch main names no feature folder" && first.Resume.Note != "no current feature: branch master names no feature folder" {
		t.Errorf("note = %q", first.Resume.Note)
	}
}
