package validate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// consistencyFindings returns the consistency findings of rep.
func consistencyFindings(rep Report) []workflow.Finding {
	var out []workflow.Finding
	for _, f := range rep.Findings {
		if f.Check == workflow.CheckConsistency {
			out = append(out, f)
		}
	}
	return out
}

func TestConsistencyRows(t *testing.T) {
	rows := []struct {
		name, state, story string
		code               string // "" = no finding
		sev                workflow.Severity
		verdict            string
		msg                string
	}{
		{"inprogress-inprogress", "in_progress", "InProgress", "", "", VerdictConsistent, ""},
		{"inprogress-done", "in_progress", "Done", "completed-outside", workflow.Blocking, VerdictCompletedOutside,
			"story 3.4 was completed outside this workflow (state says InProgress, story says Done)"},
		{"inprogress-draft", "InProgress", "Draft", "story-reset", workflow.Blocking, VerdictReset, "state is stale"},
		{"inreview-done", "in_review", "Done", "qa-completed-outside", workflow.Blocking, VerdictQACompletedOutside, "(state says InReview, story says Done)"},
		{"pending-ready", "pending", "Ready", "validated-while-paused", workflow.Info, VerdictValidatedPaused, "validated while"},
		{"pending-draft", "todo", "Draft", "", "", VerdictConsistent, ""},
		{"inreview-inreview", "review", "InReview", "", "", VerdictConsistent, ""},
		{"done-done", "completed", "Done", "", "", VerdictConsistent, ""},
		{"active-vocabulary", "active", "InProgress", "", "", VerdictConsistent, ""},
		{"merged-vocabulary", "merged", "Done", "", "", VerdictConsistent, ""},
		{"blocked-blocked", "blocked", "Blocked", "", "", VerdictConsistent, ""},
		{"inprogress-inreview", "in_progress", "InReview", "status-mismatch", workflow.Warning, VerdictMismatch, "(state says InProgress, story says InReview)"},
		{"done-inprogress", "done", "InProgress", "status-mismatch", workflow.Warning, VerdictMismatch, ""},
		{"pending-inprogress", "queued", "InProgress", "status-mismatch", workflow.Warning, VerdictMismatch, ""},
		{"skipped", "skipped", "Done", "", "", VerdictSkipped, ""},
		{"story-unknown", "in_progress", "95% Complete - one task remaining", "story-status-unknown", workflow.Info, VerdictUnknown, "95% Complete"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			r := newRepo(t)
			st := r.story("3.4", row.story, "AC", "notes", time.Time{})
			c := sdc("3.4")
			c.StoryRefs[0].Status = row.state
			rep := Validate(input(r, c, st))
			fs := consistencyFindings(rep)
			if row.code == "" {
				if len(fs) != 0 {
					t.Fatalf("findings = %+v, want none", fs)
				}
			} else {
				if len(fs) != 1 || fs[0].Code != row.code || fs[0].Severity != row.sev {
					t.Fatalf("findings = %+v, want one %s %s", fs, row.sev, row.code)
				}
				if !strings.Contains(fs[0].Message, row.msg) {
					t.Errorf("message %q does not contain %q", fs[0].Message, row.msg)
				}
				if fs[0].Path != "docs/stories/3.4.story.md" {
					t.Errorf("path = %q", fs[0].Path)
				}
			}
			if len(rep.Stories) != 1 || rep.Stories[0].Verdict != row.verdict || !rep.Stories[0].Exists {
				t.Errorf("stories = %+v, want verdict %s", rep.Stories, row.verdict)
			}
		})
	}
}

func TestConsistencyDerivedStatus(t *testing.T) {
	r := newRepo(t)
	done := r.story("4.2", "Done", "AC", "notes", time.Time{})

	// An SDC workflow at phase implement, without a status for its story.
	c := sdc("4.2")
	c.StoryRefs = nil
	rep := Validate(input(r, c, done))
	if f := find(t, rep, "completed-outside"); !strings.Contains(f.Message, "story 4.2") {
		t.Errorf("message = %q", f.Message)
	}

	// At review (named by the current phase entry only).
	c.Position = workflow.Position{Kind: workflow.PosPhase, Index: 4, Total: 4}
	c.Phases = []workflow.Phase{{ID: "create"}, {ID: "validate"}, {ID: "implement"}, {ID: "review", Name: "QA Gate"}}
	rep = Validate(input(r, c, done))
	find(t, rep, "qa-completed-outside")

	// A QA loop is in review.
	q := workflow.Candidate{ID: "qa-loop:4.2", Type: workflow.TypeQALoop, Stories: []string{"4.2"},
		Source: workflow.SourceRef{Kind: workflow.KindQALoop, Path: "qa/loop-status.json"}, UpdatedAt: t0, Resumable: true}
	rep = Validate(input(r, q, done))
	find(t, rep, "qa-completed-outside")

	// An epic without statuses: nothing to compare.
	e := workflow.Candidate{ID: "epic:5", Type: workflow.TypeEpic, Stories: []string{"4.2"}, UpdatedAt: t0}
	rep = Validate(input(r, e, done))
	if fs := consistencyFindings(rep); len(fs) != 0 || rep.Stories[0].Verdict != VerdictNotCompared {
		t.Errorf("findings = %+v, stories = %+v", fs, rep.Stories)
	}
}

func TestConsistencyStoryMissing(t *testing.T) {
	r := newRepo(t)
	st34 := r.story("3.4", "Done", "AC", "notes", time.Time{})
	c := workflow.Candidate{
		ID: "epic:3", Type: workflow.TypeEpic, Key: "3",
		Source:    workflow.SourceRef{Kind: workflow.KindEpicState, Path: ".aiox/epic-3-state.yaml", Priority: 1},
		Stories:   []string{"3.1", "3.4", "3.5", "3.6", "3.7"},
		Resumable: true, UpdatedAt: now.Add(-14 * 24 * time.Hour),
		StoryRefs: []workflow.StoryRef{
			{ID: "3.1", Status: "done"},
			{ID: "3.4", Status: "in_progress"},
			{ID: "3.5", Status: "in_progress", Path: "docs/stories/3.5.story.md"},
			{ID: "3.6", Status: "pending"},
			{ID: "3.7", Status: "pending", Path: "docs/stories/3.7.story.md"},
		},
		// The missing story's file is also referenced: reported once, as story-missing.
		Files: []workflow.RefFile{{Path: "docs/stories/3.5.story.md", Phase: "waves", Critical: true}},
		Epic:  &workflow.Epic{EpicID: "3"},
	}
	rep := Validate(input(r, c, st34))
	got := map[string][]string{}
	for _, f := range consistencyFindings(rep) {
		got[f.Code] = append(got[f.Code], f.Message)
	}
	want := map[string][]string{
		"completed-outside": {"story 3.4 was completed outside this workflow (state says InProgress, story says Done)"},
		"story-missing":     {"story 3.5 file no longer exists", "story 3.7 file no longer exists"},
		"story-not-created": {"story 3.6 has no file yet (pending in the state)"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("consistency findings\n got %v\nwant %v", got, want)
	}
	if has(rep, "missing-critical") {
		t.Error("the missing story file was reported twice (missing-critical too)")
	}
	if fr := fileReport(t, rep, "docs/stories/3.5.story.md"); fr.State != FileMissing {
		t.Errorf("file report = %+v", fr)
	}
	verdicts := map[string]string{}
	for _, s := range rep.Stories {
		verdicts[s.ID] = s.Verdict
	}
	if want := "map[3.1:missing 3.4:completed-outside 3.5:missing 3.6:not-created 3.7:missing]"; fmt.Sprint(verdicts) != want {
		t.Errorf("verdicts = %v, want %s", verdicts, want)
	}
	if rep.Status != StatusConflicts || rep.AgeClass != AgeStale {
		t.Errorf("status %s, age %s", rep.Status, rep.AgeClass)
	}
}

// TestConsistencyRecordedPath: a story that discovery did not parse (outside
// the stories folder) but whose path the state records is read and parsed.
func TestConsistencyRecordedPath(t *testing.T) {
	r := newRepo(t)
	r.write("elsewhere/9.1.md", storyText("9.1", "Done", "AC", "notes"), time.Time{})
	c := sdc("9.1")
	c.StoryRefs[0].Path = "elsewhere/9.1.md"
	rep := Validate(input(r, c))
	find(t, rep, "completed-outside")
	if rep.Stories[0].Path != "elsewhere/9.1.md" || !rep.Stories[0].Exists {
		t.Errorf("story report = %+v", rep.Stories[0])
	}
}

// TestConsistencyLooseIDs: "STORY-4.2" in the state matches story "4.2".
func TestConsistencyLooseIDs(t *testing.T) {
	r := newRepo(t)
	st := r.story("4.2", "Done", "AC", "notes", time.Time{})
	c := sdc("4.2")
	c.Stories = []string{"STORY-4.2"}
	c.StoryRefs = []workflow.StoryRef{{ID: "story 4.2", Status: "in_progress"}}
	rep := Validate(input(r, c, st))
	find(t, rep, "completed-outside")
	if len(rep.Stories) != 1 {
		t.Errorf("stories = %+v, want one", rep.Stories)
	}
}

func TestStateStatus(t *testing.T) {
	for raw, want := range map[string]string{
		"In Progress": "InProgress", "implementing": "InProgress", "qa": "InReview", "Ready for Review": "InReview",
		"passed": "Done", "not started": "pending", "Waiting": "pending", "draft": "Draft", "READY": "Ready",
		"blocked": "Blocked", "failed": "failed", "": "",
	} {
		if got, skip := StateStatus(raw); got != want || skip {
			t.Errorf("StateStatus(%q) = %q, %v; want %q", raw, got, skip, want)
		}
	}
	if _, skip := StateStatus("Skipped"); !skip {
		t.Error("skipped is not skipped")
	}
}
