package validate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/story"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The real git seam is what validation codes against.
var _ validate.Git = (*gitrepo.Repo)(nil)

const storyPath = "docs/stories/2.1.story.md"

func storyFile(ac string) string {
	return `# Story 2.1: Login form

**Status:** InProgress

## Story

As a user I want to log in.

## Acceptance Criteria

` + ac + `

## Scope

The login form only.

## Dev Notes

Use the existing session helper.

## File List

- src/app.ts
- src/util.ts
- src/wip.ts
`
}

// TestGitIntegration runs validation against a real repository built with
// gitfixture and read through gitrepo: after the interruption another
// author commits a change to a File List file and to the story's
// Acceptance Criteria, a File List file has an uncommitted edit (the
// workflow's own progress), and the workflow's own unfinished edit from
// before the interruption is still in the work tree.
func TestGitIntegration(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC) // the interruption
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	write := func(rel, content string, mtime time.Time) {
		t.Helper()
		must(gitfixture.WriteFile(dir, rel, content))
		must(os.Chtimes(filepath.Join(dir, filepath.FromSlash(rel)), mtime, mtime))
	}

	// The state of the repository when the workflow started.
	must(gitfixture.Init(dir))
	write(storyPath, storyFile("1. The form logs the user in."), at.Add(-3*time.Hour))
	for _, f := range []string{"src/app.ts", "src/util.ts", "src/wip.ts", "src/other.ts"} {
		write(f, "export const v = 1;\n", at.Add(-3*time.Hour))
	}
	base, err := gitfixture.Commit(dir, "start story 2.1", "Dev Agent", "dev@example.com", at.Add(-2*time.Hour))
	must(err)
	// The workflow's own unfinished edit, made before it was interrupted.
	write("src/wip.ts", "export const v = 2; // wip\n", at.Add(-10*time.Minute))

	// Another author's work after the interruption.
	write("src/app.ts", "export const v = 3;\n", at.Add(time.Hour))
	write("src/other.ts", "export const v = 3;\n", at.Add(time.Hour)) // not referenced
	write(storyPath, storyFile("1. The form logs the user in.\n2. It locks after 3 failures."), at.Add(time.Hour))
	jane, err := gitfixture.Commit(dir, "tighten login", "Jane Doe", "jane@example.com", at.Add(time.Hour),
		"src/app.ts", "src/other.ts", storyPath)
	must(err)
	// An uncommitted edit after the interruption.
	write("src/util.ts", "export const v = 4;\n", at.Add(2*time.Hour))

	repo, err := gitrepo.Open(dir)
	must(err)
	defer repo.Close()

	parse := func(path string, data []byte) *workflow.Story {
		st, _ := story.ParseStory(path, data, nil)
		return st
	}
	data, err := os.ReadFile(filepath.Join(dir, storyPath))
	must(err)
	story := parse(storyPath, data)

	c := workflow.Candidate{
		ID: "workflow:sdc-2.1", Type: workflow.TypeWorkflow, Key: "sdc-2.1", Workflow: workflow.DefSDC,
		Source:    workflow.SourceRef{Kind: workflow.KindWorkflowState, Path: ".orchestrate/workflows/sdc-2.1.yaml", Priority: workflow.PriorityWorkflow},
		Stories:   []string{"2.1"},
		StoryRefs: []workflow.StoryRef{{ID: "2.1", Status: "in_progress", Path: storyPath}},
		Status:    "paused", Resumable: true, UpdatedAt: at,
		Position: workflow.Position{Kind: workflow.PosPhase, Index: 3, Total: 4, Name: "implement"},
		Files: []workflow.RefFile{
			{Path: storyPath, Phase: "implement", Critical: true},
			{Path: "src/app.ts", Phase: "implement", From: "file-list"},
			{Path: "src/util.ts", Phase: "implement", From: "file-list"},
			{Path: "src/wip.ts", Phase: "implement", From: "file-list"},
		},
	}
	in := validate.Input{
		Root: repo.Root(), Candidate: c, Stories: map[string]*workflow.Story{story.ID: story},
		Git: repo, Now: at.Add(3 * time.Hour), Config: config.Default(), ParseStory: parse,
	}
	rep := validate.Validate(in)

	if rep.GitMode != validate.GitModeGit || rep.Base.Hash != base {
		t.Fatalf("git mode %q, base %s; want git, %s (findings %v)", rep.GitMode, rep.Base.Hash, base, rep.Findings)
	}
	byCode := map[string][]workflow.Finding{}
	for _, f := range rep.Findings {
		byCode[f.Code] = append(byCode[f.Code], f)
	}
	janeBy := jane[:7] + " (Jane Doe, 2026-01-10T13:00:00Z)"
	expect := []struct {
		code, path, substr string
		sev                workflow.Severity
	}{
		{"file-changed", "src/app.ts", "src/app.ts was changed since the interruption by " + janeBy, workflow.Blocking},
		// the workflow's own File List file, edited in the working tree: progress
		{"progress", "src/util.ts", "src/util.ts has the workflow's own work in progress since the interruption: an uncommitted edit (modified 2026-01-10T14:00:00Z)", workflow.Info},
		{"acceptance-changed", storyPath, "the Acceptance Criteria of story 2.1 changed since the interruption by " + janeBy, workflow.Blocking},
		{"own-uncommitted-work", "src/wip.ts", "the workflow's own unfinished work", workflow.Info},
	}
	for _, e := range expect {
		fs := byCode[e.code]
		if len(fs) != 1 || fs[0].Path != e.path || fs[0].Severity != e.sev || !strings.Contains(fs[0].Message, e.substr) {
			t.Errorf("%s: got %+v\nwant one %s finding on %s containing %q", e.code, fs, e.sev, e.path, e.substr)
		}
		delete(byCode, e.code)
	}
	if len(byCode) != 0 {
		t.Errorf("unexpected findings: %v", byCode)
	}
	for _, f := range rep.Findings {
		if strings.Contains(f.Message, "src/other.ts") {
			t.Errorf("a file the workflow does not reference was reported: %+v", f)
		}
	}

	states := map[string]string{}
	for _, f := range rep.Files {
		states[f.Path] = f.State
		if f.Path == "src/app.ts" && (len(f.By) != 1 || f.By[0].Hash != jane || f.By[0].Author != "Jane Doe") {
			t.Errorf("src/app.ts By = %+v", f.By)
		}
	}
	want := map[string]string{
		storyPath:    validate.FileChangedCommitted,
		"src/app.ts": validate.FileChangedCommitted, "src/util.ts": validate.FileChangedUncommitted,
		"src/wip.ts": validate.FileChangedUncommitted,
	}
	for p, s := range want {
		if states[p] != s {
			t.Errorf("%s: state %q, want %q", p, states[p], s)
		}
	}
	// the last activity on the workflow's own files: the uncommitted edit
	if want := at.Add(2 * time.Hour); !rep.InterruptedAt.Equal(want) {
		t.Errorf("interrupted at %s, want %s (the own uncommitted edit)", rep.InterruptedAt, want)
	}
	if strings.Join(rep.ChangedPhases, ",") != "implement" || rep.Status != validate.StatusConflicts {
		t.Errorf("changed phases %v, status %s", rep.ChangedPhases, rep.Status)
	}
	if len(rep.Stories) != 1 || rep.Stories[0].Verdict != validate.VerdictConsistent {
		t.Errorf("stories = %+v", rep.Stories)
	}

	// The same repository again: the same report.
	if again := validate.Validate(in); !sameFindings(again.Findings, rep.Findings) {
		t.Errorf("second run differs:\n%v\n%v", again.Findings, rep.Findings)
	}
}

func sameFindings(a, b []workflow.Finding) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGoneReference: a referenced file a commit removed is reported with that
// commit (and where it moved). An epic's execution plan is only a warning
// when the state lists the waves and stories; without them it stays
// blocking, and a plain missing file is a warning either way.
func TestGoneReference(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	const plan = "docs/stories/epics/EPIC-3-EXECUTION.yaml"
	must(gitfixture.Init(dir))
	must(gitfixture.WriteFile(dir, plan, "waves: [1, 2]\n"))
	must(gitfixture.WriteFile(dir, "docs/notes.md", "notes\n"))
	_, err := gitfixture.Commit(dir, "plan epic 3", "Dev Agent", "dev@example.com", at.Add(-time.Hour))
	must(err)
	must(gitfixture.Remove(dir, "docs/stories"))
	must(gitfixture.WriteFile(dir, "docs/plans/EPIC-3-EXECUTION.yaml", "waves: [1, 2]\n"))
	must(gitfixture.Remove(dir, "docs/notes.md"))
	moved, err := gitfixture.Commit(dir, "move plans", "Framework Bot", "bot@example.com", at.Add(time.Hour))
	must(err)
	repo, err := gitrepo.Open(dir)
	must(err)
	defer repo.Close()

	waves := []workflow.Wave{{Number: 1, Stories: []workflow.StoryRef{{ID: "3.1"}, {ID: "3.2"}}}, {Number: 2, Stories: []workflow.StoryRef{{ID: "3.3"}}}}
	for _, tc := range []struct {
		name  string
		waves []workflow.Wave
		ref   workflow.RefFile
		code  string
		sev   workflow.Severity
		msg   string
	}{
		{"plan, waves listed", waves, workflow.RefFile{Path: plan, Phase: "waves", Critical: true, From: "executionPlan"},
			"missing-file", workflow.Warning,
			plan + " is missing, moved to docs/plans/EPIC-3-EXECUTION.yaml by " + moved[:7] + " (Framework Bot, 2026-01-10T13:00:00Z) \"move plans\" (needed by phase waves); the saved state lists every wave and story of the execution plan (2 waves, 3 stories), so the workflow can resume without it"},
		{"plan, no waves", nil, workflow.RefFile{Path: plan, Phase: "waves", Critical: true, From: "executionPlan"},
			"missing-critical", workflow.Blocking,
			"critical file " + plan + " is missing, moved to docs/plans/EPIC-3-EXECUTION.yaml by " + moved[:7]},
		{"plain file deleted", waves, workflow.RefFile{Path: "docs/notes.md", Phase: "waves"},
			"missing-file", workflow.Warning,
			"referenced file docs/notes.md is missing, deleted by " + moved[:7] + " (Framework Bot, 2026-01-10T13:00:00Z) \"move plans\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := workflow.Candidate{
				ID: "epic:EPIC-3", Type: workflow.TypeEpic, Key: "EPIC-3", Workflow: workflow.DefEpic,
				Source: workflow.SourceRef{Kind: workflow.KindEpicState, Path: ".aiox/epic-EPIC-3-state.yaml", Priority: workflow.PriorityEpic},
				Status: "active", Resumable: true, UpdatedAt: at,
				Epic:  &workflow.Epic{EpicID: "EPIC-3", PlanPath: plan, CurrentWave: 1, Waves: tc.waves},
				Files: []workflow.RefFile{tc.ref},
			}
			rep := validate.Validate(validate.Input{Root: repo.Root(), Candidate: c, Git: repo, Now: at.Add(2 * time.Hour), Config: config.Default()})
			var found *workflow.Finding
			for i := range rep.Findings {
				if rep.Findings[i].Code == tc.code {
					found = &rep.Findings[i]
				}
			}
			if found == nil || found.Severity != tc.sev || !strings.HasPrefix(found.Message, tc.msg) {
				t.Fatalf("want %s %s %q\ngot %+v", tc.sev, tc.code, tc.msg, rep.Findings)
			}
			if len(rep.Files) != 1 || rep.Files[0].State != validate.FileMissing || len(rep.Files[0].By) != 1 || rep.Files[0].By[0].Hash != moved {
				t.Errorf("file report: %+v", rep.Files)
			}
		})
	}
}
