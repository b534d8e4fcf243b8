package kiro

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

// goldenRepo is a repository holding every fixture and the shapes the
// other tests write (markers, waves, blocks, cc-sdd's next, a stale parent,
// a meta run, duplicates, an unknown box), each file dated at one fixed
// time so that the current spec and the ages do not depend on the clock.
func goldenRepo(t *testing.T) string {
	t.Helper()
	files := merge(
		fixture(t, "ide1x", ".kiro/specs/speech-to-text"),
		fixture(t, "early", ".kiro/specs/billing-dashboard"),
		fixture(t, "ccsdd", ".kiro/specs/syndication-service"),
		fixture(t, "bugfix", ".kiro/specs/empty-cart-crash"),
		fixture(t, "headings", ".kiro/specs/headings"),
		map[string]string{
			".kiro/specs/design-only/requirements.md": "# Requirements\n",
			".kiro/specs/design-only/spec.json":       `{"phase": "design-generated"}`,
			".kiro/specs/not-started/tasks.md":        "- [ ] 1. a\n- [ ] 2. b\n",
			".kiro/specs/finished/tasks.md":           "- [ ] 1. Parent\n  - [x] 1.1 a\n  - [ ]* 1.2 optional\n",
			".kiro/specs/notes/README.txt":            "not a spec",
			".kiro/specs/marks/tasks.md":              "# Tasks\n\n- [x] 1. a `src/stt/client.ts`\n- [~] 2. b (P)\n- [-] 3. c\n  - _Requirements: 1.1, 2.3_\n  - _Depends: 1.2_\n- [/] 4. odd\n- [ ] 5. Manually check `src/stt/models.ts`\n- [x] 5. again\n",
			".kiro/specs/cc/tasks.md":                 "- [x] 1. a\n- [ ]* 2. optional first\n- [ ] 3. required _Blocked: waits on 2_\n",
			".kiro/specs/cc/spec.json":                `{"phase":"tasks-generated","approvals":{"tasks":{"generated":true,"approved":false}}}`,
			".kiro/specs/blocked/tasks.md":            "- [x] 1. a\n- [ ] 2. b\n  - _Blocked: no key_\n",
			".kiro/specs/blocked/spec.json":           `{"phase":"tasks-generated","approvals":{"tasks":{"generated":true,"approved":true}}}`,
			".kiro/specs/waves/tasks.md":              "- [x] 1. a\n- [ ] 2. b\n- [ ] 3. c\n\n## Task Dependency Graph\n\n```json\n{\"waves\":[{\"id\":0,\"tasks\":[\"1\",\"3\"]},{\"id\":1,\"tasks\":[\"2\"]}]}\n```\n",
			".kiro/specs/waves/.config.kiro":          `{"generationMode":"requirements-first"}`,
			".kiro/specs/badgraph/tasks.md":           "- [x] 1. a\n- [ ] 2. b\n\n## Task Dependency Graph\n\n```json\n{\"waves\": 3\n```\n",
			".kiro/specs/stale/tasks.md":              "- [x] 1. Parent ticked\n  - [ ] 1.1 open child\n- [ ] 2. Parent open\n  - [x] 2.1 done child\n- [ ] Unnumbered task with a long title that is clipped for its label somewhere\n- [x] 3. last\n",
			".kiro/specs/meta/tasks.md":               "- [x] 1. a\n- [ ] 2. b\n",
			".kiro/specs/meta/tasks.meta.json":        `{"executionHistory": [1, 2]`,
			".kiro/specs/empty/tasks.md":              "# nothing\n",
			"src/stt/client.ts":                       "export {}\n",
			"src/stt/models.ts":                       "export {}\n",
			"tests/checkout.test.ts":                  "test()\n",
		})
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
	return root
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
// that kept every spec's parsed tasks to the end): dropping the tasks
// once a spec is settled changes no field of any candidate, with the
// cache off, on a first run and on a warm one.
func TestCandidatesGolden(t *testing.T) {
	root := goldenRepo(t)
	want, err := os.ReadFile(filepath.Join("testdata", "candidates.golden"))
	if err != nil && !*updateGolden {
		t.Fatal(err)
	}
	cache := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	tasksCacheKind.Now = func() time.Time { return time.Now().Add(time.Hour) } // store what was just written
	t.Cleanup(func() { tasksCacheKind.Now = nil })
	for _, mode := range []string{"off", "first", "warm"} {
		r, _ := source.NewRepo(root, config.Default())
		if mode != "off" {
			r.Cache = cache
		}
		got := dumpCandidates(KiroSource.Scan(r))
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
