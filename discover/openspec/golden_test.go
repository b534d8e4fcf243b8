package openspec

import (
	"encoding/json"
	goflag "flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

var updateGolden = goflag.Bool("update-golden", false, "rewrite testdata/candidates.golden")

// goldenRepo is cacheFiles (every status, fences, markers, references,
// archives) with a 0.x root beside (its apply reads tasks.md in order), a
// fenced box first, two changes in flight dated from "git" (one
// current), each file dated at one fixed time.
func goldenRepo(t *testing.T) (string, func([]string) map[string]source.Stamp) {
	t.Helper()
	files := cacheFiles(t)
	files["legacy/openspec/project.md"] = "# Project\n"
	files["legacy/openspec/AGENTS.md"] = "# Agents\n"
	files["legacy/openspec/changes/old/tasks.md"] = "## 1. Start\n\n- [x] 1.1 Write `src/components/button.tsx`\n- [ ] 1.2 Wire it\n\n## 2. Later\n\n- [ ] 2.1 Ship\n"
	files["openspec/changes/fencefirst/tasks.md"] = "## 1. Go\n\n- [x] 1.1 a\n\n```\n- [ ] 1.2 example\n```\n\n- [ ] 1.3 real\n- [x] 1.4 late\n"
	root := t.TempDir()
	sourcetest.Write(t, root, files)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	err := filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, at, at)
	})
	if err != nil {
		t.Fatal(err)
	}
	stamps := map[string]source.Stamp{
		"openspec/changes/partial":    {When: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), From: "git:aaaaaaa"},
		"openspec/changes/fencefirst": {When: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), From: "git:bbbbbbb"},
	}
	times := func(paths []string) map[string]source.Stamp {
		out := map[string]source.Stamp{}
		for _, p := range paths {
			if st, ok := stamps[p]; ok {
				out[p] = st
			}
		}
		return out
	}
	return root, times
}

// dumpCandidates prints every field of the candidates, the resume point's
// too, one candidate a block.
func dumpCandidates(cs []workflow.Candidate, fs []workflow.Finding) string {
	var b strings.Builder
	for _, c := range cs {
		// JSON first: it tells a nil list from an empty one
		j, _ := json.Marshal([]any{c, c.Resume, c.Phases, c.Files, c.Findings})
		fmt.Fprintf(&b, "%s\n", j)
		rp := c.Resume
		c.Resume = nil
		fmt.Fprintf(&b, "%+v\n", c)
		if rp != nil {
			fmt.Fprintf(&b, "  resume %+v\n", *rp)
		}
	}
	fmt.Fprintf(&b, "findings %+v\n", fs)
	return b.String()
}

// TestCandidatesGolden checks that the candidates of every fixture are
// exactly those testdata/candidates.golden records (written by the scan
// that kept every change's parsed tasks to the end), with the cache off,
// on a first run and on a warm one.
func TestCandidatesGolden(t *testing.T) {
	root, times := goldenRepo(t)
	want, err := os.ReadFile(filepath.Join("testdata", "candidates.golden"))
	if err != nil && !*updateGolden {
		t.Fatal(err)
	}
	cache := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	tasksCacheKind.Now = func() time.Time { return time.Now().Add(time.Hour) } // store what was just written
	t.Cleanup(func() { tasksCacheKind.Now = nil })
	for _, mode := range []string{"off", "first", "warm"} {
		r, _ := source.NewRepo(root, config.Default())
		r.Times = times
		if mode != "off" {
			r.Cache = cache
		}
		got := dumpCandidates(OpenSpecSource.Scan(r))
		got = strings.ReplaceAll(got, root, "<root>")
		if *updateGolden && mode == "off" {
			if err := os.WriteFile(filepath.Join("testdata", "candidates.golden"), []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			want = []byte(got)
			continue
		}
		if got != string(want) {
			t.Errorf("%s: candidates differ from testdata/candidates.golden:\n%s", mode, got)
		}
	}
}
