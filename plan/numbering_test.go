package plan

import (
	"fmt"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/qaloop"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// frameworkCand is a framework candidate as its source builds it: steps
// (spec-kit phases, GSD plans, Taskmaster subtasks), the first closed
// step's output, and the item to resume inside the current step.
func frameworkCand(typ workflow.Type, kind string, ids []string, cur int, item string, done, total int) workflow.Candidate {
	c := workflow.Candidate{ID: string(typ) + ":x", Type: typ, Key: "x", Source: workflow.SourceRef{Kind: kind, Path: "tasks"},
		Status: string(workflow.StatusInProgress), Resumable: true, Stories: []string{}}
	for i, id := range ids {
		st := workflow.PhasePending
		switch {
		case i < cur:
			st = workflow.PhaseCompleted
		case i == cur:
			st = workflow.PhaseCurrent
		}
		c.Phases = append(c.Phases, workflow.Phase{ID: id, Name: "Phase " + id, Status: st})
	}
	c.Phases[0].Outputs = []string{"src/app.py"}
	c.Files = []workflow.RefFile{{Path: "src/app.py", Phase: ids[0], Produced: true, From: "task T001"}}
	c.Resume = &workflow.ResumePoint{Item: item, Done: done, Total: total}
	c.Position = workflow.StepPosition(done, total, item)
	c.Position.Name = c.Phases[cur].Name
	return c
}

// TestResumeFromIsTheCandidatesResumePoint: a framework that names the item
// to resume (spec-kit's first open task, GSD's plan, Taskmaster's subtask)
// resumes there, whatever changed or went missing in earlier steps (those
// are findings): plan.resume_from names the item's step and the item, and
// the plan's position is the candidate's. A spec-kit feature whose first
// open task is T025 in "Phase 7: Polish" once resumed at phase-1 because a
// file a Phase 1 task named had changed since.
func TestResumeFromIsTheCandidatesResumePoint(t *testing.T) {
	speckit := []string{"phase-1", "phase-2", "phase-3", "phase-4", "phase-5", "phase-6", "phase-7"}
	tests := []struct {
		name      string
		c         workflow.Candidate
		wantPhase string
		wantPos   string
	}{
		{"spec-kit T025 in Phase 7", frameworkCand(workflow.TypeFeature, workflow.KindSpecKit, speckit, 6, "T025", 24, 25), "phase-7", "24/25 done, at T025"},
		{"GSD plan 02-02", frameworkCand(workflow.TypePhase, workflow.KindGSD, []string{"02-01", "02-02", "02-03", "verify-02"}, 1, "02-02", 1, 3), "02-02", "1/3 done, at 02-02"},
		{"Taskmaster subtask 2.2", frameworkCand(workflow.TypeTask, workflow.KindTaskmaster, []string{"2.1", "2.2", "2.3"}, 1, "2.2", 1, 3), "2.2", "1/3 done, at 2.2"},
	}
	reports := []struct {
		name string
		rep  validate.Report
		env  Env
	}{
		{"clean", validate.Report{}, allKnown},
		{"an earlier step's file changed", validate.Report{ChangedPhases: []string{"phase-1", "02-01", "2.1"}}, allKnown},
		{"an earlier step's output missing", validate.Report{}, Env{Exists: func(p string) bool { return p != "src/app.py" }}},
	}
	for _, tt := range tests {
		for _, r := range reports {
			t.Run(tt.name+"/"+r.name, func(t *testing.T) {
				p := build(t, tt.c, r.rep, workflow.Definition{}, r.env, Options{})
				if p.ResumeFrom.Phase != tt.wantPhase || p.ResumeFrom.Item != tt.c.Resume.Item {
					t.Errorf("resume_from = %+v, want phase %s item %s", p.ResumeFrom, tt.wantPhase, tt.c.Resume.Item)
				}
				if p.PositionText != tt.wantPos || p.PositionText != tt.c.Position.String() {
					t.Errorf("position %q, candidate %q, want %q", p.PositionText, tt.c.Position.String(), tt.wantPos)
				}
				if len(p.InvalidPhases) != 0 || p.Partial {
					t.Errorf("invalid phases %v: the framework's item is the resume point", p.InvalidPhases)
				}
			})
		}
		t.Run(tt.name+"/--from-phase", func(t *testing.T) {
			// a start the user chooses is not the framework's item
			p := build(t, tt.c, validate.Report{}, workflow.Definition{}, allKnown, Options{FromPhase: tt.c.Phases[0].ID})
			if p.ResumeFrom.Phase != tt.c.Phases[0].ID || p.ResumeFrom.Item != "" {
				t.Errorf("resume_from = %+v", p.ResumeFrom)
			}
		})
	}
}

// TestPositionText pins the one numbering on every kind of position.
func TestPositionText(t *testing.T) {
	tests := []struct {
		pos  workflow.Position
		want string
	}{
		{workflow.StepPosition(5, 12, "T006"), "5/12 done, at T006"},
		{workflow.StepPosition(0, 7, "T001"), "0/7 done, at T001"},
		{workflow.StepPosition(3, 3, ""), "3/3 done"},
		{workflow.PhasePosition(3, 4, "Implementation"), "2/4 done, at Implementation"},
		{workflow.PhasesDone(4, "QA Gate"), "4/4 done"},
		{workflow.Position{Kind: workflow.PosIteration, Index: 3, Done: 2, Total: 5, At: "fix"}, "2/5 iterations done, at fix"},
		{workflow.Position{Kind: workflow.PosWave, Index: 2, Done: 1, Total: 3, At: "wave 2"}, "1/3 done, at wave 2"},
		{workflow.Position{Kind: workflow.PosStep, Done: 2, Last: "tests pass"}, "2 done, last: tests pass"},
		{workflow.Position{}, "-"},
	}
	for _, tt := range tests {
		if got := tt.pos.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.pos, got, tt.want)
		}
	}
}

// TestQALoopPositionAgrees: for every QA-loop state (iteration 0 to past
// the maximum, every verdict, fixes applied or not), the plan resuming
// where the state says prints discovery's position, in the one numbering.
func TestQALoopPositionAgrees(t *testing.T) {
	for iter := 0; iter <= 6; iter++ {
		for _, verdict := range []string{"", "REJECT", "BLOCKED", "APPROVE"} {
			for _, fixed := range []bool{false, true} {
				c := qaCand(iter, 5, verdict, fixed)
				c.Position = qaloop.Position(qaDef, c.Status, c.QA)
				t.Run(fmt.Sprintf("%d-%s-%v", iter, verdict, fixed), func(t *testing.T) {
					p := build(t, c, validate.Report{}, qaDef, allKnown, Options{})
					if p.PositionText != c.Position.String() {
						t.Errorf("plan %q, discovery %q", p.PositionText, c.Position.String())
					}
					if c.Position.Done > c.Position.Total {
						t.Errorf("position %q counts more than the maximum", c.Position.String())
					}
				})
			}
		}
	}
}
