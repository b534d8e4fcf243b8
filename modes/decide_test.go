package modes

import (
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func blocking(check, msg string) workflow.Finding {
	return workflow.Finding{Check: check, Severity: workflow.Blocking, Code: check, Message: msg}
}

func warning(check, msg string) workflow.Finding {
	return workflow.Finding{Check: check, Severity: workflow.Warning, Code: check, Message: msg}
}

func TestDecide(t *testing.T) {
	conflicts := []workflow.Finding{
		blocking(workflow.CheckConflict, "story 3.4 was completed outside this workflow."),
		blocking(workflow.CheckConflict, "src/api.go was changed by commit abc1234 (Ana, 2 days ago)"),
	}
	missing := []workflow.Finding{blocking(workflow.CheckIntegrity, "story file docs/stories/3.5.md no longer exists")}
	input := []workflow.Finding{blocking(workflow.CheckPrerequisite, "docs/qa/v.md, an output of phase validate needed by implement, is missing; phase validate must re-run")}
	clean := Situation{Validation: "clean", AgeClass: "fresh", Age: 45 * time.Minute, Resumable: true, Candidates: 1}
	with := func(f func(*Situation)) Situation {
		s := clean
		f(&s)
		return s
	}
	tests := []struct {
		name     string
		s        Situation
		decision string
		code     exitcode.Code
		reason   []string // substrings of the reason
	}{
		// every mode
		{"terminal", with(func(s *Situation) { s.Terminal = true; s.Mode = ModeAutopilot }), DecisionHalt, 15, []string{"nothing left"}},
		{"terminal beats not resumable", with(func(s *Situation) { s.Terminal = true; s.Resumable = false }), DecisionHalt, 15, nil},
		{"not resumable", with(func(s *Situation) { s.Resumable = false }), DecisionHalt, 17, []string{"not an interrupted workflow"}},
		{"missing critical file, autopilot", with(func(s *Situation) { s.Mode = ModeAutopilot; s.Blocking = missing }), DecisionHalt, 17, []string{"1 blocking finding", "3.5.md no longer exists", "--force does not"}},
		{"missing critical file, forced", with(func(s *Situation) { s.Mode = ModeAutopilot; s.Force = true; s.Blocking = missing }), DecisionHalt, 17, nil},
		{"missing input, interactive forced", with(func(s *Situation) {
			s.Force = true
			s.Blocking = append(append([]workflow.Finding{}, input...), conflicts...)
		}), DecisionHalt, 17, []string{"phase validate must re-run"}},
		{"missing file, pre-flight approved and forced", with(func(s *Situation) {
			s.Mode, s.Approve, s.Force, s.Blocking = ModePreflight, true, true, missing
		}), DecisionHalt, 17, nil},

		// autopilot
		{"autopilot clean fresh", with(func(s *Situation) { s.Mode = ModeAutopilot }), DecisionResume, 0, []string{"state is clean and 45 minutes old"}},
		{"autopilot clean recent", with(func(s *Situation) { s.Mode, s.AgeClass, s.Age = ModeAutopilot, "recent", 5*time.Hour }), DecisionResume, 0, []string{"5 hours old"}},
		{"autopilot picks the most recent", with(func(s *Situation) { s.Mode, s.Candidates = ModeAutopilot, 3 }), DecisionResume, 0, []string{"most recent of 3"}},
		{"autopilot warnings", with(func(s *Situation) {
			s.Mode, s.Validation = ModeAutopilot, "warnings"
			s.Warnings = []workflow.Finding{warning(workflow.CheckConflict, "story 2.1 Dev Notes changed"), warning(workflow.CheckIntegrity, "docs/notes.md is missing")}
		}), DecisionResume, 0, []string{"resuming with 2 warnings", "Dev Notes changed"}},
		{"autopilot moderate age", with(func(s *Situation) { s.Mode, s.AgeClass, s.Age = ModeAutopilot, "moderate", 3*24*time.Hour }), DecisionResume, 0, []string{"resuming with 1 warning", "interrupted 3 days ago"}},
		{"autopilot warnings without the list", with(func(s *Situation) { s.Mode, s.Validation = ModeAutopilot, "warnings" }), DecisionResume, 0, []string{"resuming with warnings"}},
		{"autopilot conflicts", with(func(s *Situation) {
			s.Mode, s.Validation, s.Conflicts, s.Blocking = ModeAutopilot, "conflicts", true, conflicts
		}), DecisionHalt, 17,
			[]string{"2 conflicts: story 3.4 was completed outside this workflow; src/api.go", "pass --force --mode autopilot to resume anyway"}},
		{"autopilot conflicts forced", with(func(s *Situation) { s.Mode, s.Force, s.Conflicts, s.Blocking = ModeAutopilot, true, true, conflicts }), DecisionResume, 0, []string{"forced over 2 conflicts"}},
		{"autopilot stale", with(func(s *Situation) { s.Mode, s.AgeClass, s.Age = ModeAutopilot, "stale", 14*24*time.Hour }), DecisionHalt, 17, []string{"stale, interrupted 14 days ago", "--force", "--restart", "orchestrate cleanup"}},
		{"autopilot stale restarted", with(func(s *Situation) {
			s.Mode, s.AgeClass, s.Age, s.Restart = ModeAutopilot, "stale", 14*24*time.Hour, true
		}), DecisionResume, 0, []string{"clean"}},
		{"autopilot stale conflicts restarted", with(func(s *Situation) {
			s.Mode, s.AgeClass, s.Restart, s.Conflicts, s.Blocking = ModeAutopilot, "stale", true, true, conflicts
		}), DecisionHalt, 17, []string{"--force"}},
		{"autopilot stale forced", with(func(s *Situation) { s.Mode, s.AgeClass, s.Age, s.Force = ModeAutopilot, "stale", 14*24*time.Hour, true }), DecisionResume, 0, []string{"forced over staleness: interrupted 14 days ago"}},
		{"autopilot stale and conflicts forced", with(func(s *Situation) {
			s.Mode, s.AgeClass, s.Force, s.Blocking = ModeAutopilot, "stale", true, conflicts
		}), DecisionResume, 0, []string{"2 conflicts", "staleness"}},
		{"autopilot blocking age finding is staleness, not a hard stop", with(func(s *Situation) {
			s.Mode, s.AgeClass, s.Force = ModeAutopilot, "stale", true
			s.Blocking = []workflow.Finding{blocking(workflow.CheckAge, "stale: interrupted 9 days ago")}
		}), DecisionResume, 0, nil},
		{"autopilot validation says conflicts without findings", with(func(s *Situation) { s.Mode, s.Validation = ModeAutopilot, "conflicts" }), DecisionHalt, 17, []string{"conflicts"}},
		{"autopilot unknown age", with(func(s *Situation) { s.Mode, s.AgeClass, s.Age = ModeAutopilot, "unknown", 0 }), DecisionResume, 0, []string{"age is unknown"}},

		// interactive (the default)
		{"interactive clean", clean, DecisionAsk, 0, []string{"state is clean and 45 minutes old"}},
		{"interactive by name", with(func(s *Situation) { s.Mode = ModeInteractive }), DecisionAsk, 0, nil},
		{"interactive warnings", with(func(s *Situation) {
			s.Validation, s.Warnings = "warnings", []workflow.Finding{warning("consistency", "x")}
		}), DecisionAsk, 0, []string{"1 warning to review: x"}},
		{"interactive conflicts", with(func(s *Situation) { s.Conflicts, s.Blocking = true, conflicts }), DecisionAsk, 0, []string{"2 conflicts must be resolved or forced before resuming: story 3.4", "--force --approve"}},
		{"interactive conflicts forced", with(func(s *Situation) { s.Force, s.Conflicts, s.Blocking = true, true, conflicts }), DecisionAsk, 0, []string{"forced over 2 conflicts", "confirm"}},
		{"interactive stale", with(func(s *Situation) { s.AgeClass, s.Age = "stale", 10*24*time.Hour }), DecisionAsk, 0, []string{"stale: interrupted 10 days ago", "--restart"}},

		// pre-flight
		{"pre-flight without approval", with(func(s *Situation) { s.Mode = ModePreflight }), DecisionAsk, 0, []string{"--approve", "clean"}},
		{"pre-flight approved", with(func(s *Situation) { s.Mode, s.Approve = ModePreflight, true }), DecisionResume, 0, []string{"approved: state is clean"}},
		{"pre-flight approved stale", with(func(s *Situation) { s.Mode, s.Approve, s.AgeClass = ModePreflight, true, "stale" }), DecisionResume, 0, []string{"stale"}},
		{"pre-flight conflicts not approved", with(func(s *Situation) { s.Mode, s.Blocking = ModePreflight, conflicts }), DecisionAsk, 0, []string{"2 conflicts", "resolved or forced", "--force --approve"}},
		{"pre-flight approved conflicts", with(func(s *Situation) { s.Mode, s.Approve, s.Blocking = ModePreflight, true, conflicts }), DecisionHalt, 17, []string{"approved, but 2 conflicts", "--force --approve"}},
		{"pre-flight approved conflicts forced", with(func(s *Situation) { s.Mode, s.Approve, s.Force, s.Blocking = ModePreflight, true, true, conflicts }), DecisionResume, 0, []string{"forced over 2 conflicts"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, code := Decide(tt.s)
			if d != tt.decision || code != tt.code {
				t.Errorf("Decide = %s %d (%q), want %s %d", d, code, reason, tt.decision, tt.code)
			}
			for _, want := range tt.reason {
				if !strings.Contains(reason, want) {
					t.Errorf("reason %q lacks %q", reason, want)
				}
			}
			if reason == "" || strings.Contains(reason, "\n") || strings.HasSuffix(reason, ".") {
				t.Errorf("reason %q is not one sentence without a final period", reason)
			}
		})
	}
}

func TestDecideListsAtMostThree(t *testing.T) {
	var fs []workflow.Finding
	for i := 0; i < 5; i++ {
		fs = append(fs, blocking(workflow.CheckConflict, "c"+string(rune('1'+i))))
	}
	_, reason, _ := Decide(Situation{Mode: ModeAutopilot, Resumable: true, Blocking: fs})
	if !strings.Contains(reason, "5 conflicts: c1; c2; c3; and 2 more") {
		t.Errorf("reason = %q", reason)
	}
}

// TestDecideDurationWording: the reasons word ages with templates.Duration,
// the one duration wording (36 hours is "36 hours", never "1 day").
func TestDecideDurationWording(t *testing.T) {
	for _, tt := range []struct {
		age   time.Duration
		class string
		want  string
	}{
		{10 * time.Second, "fresh", "state is clean and 10 seconds old"},
		{45 * time.Minute, "fresh", "state is clean and 45 minutes old"},
		{36 * time.Hour, "recent", "state is clean and 36 hours old"},
		{14 * 24 * time.Hour, "stale", "interrupted 14 days ago"},
	} {
		_, reason, _ := Decide(Situation{Mode: ModeAutopilot, Resumable: true, Validation: "clean", AgeClass: tt.class, Age: tt.age, Force: true})
		if !strings.Contains(reason, tt.want) {
			t.Errorf("age %v: reason = %q, want it to contain %q", tt.age, reason, tt.want)
		}
	}
}

// TestPersonCanDecide: autopilot on a terminal falls back to interactive for
// the halts a person could decide, never for those no answer fixes.
func TestPersonCanDecide(t *testing.T) {
	conflict := blocking(workflow.CheckConflict, "story 3.4 was completed outside this workflow")
	history := workflow.Finding{Check: workflow.CheckConflict, Severity: workflow.Blocking, Code: "history-missing", Message: "the git history does not reach the interruption"}
	rebuilt := workflow.Finding{Check: "rebuild", Severity: workflow.Blocking, Code: "rebuilt-needs-confirmation", Message: "autopilot never resumes a rebuilt state"}
	partial := workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Blocking, Code: "autopilot-partial-state", Message: "wrong-typed fields"}
	missing := blocking(workflow.CheckIntegrity, "story 3.5 file no longer exists")
	base := Situation{Mode: ModeAutopilot, Resumable: true, Validation: "clean", AgeClass: "fresh"}
	for _, tt := range []struct {
		name string
		edit func(*Situation)
		want bool
	}{
		{"clean", func(*Situation) {}, false},
		{"conflicts", func(s *Situation) { s.Conflicts, s.Blocking = true, []workflow.Finding{conflict} }, true},
		{"history missing", func(s *Situation) { s.Conflicts, s.Blocking = true, []workflow.Finding{history} }, true},
		{"stale", func(s *Situation) { s.AgeClass = "stale" }, true},
		{"rebuilt state", func(s *Situation) { s.Blocking = []workflow.Finding{rebuilt} }, true},
		{"partly understood state", func(s *Situation) { s.Blocking = []workflow.Finding{partial} }, true},
		{"missing critical file", func(s *Situation) { s.Blocking = []workflow.Finding{missing} }, false},
		{"missing file and conflicts", func(s *Situation) { s.Conflicts, s.Blocking = true, []workflow.Finding{missing, conflict} }, false},
		{"terminal", func(s *Situation) { s.Terminal, s.AgeClass = true, "stale" }, false},
		{"not resumable", func(s *Situation) { s.Resumable, s.AgeClass = false, "stale" }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := base
			tt.edit(&s)
			if got := PersonCanDecide(s); got != tt.want {
				t.Errorf("PersonCanDecide = %v, want %v", got, tt.want)
			}
		})
	}
}

// A stale halt suggests cleanup only when cleanup would not refuse the
// workflow (NoCleanup: a framework's shared files).
func TestDecideStaleNoCleanup(t *testing.T) {
	s := Situation{Mode: ModeAutopilot, Resumable: true, AgeClass: "stale", Age: 14 * 24 * time.Hour, NoCleanup: true}
	d, reason, code := Decide(s)
	if d != DecisionHalt || code != 17 || strings.Contains(reason, "cleanup") || !strings.Contains(reason, "--force") || !strings.Contains(reason, "--restart") {
		t.Errorf("Decide = %s %d %q, want a halt (17) naming --force and --restart, not cleanup", d, code, reason)
	}
}
