package cli

// Repositories built from the task examples, for the pty tests and the
// command tests of every platform.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

type gitStep struct {
	when    string // RFC 3339
	msg     string
	author  string // "" is the workflow's own agent
	paths   []string
	updates map[string]string // files written just before the commit
	copies  map[string]string // dest <- source (inside the repository)
}

// repoFromScript builds, in a temporary folder, the repository of a
// testdata/script archive: its files (but the golden want* files), then the
// commits.
func repoFromScript(t *testing.T, script string, steps ...gitStep) string {
	t.Helper()
	// scripts live in topic folders: find the archive by its name
	matches, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "script", "*", script))
	if len(matches) != 1 {
		t.Fatalf("script %s: %d archives of that name under testdata/script", script, len(matches))
	}
	ar, err := txtar.ParseFile(matches[0])
	if err != nil {
		t.Fatalf("read %s: %v", script, err)
	}
	dir := filepath.Join(t.TempDir(), "repo")
	if err := gitfixture.Init(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "want") {
			continue
		}
		if err := gitfixture.WriteFile(dir, f.Name, string(f.Data)); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range steps {
		for dst, src := range s.copies {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(src)))
			if err != nil {
				t.Fatal(err)
			}
			if err := gitfixture.WriteFile(dir, dst, string(b)); err != nil {
				t.Fatal(err)
			}
		}
		for p, content := range s.updates {
			if err := gitfixture.WriteFile(dir, p, content); err != nil {
				t.Fatal(err)
			}
		}
		when, err := time.Parse(time.RFC3339, s.when)
		if err != nil {
			t.Fatal(err)
		}
		name, email := "Dev Agent", "dev@example.com"
		if s.author != "" {
			name = s.author
			email = strings.ToLower(strings.Fields(s.author)[0]) + "@example.com"
		}
		if _, err := gitfixture.Commit(dir, s.msg, name, email, when, s.paths...); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// cleanRepo is task example 1: one SDC workflow for story 4.2, interrupted
// 45 minutes ago at phase 3/4, clean.
func cleanRepo(t *testing.T) string {
	return repoFromScript(t, "example1_clean.txtar",
		gitStep{when: "2026-11-20T10:00:00Z", msg: "story 4.2 validated"},
		gitStep{when: "2026-11-20T11:15:00Z", msg: "sdc 4.2: implementation started", paths: []string{".orchestrate/workflows/sdc-4.2.yaml"}},
	)
}

// multipleRepo is task example 3: three interrupted workflows.
func multipleRepo(t *testing.T) string {
	return repoFromScript(t, "example3_multiple.txtar",
		gitStep{when: "2026-11-15T09:00:00Z", msg: "work"})
}

// warningsRepo is task example 2: a QA loop interrupted 3 days ago whose
// story's Dev Notes were edited since (two warnings, no conflict).
func warningsRepo(t *testing.T) string {
	return repoFromScript(t, "example2_stale_warnings.txtar",
		gitStep{when: "2026-11-17T12:00:00Z", msg: "qa loop 2.1: iteration 3 rejected"},
		gitStep{when: "2026-11-18T09:00:00Z", msg: "story 2.1: dev notes", author: "Bruno Costa",
			copies: map[string]string{"docs/stories/2.1.audit.md": "story-edited.md"}, paths: []string{"docs/stories/2.1.audit.md"}},
	)
}

// conflictRepo is example 1 plus a commit by someone else, after the
// interruption, to src/search.ts, a file the workflow lists under files:.
func conflictRepo(t *testing.T) string {
	return repoFromScript(t, "example1_clean.txtar",
		gitStep{when: "2026-11-20T10:00:00Z", msg: "story 4.2 validated"},
		gitStep{when: "2026-11-20T11:15:00Z", msg: "sdc 4.2: implementation started", paths: []string{".orchestrate/workflows/sdc-4.2.yaml"}},
		gitStep{when: "2026-11-20T11:40:00Z", msg: "search: trim the query", author: "Bruno Costa",
			updates: map[string]string{"src/search.ts": "export const search = (q: string) => q.trim();\n"}, paths: []string{"src/search.ts"}},
	)
}

// snapshot is the bytes of every file of a repository but .git.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// unchanged checks that the repository is exactly as before: no file
// added (no lock, no log, no envelope, no .bak), none changed or removed.
func unchanged(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	after := snapshot(t, dir)
	for p, b := range before {
		if a, ok := after[p]; !ok {
			t.Errorf("%s was removed", p)
		} else if a != b {
			t.Errorf("%s changed:\n%s", p, a)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was created", p)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".orchestrate", "locks")); err == nil {
		t.Errorf(".orchestrate/locks exists")
	}
}

// resumedState checks that the state file at rel now says status active,
// and returns its content.
func resumedState(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !regexp.MustCompile(`(?m)"?status"?\s*:\s*"?active"?`).MatchString(s) {
		t.Errorf("%s: the status is not active:\n%s", rel, s)
	}
	return s
}

// envelope reads the one handoff envelope written.
func envelope(t *testing.T, dir string) map[string]any {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, ".orchestrate", "handoffs", "*.json"))
	if len(paths) != 1 {
		t.Fatalf("handoff envelopes: %v, want exactly one", paths)
	}
	b, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]any
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatalf("%s: %v", paths[0], err)
	}
	return env
}

// ---- scenarios ----
