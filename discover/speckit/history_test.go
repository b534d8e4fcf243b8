package speckit_test

import (
	"os"
	"path/filepath"
	"strings"
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
	if !strings.HasPrefix(first.Resume.Note, "no current feature: branch main names no feature folder; ") && !strings.HasPrefix(first.Resume.Note, "no current feature: branch master names no feature folder; ") {
		t.Errorf("note = %q", first.Resume.Note)
	}
	// orchestrate's answer, named beside the framework's (none)
	if !strings.Contains(first.Resume.Note, "orchestrate resumes it: its tasks.md changed last (last commit ") || first.Resume.FrameworkNext != "no answer" || !first.Resume.Differs {
		t.Errorf("first resume = %+v", first.Resume)
	}
	if strings.Contains(second.Resume.Note, "orchestrate resumes it") || second.Resume.Differs {
		t.Errorf("second resume = %+v", second.Resume)
	}
	if len(res.Findings) != 1 || !strings.Contains(res.Findings[0].Message, "orchestrate resumes the partly done feature whose tasks.md changed last: 002-export-csv (last commit ") {
		t.Errorf("findings = %v", res.Findings)
	}
}

// TestChooseAgainstModTime: without an answer from the layout, the
// partly done feature whose tasks.md has the newest commit is chosen even
// when the modification times (a fresh clone, a touch) say otherwise; a
// stale feature.json's feature is named as the framework's answer; an
// uncommitted tasks.md is dated by its modification time; without git the
// modification time decides, ties to the highest id.
func TestChooseAgainstModTime(t *testing.T) {
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	tasks := func(done bool) string {
		box := " "
		if done {
			box = "x"
		}
		return "## Phase 1: Setup\n- [" + box + "] T001 a\n- [ ] T002 b\n"
	}
	tests := []struct {
		name    string
		noGit   bool
		dirty   string // a tasks.md edited after the commits (made newest on disk)
		fjStale bool   // feature.json names the finished 001
		mtimes  map[string]string
		chosen  string
		by      string
		fwNext  string
	}{
		{name: "commit beats modification time", mtimes: map[string]string{"specs/002-export-csv/tasks.md": "2026-11-09T00:00:00Z", "specs/003-search/tasks.md": "2026-11-08T00:00:00Z"},
			chosen: "003-search", by: "last commit ", fwNext: "no answer"},
		{name: "stale feature.json: its feature is the framework's answer", fjStale: true, mtimes: map[string]string{"specs/002-export-csv/tasks.md": "2026-11-09T00:00:00Z"},
			chosen: "003-search", by: "last commit ", fwNext: "001-login (.specify/feature.json, stale)"},
		{name: "uncommitted tasks.md: modification time", dirty: "specs/002-export-csv/tasks.md", mtimes: map[string]string{"specs/002-export-csv/tasks.md": "2026-11-09T00:00:00Z", "specs/003-search/tasks.md": "2026-11-01T00:00:00Z"},
			chosen: "002-export-csv", by: "by modification time 2026-11-09", fwNext: "no answer"},
		{name: "no git: modification time, ties to the highest id", noGit: true, mtimes: map[string]string{"specs/002-export-csv/tasks.md": "2026-11-09T00:00:00Z", "specs/003-search/tasks.md": "2026-11-09T00:00:00Z"},
			chosen: "003-search", by: "by modification time, no git", fwNext: "no answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(gitfixture.Init(dir))
			must(gitfixture.WriteFile(dir, ".specify/memory/constitution.md", "# Constitution\n"))
			must(gitfixture.WriteFile(dir, ".specify/init-options.json", `{"speckit_version":"0.8.1"}`))
			must(gitfixture.WriteFile(dir, "specs/001-login/tasks.md", "## Phase 1\n- [x] T001 a\n"))
			must(gitfixture.WriteFile(dir, "specs/002-export-csv/tasks.md", tasks(true)))
			must(gitfixture.WriteFile(dir, "specs/003-search/tasks.md", tasks(false)))
			if tt.fjStale {
				must(gitfixture.WriteFile(dir, ".specify/feature.json", `{"feature_directory":"specs/001-login"}`))
			}
			_, err := gitfixture.Commit(dir, "features", "Dev", "dev@example.com", at("2026-11-01T10:00:00Z"), ".specify", "specs")
			must(err)
			must(gitfixture.WriteFile(dir, "specs/003-search/tasks.md", tasks(true)))
			_, err = gitfixture.Commit(dir, "003: T001", "Dev", "dev@example.com", at("2026-11-02T10:00:00Z"), "specs")
			must(err)
			if tt.dirty != "" {
				must(gitfixture.WriteFile(dir, tt.dirty, tasks(true)+"- [ ] T003 c\n"))
			}
			for p, w := range tt.mtimes {
				must(os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), at(w), at(w)))
			}
			r, _ := source.NewRepo(dir, config.Default())
			if !tt.noGit {
				g, err := gitrepo.Open(dir)
				must(err)
				defer g.Close()
				r.Times = func(paths []string) map[string]source.Stamp {
					out := map[string]source.Stamp{}
					for p, c := range g.LastCommitted(paths, 100) {
						out[p] = source.Stamp{When: c.When, From: "git:" + c.Short}
					}
					return out
				}
			}
			cs, _ := speckit.SpecKitSource.Scan(r)
			var chosen []string
			for _, c := range cs {
				if c.Resume != nil && c.Resume.Differs {
					chosen = append(chosen, c.Key)
					if !strings.Contains(c.Resume.Note, tt.by) || c.Resume.FrameworkNext != tt.fwNext {
						t.Errorf("%s: note %q next %q, want %q and %q", c.Key, c.Resume.Note, c.Resume.FrameworkNext, tt.by, tt.fwNext)
					}
				}
			}
			if len(chosen) != 1 || chosen[0] != tt.chosen {
				t.Errorf("chosen %v, want [%s]", chosen, tt.chosen)
			}
		})
	}
}
