package gsd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestFreshnessFromHistory builds real history with two phases, each with
// an unsummarised plan and a pause note, and sets modification times and
// in-file timestamps against the commits: the phase in flight is the one
// named by the note git says is newest (FORMATS rec. 11: commit time first,
// in-file timestamps as the tie-break), and the modification time decides
// only without git.
func TestFreshnessFromHistory(t *testing.T) {
	const p5, p6 = ".planning/phases/05-search/", ".planning/phases/06-export/"
	const n5, n6 = p5 + ".continue-here.md", p6 + ".continue-here.md"
	day := func(d int) time.Time { return time.Date(2025, 4, d, 9, 0, 0, 0, time.UTC) }
	note := func(phase, at string) string {
		return strings.Replace(pause(phase, "in_progress"), "2025-03-03T09:00:00Z", at, 1)
	}
	stateNone := "# Project State\n\n## Current Position\n\nPhase: 5 of 9 (Search)\nPlan: 1 of 1\nStatus: Executing\n\n## Session Continuity\n\nStopped at: Paused\nResume file: None\n"
	tests := []struct {
		name       string
		sameCommit bool // both notes in one commit (else n5 last)
		withState  bool // a STATE.md saying Resume file: None, committed after the notes
		noGit      bool
		flight     string
		from       string // UpdatedFrom prefix of the flight candidate
		at         time.Time
		stale      string // a stale-pause-record finding naming this path
	}{
		{name: "commit time beats mtime and in-file time", flight: "phase:05", from: "git:", at: day(3)},
		{name: "same commit: in-file timestamp breaks the tie", sameCommit: true, flight: "phase:06", from: "git:", at: day(2)},
		{name: "no git: modification time", noGit: true, flight: "phase:06", from: "mtime"},
		{name: "STATE.md committed after the notes makes them stale", withState: true, flight: "phase:05", stale: n6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			commit := func(msg string, d int, paths ...string) {
				_, err := gitfixture.Commit(root, msg, "Ana", "ana@example.com", day(d), paths...)
				must(err)
			}
			must(gitfixture.Init(root))
			for p, c := range map[string]string{
				".planning/ROADMAP.md":   "# Roadmap\n",
				p5 + "05-01-PLAN.md":     planMD("05-search", "01", "[]", "[src/search.go]"),
				p6 + "06-01-PLAN.md":     planMD("06-export", "01", "[]", "[src/export.go]"),
				n5:                       note("05-search", "2025-04-01T09:00:00Z"),
				n6:                       note("06-export", "2025-04-20T09:00:00Z"), // newer in the file
				".planning/PROJECT.md":   "# Project\n",
				"src/search.go":          "package src\n",
				"src/export.go":          "package src\n",
				".planning/config.json":  "{}\n",
				".planning/phases/.keep": "",
			} {
				must(gitfixture.WriteFile(root, p, c))
			}
			commit("plans", 1, ".planning/ROADMAP.md", ".planning/PROJECT.md", ".planning/config.json", ".planning/phases", "src")
			if tt.sameCommit {
				// (the plans' commit already holds both notes: day 1; recommit
				// them together later with the same content)
				must(gitfixture.WriteFile(root, n5, note("05-search", "2025-04-01T09:00:01Z")))
				must(gitfixture.WriteFile(root, n6, note("06-export", "2025-04-20T09:00:01Z")))
				commit("pause both", 2, n5, n6)
			} else {
				must(gitfixture.WriteFile(root, n6, note("06-export", "2025-04-20T09:00:01Z")))
				commit("pause 06", 2, n6)
				must(gitfixture.WriteFile(root, n5, note("05-search", "2025-04-01T09:00:01Z")))
				commit("pause 05", 3, n5)
			}
			if tt.withState {
				must(gitfixture.WriteFile(root, ".planning/STATE.md", stateNone))
				commit("state", 4, ".planning/STATE.md")
			}
			// modification times that favour phase 06 (and STATE.md oldest)
			for p, d := range map[string]int{n5: 10, n6: 11, ".planning/STATE.md": 9} {
				full := filepath.Join(root, filepath.FromSlash(p))
				if _, err := os.Stat(full); err == nil {
					must(os.Chtimes(full, day(d), day(d)))
				}
			}
			r, _ := source.NewRepo(root, config.Default())
			if !tt.noGit {
				g, err := gitrepo.Open(root)
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
			cs, fs := Scan(r)
			var resumable []string
			var flight *workflow.Candidate
			for i, c := range cs {
				if c.Resumable {
					resumable = append(resumable, c.ID)
					flight = &cs[i]
				}
			}
			if len(resumable) != 1 || resumable[0] != tt.flight {
				t.Fatalf("resumable %v, want [%s]", resumable, tt.flight)
			}
			if tt.from != "" && !strings.HasPrefix(flight.UpdatedFrom, tt.from) {
				t.Errorf("updated from %q, want %s…", flight.UpdatedFrom, tt.from)
			}
			if !tt.at.IsZero() && !flight.UpdatedAt.Equal(tt.at) {
				t.Errorf("updated at %s, want %s", flight.UpdatedAt, tt.at)
			}
			if tt.stale != "" {
				found := false
				for _, c := range cs {
					for _, f := range c.Findings {
						found = found || (f.Code == "stale-pause-record" && f.Path == tt.stale && strings.Contains(f.Message, "newer STATE.md"))
					}
				}
				for _, f := range fs {
					found = found || (f.Code == "stale-pause-record" && f.Path == tt.stale)
				}
				if !found {
					t.Errorf("no stale-pause-record for %s", tt.stale)
				}
			}
		})
	}
}
