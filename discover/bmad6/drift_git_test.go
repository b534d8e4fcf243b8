package bmad6

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

// gitTimes is the Times function discover.Scan hands the sources: the last
// commit of the files that are as committed.
func gitTimes(t *testing.T, dir string) func([]string) map[string]source.Stamp {
	t.Helper()
	g, err := gitrepo.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return func(paths []string) map[string]source.Stamp {
		out := map[string]source.Stamp{}
		for p, c := range g.LastCommitted(paths, 100) {
			out[p] = source.Stamp{When: c.When, From: "git:" + c.Short}
		}
		return out
	}
}

// TestDriftNewerByGit builds real history in which the ledger and the story
// file change in separate commits, then sets the modification times the
// other way round (as a fresh clone or a touch would): the drift finding
// names the side git says is newer, says git decided, and falls back to
// the modification time (saying why) without git or for an uncommitted edit.
func TestDriftNewerByGit(t *testing.T) {
	const dir = "_bmad-output/implementation-artifacts/"
	const lp, sp = dir + "sprint-status.yaml", dir + "1-1-login.md"
	day := func(d int) time.Time { return time.Date(2025, 11, d, 9, 0, 0, 0, time.UTC) }
	tests := []struct {
		name        string
		ledger      string // ledger status
		file        string // story-file status
		fileLast    bool   // the story file's commit comes after the ledger's
		dirty       string // a path edited after the commits
		noGit       bool
		code        string
		wantPhrases []string
	}{
		{"file stale by git (done/review)", "done", "review", false, "", false, "ledger-drift",
			[]string{"the ledger changed after the story file or with it (by git: the story file's last commit", "the file is stale", "the ledger counts"}},
		{"ledger lags by git (review/done)", "review", "done", true, "", false, "ledger-lags",
			[]string{"the story file changed after the ledger (by git:", "the ledger may lag"}},
		{"review sent it back, ledger newer by git", "in-progress", "review", false, "", false, "ledger-drift",
			[]string{"the review sent the story back", "the ledger changed after the story file or with it (by git:"}},
		{"uncommitted story file: modification time", "review", "done", false, sp, false, "ledger-lags",
			[]string{"(by modification time: " + sp + " differs from its last commit)"}},
		{"uncommitted ledger: modification time", "done", "review", true, lp, false, "ledger-drift",
			[]string{"(by modification time: " + lp + " differs from its last commit)"}},
		{"no git: modification time", "done", "review", false, "", true, "ledger-drift",
			[]string{"(by modification time: no git)"}},
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
			must(gitfixture.WriteFile(root, lp, ledger("", "1-1-login: backlog")))
			must(gitfixture.WriteFile(root, sp, storyMD("1.1", "ready-for-dev", "")))
			_, err := gitfixture.Commit(root, "plan", "Ana", "ana@example.com", day(1), lp, sp)
			must(err)
			ledgerCommit := func(d int) {
				must(gitfixture.WriteFile(root, lp, ledger("", "1-1-login: "+tt.ledger)))
				_, err := gitfixture.Commit(root, "ledger", "Ana", "ana@example.com", day(d), lp)
				must(err)
			}
			fileCommit := func(d int) {
				must(gitfixture.WriteFile(root, sp, storyMD("1.1", tt.file, "")))
				_, err := gitfixture.Commit(root, "story", "Ana", "ana@example.com", day(d), sp)
				must(err)
			}
			if tt.fileLast {
				ledgerCommit(2)
				fileCommit(3)
			} else {
				fileCommit(2)
				ledgerCommit(3)
			}
			if tt.dirty != "" {
				must(gitfixture.WriteFile(root, tt.dirty, string(mustReadAt(t, root, tt.dirty))+"\n"))
			}
			// modification times that contradict git unless a file is dirty
			r, _ := source.NewRepo(root, config.Default())
			older, newer := day(10), day(11)
			if tt.fileLast {
				touch(t, r, lp, newer)
				touch(t, r, sp, older)
			} else {
				touch(t, r, lp, older)
				touch(t, r, sp, newer)
			}
			if tt.dirty != "" || tt.noGit {
				// the uncommitted side is the newer one on disk
				touch(t, r, lp, older)
				touch(t, r, sp, older)
				side := tt.dirty
				if side == "" {
					side = sp
				}
				touch(t, r, side, newer)
			}
			if !tt.noGit {
				r.Times = gitTimes(t, root)
			}
			cs, _ := scan(r)
			if len(cs) != 1 {
				t.Fatalf("candidates %v", ids(cs))
			}
			var f *workflow.Finding
			for i := range cs[0].Findings {
				if cs[0].Findings[i].Check == workflow.CheckConsistency {
					f = &cs[0].Findings[i]
				}
			}
			if f == nil || f.Code != tt.code {
				t.Fatalf("drift finding %+v, want %s", f, tt.code)
			}
			for _, p := range tt.wantPhrases {
				if !strings.Contains(f.Message, p) {
					t.Errorf("message %q lacks %q", f.Message, p)
				}
			}
			if !tt.noGit && tt.dirty == "" && strings.Contains(f.Message, "modification time") {
				t.Errorf("git was reachable, yet: %q", f.Message)
			}
		})
	}
}

func mustReadAt(t *testing.T, root, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
