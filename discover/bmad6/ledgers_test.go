package bmad6

import (
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestTwoLedgersNewerIsLive builds real history with an alpha ledger left
// behind by an upgrade and the current one: both are read, on a shared
// story key the ledger git says changed last is live and the other is
// reported stale (FORMATS rec. 3); keys only one ledger holds are kept.
func TestTwoLedgersNewerIsLive(t *testing.T) {
	const oldL, newL = "docs/sprint-status.yaml", "_bmad-output/implementation-artifacts/sprint-status.yaml"
	day := func(d int) time.Time { return time.Date(2026, 1, d, 9, 0, 0, 0, time.UTC) }
	tests := []struct {
		name      string
		oldLast   bool // the old ledger is committed last
		noGit     bool
		oldStatus string
		newStatus string
		want      []string // candidate ids
		findingOn string   // the candidate carrying stale-ledger ("" = a global finding)
		stalePath string
		basis     string
	}{
		{name: "newer ledger done: the old in-progress is stale", oldStatus: "in-progress", newStatus: "done",
			want: []string{"sdc:2.1", "story:1.1"}, findingOn: "story:1.1", stalePath: oldL, basis: "last commit "},
		{name: "newer ledger backlog without file: no candidate, global finding", oldStatus: "in-progress", newStatus: "backlog",
			want: []string{"sdc:2.1"}, stalePath: oldL, basis: "last commit "},
		{name: "the old ledger committed last is live", oldLast: true, oldStatus: "in-progress", newStatus: "done",
			want: []string{"sdc:1.1", "sdc:2.1"}, findingOn: "sdc:1.1", stalePath: newL, basis: "last commit "},
		{name: "no git: modification time", noGit: true, oldStatus: "in-progress", newStatus: "done",
			want: []string{"sdc:2.1", "story:1.1"}, findingOn: "story:1.1", stalePath: oldL, basis: "modification time "},
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
			must(gitfixture.Init(root))
			must(gitfixture.WriteFile(root, "docs/stories/1-1-a.md", storyMD("1.1", "in-progress", "")))
			must(gitfixture.WriteFile(root, "_bmad-output/implementation-artifacts/2-1-b.md", storyMD("2.1", "in-progress", "")))
			must(gitfixture.WriteFile(root, oldL, ledger("", "1-1-a: "+tt.oldStatus)))
			must(gitfixture.WriteFile(root, newL, ledger("", "1-1-a: "+tt.newStatus, "2-1-b: in-progress")))
			_, err := gitfixture.Commit(root, "stories", "Ana", "ana@example.com", day(1), "docs/stories", "_bmad-output/implementation-artifacts/2-1-b.md")
			must(err)
			first, second := oldL, newL
			if tt.oldLast {
				first, second = newL, oldL
			}
			_, err = gitfixture.Commit(root, "ledger", "Ana", "ana@example.com", day(2), first)
			must(err)
			_, err = gitfixture.Commit(root, "ledger", "Ana", "ana@example.com", day(3), second)
			must(err)
			r, _ := source.NewRepo(root, config.Default())
			// modification times against git: the old ledger looks newest
			touch(t, r, oldL, day(20))
			touch(t, r, newL, day(10))
			if tt.noGit {
				touch(t, r, oldL, day(10))
				touch(t, r, newL, day(20))
			} else {
				r.Times = gitTimes(t, root)
			}
			cs, fs := scan(r)
			var got []string
			for _, c := range cs {
				got = append(got, c.ID)
			}
			sortStrings(got)
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("candidates %v, want %v", got, tt.want)
			}
			var f *workflow.Finding
			for i := range fs {
				if fs[i].Code == "stale-ledger" {
					f = &fs[i]
				}
			}
			for _, c := range cs {
				for i := range c.Findings {
					if c.Findings[i].Code == "stale-ledger" {
						if c.ID != tt.findingOn {
							t.Errorf("stale-ledger on %s, want %q", c.ID, tt.findingOn)
						}
						f = &c.Findings[i]
					}
				}
			}
			if f == nil || f.Path != tt.stalePath || !strings.Contains(f.Message, tt.basis) || !strings.Contains(f.Message, "story 1-1-a:") {
				t.Fatalf("stale-ledger finding %+v", f)
			}
		})
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
