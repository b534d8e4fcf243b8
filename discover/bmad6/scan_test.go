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
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// want is what a test expects of one candidate.
type want struct {
	typ       workflow.Type
	resumable bool
	file      string   // the story file among the referenced files, "" for none
	codes     []string // finding codes that must be present
	absent    []string // finding codes that must not be
	item      string   // Resume.Item ("" when not resumable)
	done      int
	total     int
}

func storyMD(id, status, extra string) string {
	return "# Story " + id + ": Something\n\nStatus: " + status + "\n\n## Tasks / Subtasks\n\n- [x] Task 1: First\n- [ ] Task 2: Second\n" + extra
}

func ledger(header string, lines ...string) string {
	return "# generated: 2025-11-02\n" + header + "\ndevelopment_status:\n  " + strings.Join(lines, "\n  ") + "\n"
}

func TestScanLayouts(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		want   map[string]want
		folder string // the effective folder the info finding must name
	}{
		{
			name: "6.0 config, flat stories beside the ledger",
			files: map[string]string{
				"_bmad/bmm/config.yaml": "# Version: 6.0.2\nproject_name: parcel\noutput_folder: \"{project-root}/_bmad-output\"\nimplementation_artifacts: \"{output_folder}/implementation-artifacts\"\n",
				"_bmad-output/implementation-artifacts/sprint-status.yaml": ledger("story_location: \"{project-root}/_bmad-output/implementation-artifacts\"",
					"epic-2: in-progress", "2-1-list: done", "2-2-detail: in-progress", "2-3-labels: review", "2-4-import: ready-for-dev", "2-5-returns: backlog", "epic-2-retrospective: optional"),
				"_bmad-output/implementation-artifacts/2-1-list.md":            storyMD("2.1", "done", ""),
				"_bmad-output/implementation-artifacts/2-2-detail.md":          storyMD("2.2", "ready-for-dev", ""),
				"_bmad-output/implementation-artifacts/2-3-labels.md":          storyMD("2.3", "review", ""),
				"_bmad-output/implementation-artifacts/2-4-import.md":          storyMD("2.4", "ready-for-dev", ""),
				"_bmad-output/implementation-artifacts/2-2-detail.context.xml": "<story-context/>",
			},
			folder: "_bmad-output/implementation-artifacts",
			want: map[string]want{
				"story:2.1":     {typ: workflow.TypeStory, file: "_bmad-output/implementation-artifacts/2-1-list.md"},
				"sdc:2.2":       {typ: workflow.TypeSDC, resumable: true, file: "_bmad-output/implementation-artifacts/2-2-detail.md", absent: []string{"ledger-drift"}, item: "Task 2", done: 1, total: 2},
				"qa-review:2.3": {typ: workflow.TypeQAReview, resumable: true, file: "_bmad-output/implementation-artifacts/2-3-labels.md", item: "code review", done: 1, total: 2},
				"story:2.4":     {typ: workflow.TypeStory, file: "_bmad-output/implementation-artifacts/2-4-import.md"},
			},
		},
		{
			name: "alpha.1-7: bmad/ config, docs ledger, docs/stories",
			files: map[string]string{
				"bmad/bmm/config.yaml":             "output_folder: '{project-root}/docs'\ndev_story_location: '{project-root}/docs/stories'\n",
				"docs/sprint-status.yaml":          ledger("story_location: docs/stories", "epic-1: contexted", "1-1-map: drafted", "1-2-log: in-progress"),
				"docs/stories/1-2-log.md":          storyMD("1.2", "in-progress", ""),
				"docs/stories/1-1-map.md":          storyMD("1.1", "drafted", ""),
				"docs/stories/1-2-log.context.xml": "<ctx/>",
			},
			folder: "docs/stories",
			want: map[string]want{
				"sdc:1.2":   {typ: workflow.TypeSDC, resumable: true, file: "docs/stories/1-2-log.md", item: "Task 2", done: 1, total: 2},
				"story:1.1": {typ: workflow.TypeStory, file: "docs/stories/1-1-map.md"},
			},
		},
		{
			name: "alpha.8: .bmad ephemeral, lying docs/stories header",
			files: map[string]string{
				".bmad/bmm/config.yaml":                     "dev_ephemeral_location: \"{project-root}/.bmad-ephemeral\"\n",
				".bmad-ephemeral/sprint-status.yaml":        ledger("story_location: docs/stories", "1-1-setup: in-progress"),
				".bmad-ephemeral/stories/1-1-setup.md":      storyMD("1.1", "in-progress", ""),
				".bmad-ephemeral/stories/1-1-setup.md.bak":  "old",
				".bmad-ephemeral/stories/validation-1-1.md": "# Validation report",
			},
			folder: ".bmad-ephemeral",
			want:   map[string]want{"sdc:1.1": {typ: workflow.TypeSDC, resumable: true, file: ".bmad-ephemeral/stories/1-1-setup.md", item: "Task 2", done: 1, total: 2}},
		},
		{
			name: "alpha.9: sprint_artifacts, story-<key>.md in stories/",
			files: map[string]string{
				".bmad/bmm/config.yaml":                              "output_folder: \"{project-root}/docs\"\nsprint_artifacts: \"{output_folder}/sprint-artifacts\"\n",
				"docs/sprint-artifacts/sprint-status.yaml":           ledger("story_location: \"{project-root}/docs/sprint-artifacts\"", "3-1-billing: review"),
				"docs/sprint-artifacts/stories/story-3-1-billing.md": storyMD("3.1", "review", ""),
			},
			folder: "docs/sprint-artifacts",
			want:   map[string]want{"qa-review:3.1": {typ: workflow.TypeQAReview, resumable: true, file: "docs/sprint-artifacts/stories/story-3-1-billing.md", item: "code review", done: 1, total: 2}},
		},
		{
			name: "ledger alone, absolute story_location, moved finished story, slug differs",
			files: map[string]string{
				"_bmad-output/implementation-artifacts/sprint-status.yaml": ledger(`story_location: 'C:\Users\dev\app\stories'`,
					"1-1-scaffold: done", "1-2-harvest-log: in-progress", "1-3-weather: backlog"),
				"_bmad-output/implementation-artifacts/stories/epic-1/1-1-scaffold.md": storyMD("1.1", "done", ""),
				"_bmad-output/implementation-artifacts/1-2-code-review-notes.md":       "# Story 1.2: review notes\n",
				"_bmad-output/implementation-artifacts/1-2-harvest-logging.md":         storyMD("1.2", "in-progress", ""),
			},
			folder: "_bmad-output/implementation-artifacts",
			want: map[string]want{
				"story:1.1": {typ: workflow.TypeStory, file: "_bmad-output/implementation-artifacts/stories/epic-1/1-1-scaffold.md", codes: []string{"story-location-unusable"}},
				"sdc:1.2":   {typ: workflow.TypeSDC, resumable: true, file: "_bmad-output/implementation-artifacts/1-2-harvest-logging.md", item: "Task 2", done: 1, total: 2},
			},
		},
		{
			name: "config names a missing folder, the live ledger sits at an older default",
			files: map[string]string{
				"_bmad/bmm/config.yaml":                    "implementation_artifacts: \"{project-root}/_bmad-output/implementation-artifacts\"\n",
				"docs/sprint-artifacts/sprint-status.yaml": ledger("story_location: docs/sprint-artifacts", "4-1-export: in-progress"),
				"docs/sprint-artifacts/4-1-export.md":      storyMD("4.1", "in-progress", ""),
			},
			folder: "docs/sprint-artifacts",
			want:   map[string]want{"sdc:4.1": {typ: workflow.TypeSDC, resumable: true, file: "docs/sprint-artifacts/4-1-export.md", item: "Task 2", done: 1, total: 2}},
		},
		{
			name: "story_location is a pre-upgrade leftover that exists",
			files: map[string]string{
				"docs/stories/README.md":                                   "# old stories\n",
				"_bmad-output/implementation-artifacts/sprint-status.yaml": ledger("story_location: docs/stories", "5-1-sync: in-progress"),
				"_bmad-output/implementation-artifacts/5-1-sync.md":        storyMD("5.1", "in-progress", ""),
			},
			folder: "_bmad-output/implementation-artifacts",
			want:   map[string]want{"sdc:5.1": {typ: workflow.TypeSDC, resumable: true, file: "_bmad-output/implementation-artifacts/5-1-sync.md", item: "Task 2", done: 1, total: 2}},
		},
		{
			name: "three-segment keys settled by the heading, qa key, duplicate key, nested ledger",
			files: map[string]string{
				"_bmad-output/implementation-artifacts/sprint-status.yaml": "development_status:\n  epic-6-2:\n    status: in-progress\n  6-2-0-infra:\n    status: in-progress\n  7-3-2-retry:\n    status: in-progress\n  qa-1-smoke:\n    status: in-progress\n  8-1-dup: backlog\n  8-1-dup: in-progress # merged from feature/dup\n",
				"_bmad-output/implementation-artifacts/6-2-0-infra.md":     "# Story 6.2.0: Infra\n\nStatus: in-progress\n",
				"_bmad-output/implementation-artifacts/7-3-2-retry.md":     "# Story 7.3: Retry (second try)\n\nStatus: in-progress\n",
				"_bmad-output/implementation-artifacts/qa-1-smoke.md":      "# QA 1: Smoke\n\nStatus: in-progress\n",
				"_bmad-output/implementation-artifacts/8-1-dup.md":         storyMD("8.1", "in-progress", ""),
			},
			folder: "_bmad-output/implementation-artifacts",
			want: map[string]want{
				"sdc:6.2.0":      {typ: workflow.TypeSDC, resumable: true, file: "_bmad-output/implementation-artifacts/6-2-0-infra.md", item: "completion"},
				"sdc:7.3":        {typ: workflow.TypeSDC, resumable: true, file: "_bmad-output/implementation-artifacts/7-3-2-retry.md", item: "completion"},
				"sdc:qa-1-smoke": {typ: workflow.TypeSDC, resumable: true, file: "_bmad-output/implementation-artifacts/qa-1-smoke.md", item: "completion"},
				"sdc:8.1":        {typ: workflow.TypeSDC, resumable: true, file: "_bmad-output/implementation-artifacts/8-1-dup.md", codes: []string{"duplicate-ledger-key"}, item: "Task 2", done: 1, total: 2},
			},
		},
		{
			name: "in flight without a story file; unknown and archive values",
			files: map[string]string{
				"_bmad-output/implementation-artifacts/sprint-status.yaml": ledger("", "9-1-gone: in-progress", "9-2-odd: dev-complete", "9-3-old: archive/9-3-old.md", "9-4-new: backlog"),
			},
			folder: "_bmad-output/implementation-artifacts",
			want: map[string]want{
				"sdc:9.1":   {typ: workflow.TypeSDC, resumable: true, codes: []string{"no_file_beyond_backlog"}, item: "create story"},
				"story:9.2": {typ: workflow.TypeStory, codes: []string{"no_file_beyond_backlog", "unknown-status"}},
			},
		},
		{
			name: "follow-ups after a Senior Developer Review come first",
			files: map[string]string{
				"_bmad-output/implementation-artifacts/sprint-status.yaml": ledger("", "2-3-labels: in-progress # review sent it back"),
				"_bmad-output/implementation-artifacts/2-3-labels.md":      string(mustRead(t, "story_followups.md")),
			},
			folder: "_bmad-output/implementation-artifacts",
			want: map[string]want{
				"sdc:2.3": {typ: workflow.TypeSDC, resumable: true, file: "_bmad-output/implementation-artifacts/2-3-labels.md", codes: []string{"ledger-drift"}, item: "AI-Review 2", done: 3, total: 5},
			},
		},
		{
			name: "not a ledger: a stories list",
			files: map[string]string{
				"docs/sprint-status.yaml": "stories:\n  - id: 1.1\n    status: in-progress\n",
			},
			want: map[string]want{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := repoWith(t, tt.files)
			cs, fs := scan(r)
			got := map[string]workflow.Candidate{}
			for _, c := range cs {
				got[c.ID] = c
			}
			for id, w := range tt.want {
				c, ok := got[id]
				if !ok {
					t.Errorf("missing %s; have %v", id, ids(cs))
					continue
				}
				checkCandidate(t, c, w)
			}
			if len(got) != len(tt.want) {
				t.Errorf("candidates %v, want %d", ids(cs), len(tt.want))
			}
			if tt.folder != "" && len(cs) > 0 {
				found := false
				var all []workflow.Finding
				all = append(all, fs...)
				for _, c := range cs {
					all = append(all, c.Findings...)
				}
				for _, f := range all {
					if f.Code == "bmad-story-folder" && strings.Contains(f.Message, "stories in "+tt.folder) {
						found = true
					}
				}
				if !found {
					t.Errorf("no folder finding naming %s: %v", tt.folder, fs)
				}
			}
		})
	}
}

func checkCandidate(t *testing.T, c workflow.Candidate, w want) {
	t.Helper()
	if c.Type != w.typ || c.Resumable != w.resumable || c.Framework != Framework || c.Source.Kind != workflow.KindBMADLedger {
		t.Errorf("%s: type %s resumable %v framework %q kind %s", c.ID, c.Type, c.Resumable, c.Framework, c.Source.Kind)
	}
	if w.file != "" && !source.HasRef(c.Files, w.file) {
		t.Errorf("%s: files %v lack %s", c.ID, c.Files, w.file)
	}
	if !source.HasRef(c.Files, c.Source.Path) {
		t.Errorf("%s: files lack the ledger", c.ID)
	}
	codes := map[string]bool{}
	for _, f := range c.Findings {
		codes[f.Code] = true
	}
	for _, code := range w.codes {
		if !codes[code] {
			t.Errorf("%s: no %s finding in %v", c.ID, code, c.Findings)
		}
	}
	for _, code := range w.absent {
		if codes[code] {
			t.Errorf("%s: unexpected %s finding", c.ID, code)
		}
	}
	if !w.resumable {
		if c.Resume != nil {
			t.Errorf("%s: resume point on a story not in flight", c.ID)
		}
		return
	}
	if c.Resume == nil {
		t.Fatalf("%s: no resume point", c.ID)
	}
	if c.Resume.Item != w.item || c.Resume.Done != w.done || c.Resume.Total != w.total || c.Resume.FrameworkCommand == "" {
		t.Errorf("%s: resume %+v, want item %q %d/%d", c.ID, c.Resume, w.item, w.done, w.total)
	}
	if w.total > 0 && (c.Position.Kind != workflow.PosStep || c.Position.Index != w.done || c.Position.Total != w.total) {
		t.Errorf("%s: position %+v", c.ID, c.Position)
	}
}

func ids(cs []workflow.Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func mustRead(t *testing.T, name string) []byte { return readFixture(t, name) }

// repoWith writes files into a real git repository, one commit.
func repoWith(t *testing.T, files map[string]string) *source.Repo {
	t.Helper()
	dir := t.TempDir()
	if err := gitfixture.Init(dir); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for p, content := range files {
		if err := gitfixture.WriteFile(dir, p, content); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	if _, err := gitfixture.Commit(dir, "bmad v6 fixture", "Ana", "ana@example.com", time.Date(2025, 11, 3, 10, 0, 0, 0, time.UTC), paths...); err != nil {
		t.Fatal(err)
	}
	r, _ := source.NewRepo(dir, config.Default())
	return r
}

// touch sets a file's modification time.
func touch(t *testing.T, r *source.Repo, rel string, when time.Time) {
	t.Helper()
	if err := os.Chtimes(filepath.Join(r.Root, filepath.FromSlash(rel)), when, when); err != nil {
		t.Fatal(err)
	}
}

func TestScanVersion(t *testing.T) {
	const lp = "_bmad-output/implementation-artifacts/sprint-status.yaml"
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"config header", map[string]string{"_bmad/bmm/config.yaml": "# BMM Module Configuration\n# Version: 6.0.3\noutput_folder: x\n"}, "6.0.3"},
		{"manifest", map[string]string{".bmad/_cfg/manifest.yaml": "installation:\n  version: 6.0.0-alpha.12\n"}, "6.0.0-alpha.12"},
		{"none", map[string]string{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.files[lp] = ledger("", "1-1-a: in-progress")
			cs, _ := scan(repoWith(t, tt.files))
			if len(cs) != 1 {
				t.Fatalf("candidates %v", ids(cs))
			}
			got, _ := cs[0].Context["bmad_version"].(string)
			if got != tt.want {
				t.Errorf("version %q, want %q", got, tt.want)
			}
		})
	}
}
