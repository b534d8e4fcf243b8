package attacktest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// writeTxtarDir writes the files of a testdata archive under dir/ into the
// repository, without that prefix.
func (e *env) writeTxtarDir(name, dir string) {
	e.t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", name))
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, f := range a.Files {
		if rel, ok := strings.CutPrefix(f.Name, dir+"/"); ok {
			e.write(rel, f.Data)
			n++
		}
	}
	if n == 0 {
		e.t.Fatalf("%s holds no file under %s/", name, dir)
	}
}

// cleanup of one workflow moved away a file every workflow of that
// framework shares: `cleanup task:master/2 --yes` archived tasks.json (all
// tasks gone), `cleanup sdc:1.2` archived the v6 sprint-status.yaml and
// wrote a non-v6 status into the story, `cleanup feature:…` removed
// specs/<feature>/tasks.md, `cleanup phase:02` removed a finished plan's
// SUMMARY. Cleanup never deletes, moves or rewrites a file another workflow
// reads: it refuses (exit 17, with what to do instead) and every file of
// the repository stays byte-identical, nothing created.
func TestAttackCleanupSharedFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ dir, id string }{
		{"tm", "task:master/2"},
		{"bmad", "sdc:1.2"},
		{"sk", "feature:003-search"},
		{"gsd", "phase:07.2"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.writeTxtarDir("cleanup.txtar", tc.dir)
			e.commitAll("work in progress")
			before := snapshot(t, e.repo, false)
			for _, args := range [][]string{
				{"cleanup", "--dry-run", tc.id},
				{"cleanup", "--yes", tc.id},
				{"cleanup", "--json", "--yes", tc.id},
			} {
				r := e.run(args...)
				wantCode(t, r, 17)
				if !strings.Contains(r.stdout, "Refused") && !strings.Contains(r.stdout, `"outcome": "refused"`) {
					t.Errorf("%s: no refusal on stdout:\n%s", r, r.stdout)
				}
				if strings.Contains(r.stdout, "Cleaned up") {
					t.Errorf("%s: says it cleaned up", r)
				}
			}
			sameFiles(t, "cleanup of "+tc.id, before, snapshot(t, e.repo, false))
		})
	}
}
