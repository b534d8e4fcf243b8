package modes

import (
	"fmt"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/internal/textfmt"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Decisions a mode takes (the plan's decision).
const (
	DecisionResume = "resume" // go ahead
	DecisionAsk    = "ask"    // the user must answer
	DecisionHalt   = "halt"   // stop
)

// Situation is everything a mode decides on.
type Situation struct {
	Mode       Mode   // autopilot | interactive | preflight ("" is interactive)
	Validation string // clean | warnings | conflicts (validate.Report.Status)
	AgeClass   string // fresh | recent | moderate | stale | unknown
	// Age is how long ago the workflow was interrupted (0 when unknown); it
	// only words the reason.
	Age time.Duration
	// Blocking are the blocking findings (validation and plan prerequisites).
	// Those of check "conflict" (and "age") can be forced; the others cannot.
	Blocking []workflow.Finding
	// Warnings are the warning findings; they only word the reason.
	Warnings []workflow.Finding
	// Conflicts is set when some blocking finding is a conflict.
	Conflicts bool
	// Force, Approve: the --force and --approve flags.
	Force, Approve bool
	// Terminal: nothing is left to do.
	Terminal bool
	// Resumable: the candidate is an interrupted workflow.
	Resumable bool
	// Candidates is how many resumable candidates were found.
	Candidates int
	// Selected is set when the user named the workflow.
	Selected bool
	// Restart: the workflow starts over from its first phase (--restart, or
	// the user chose to restart); its age no longer matters.
	Restart bool
	// NoCleanup: orchestrate cleanup would refuse this workflow (its files
	// are a framework's shared files): no reason suggests it.
	NoCleanup bool
	// ID is the workflow's id, for the commands a reason names ("" words
	// them without it).
	ID string
}

// Exit codes Decide returns.
const (
	exitResume   = exitcode.OK
	exitTerminal = exitcode.Terminal
	exitCannot   = exitcode.Cannot
)

// Decide says what the mode does with the situation, why (one sentence
// naming the deciding fact), and the exit code that outcome carries:
//
//   - an unknown mode → halt, usage error (2);
//   - terminal → halt, 15; not resumable → halt, 17;
//   - blocking findings other than conflicts (missing critical files or
//     inputs, unsafe paths, parse errors) → halt, 17, in every mode: --force
//     never resumes over them;
//   - autopilot: clean and fresh or recent → resume; warnings (a moderate
//     age included) → resume; conflicts or a stale state → halt, 17, unless
//     --force, which accepts both;
//   - interactive → ask (the reason says when conflicts must first be
//     resolved or forced);
//   - pre-flight → ask until approved (--approve); approved → resume, unless
//     conflicts are neither resolved nor forced (halt, 17).
func Decide(s Situation) (decision string, reason string, exitCode exitcode.Code) {
	mode, err := ParseMode(string(s.Mode))
	if err != nil {
		return DecisionHalt, err.Error(), exitcode.Usage
	}
	if s.Terminal {
		return DecisionHalt, "nothing left to resume: the workflow has already run to completion", exitTerminal
	}
	if !s.Resumable {
		return DecisionHalt, "the saved state is not an interrupted workflow that can resume", exitCannot
	}
	hard, conflicts := splitBlocking(s.Blocking)
	if len(hard) > 0 {
		return DecisionHalt, fmt.Sprintf("cannot resume: %s: %s (--force does not override these)",
			count(len(hard), "blocking finding"), listMessages(hard)), exitCannot
	}
	hasConflicts := s.Conflicts || len(conflicts) > 0 || s.Validation == "conflicts"
	stale := s.AgeClass == "stale" && !s.Restart
	conflictText := conflictsPhrase(conflicts)
	conflictHead, conflictList := conflictsHead(conflicts), conflictsList(conflicts)

	switch mode {
	case ModeAutopilot:
		switch {
		case hasConflicts && !s.Force:
			return DecisionHalt, fmt.Sprintf("autopilot halted on %s (resolve them, or pass --force --mode autopilot to resume anyway)", conflictText), exitCannot
		case stale && !s.Force && s.NoCleanup:
			return DecisionHalt, fmt.Sprintf("autopilot halted: stale, %s (pass --force --mode autopilot to resume anyway, or --restart --mode autopilot to start over)", s.interrupted()), exitCannot
		case stale && !s.Force:
			return DecisionHalt, fmt.Sprintf("autopilot halted: stale, %s (pass --force --mode autopilot to resume anyway, --restart --mode autopilot to start over, or run %s)", s.interrupted(), s.cleanupCommand()), exitCannot
		case hasConflicts && stale:
			return DecisionResume, fmt.Sprintf("forced over %s and staleness (%s)", conflictText, s.interrupted()), exitResume
		case hasConflicts:
			return DecisionResume, fmt.Sprintf("forced over %s", conflictText), exitResume
		case stale:
			return DecisionResume, fmt.Sprintf("forced over staleness: %s", s.interrupted()), exitResume
		}
		if s.hasWarnings() {
			return DecisionResume, "resuming with " + s.warningsPhrase(), exitResume
		}
		return DecisionResume, s.cleanPhrase() + s.pickPhrase(), exitResume

	case ModePreflight:
		if !s.Approve {
			what := s.summary(hasConflicts, conflictText, stale)
			approve := "--approve"
			if hasConflicts && !s.Force {
				approve = "--force --approve"
			}
			return DecisionAsk, "pre-flight needs an explicit proceed (type proceed, or pass " + approve + "); " + what, exitResume
		}
		if hasConflicts && !s.Force {
			return DecisionHalt, fmt.Sprintf("approved, but %s must be resolved or forced (pass --force --approve)%s", conflictHead, conflictList), exitCannot
		}
		return DecisionResume, "approved: " + s.summary(hasConflicts, conflictText, stale), exitResume
	}

	// interactive
	switch {
	case hasConflicts && !s.Force:
		return DecisionAsk, fmt.Sprintf("%s must be resolved or forced before resuming%s (resume anyway at the prompt, or pass --force --approve)", conflictHead, conflictList), exitResume
	case hasConflicts:
		return DecisionAsk, fmt.Sprintf("forced over %s; confirm to resume", conflictText), exitResume
	}
	return DecisionAsk, s.summary(false, "", stale), exitResume
}

// Codes of blocking findings that only autopilot raises, about a state a
// person can review and confirm: a state rebuilt from a corrupt file, and
// a state file autopilot understood only partly.
const (
	codeRebuiltNeedsConfirmation = "rebuilt-needs-confirmation"
	codeAutopilotPartialState    = "autopilot-partial-state"
)

// PersonCanDecide reports whether an autopilot halt is one a person at a
// terminal could decide, so that autopilot falls back to interactive mode
// instead of halting: conflicts (history missing from a shallow clone
// included), a stale state, a rebuilt state and a partly understood state
// file. A terminal workflow, a state that is not resumable, and missing
// critical files or inputs are not: no answer makes them resumable.
func PersonCanDecide(s Situation) bool {
	if s.Terminal || !s.Resumable {
		return false
	}
	hard, conflicts := splitBlocking(s.Blocking)
	for _, f := range hard {
		if f.Code != codeRebuiltNeedsConfirmation && f.Code != codeAutopilotPartialState {
			return false
		}
	}
	return len(hard) > 0 || len(conflicts) > 0 || s.Conflicts || s.Validation == "conflicts" || s.AgeClass == "stale"
}

// summary words the state for an ask or an approval.
func (s Situation) summary(hasConflicts bool, conflictText string, stale bool) string {
	switch {
	case hasConflicts && s.Force:
		return "forced over " + conflictText
	case hasConflicts:
		return conflictsHead(s.conflictFindings()) + " must be resolved or forced first" + conflictsList(s.conflictFindings())
	case stale:
		return "stale: " + s.interrupted() + "; consider restarting from scratch (--restart)"
	case s.hasWarnings():
		w := s.warningsPhrase()
		if head, list, ok := strings.Cut(w, ": "); ok {
			return head + " to review: " + list
		}
		return w + " to review"
	}
	return s.cleanPhrase()
}

// conflictFindings are the blocking conflict findings.
func (s Situation) conflictFindings() []workflow.Finding {
	_, c := splitBlocking(s.Blocking)
	return c
}

// splitBlocking separates the findings --force may override (conflicts, and
// staleness when validation makes it blocking) from the others.
func splitBlocking(fs []workflow.Finding) (hard, forceable []workflow.Finding) {
	for _, f := range fs {
		if f.Severity != "" && f.Severity != workflow.Blocking {
			continue
		}
		switch f.Check {
		case workflow.CheckConflict:
			forceable = append(forceable, f)
		case workflow.CheckAge:
			// staleness: decided from the age class
		default:
			hard = append(hard, f)
		}
	}
	return hard, forceable
}

func (s Situation) hasWarnings() bool {
	return len(s.Warnings) > 0 || s.Validation == "warnings" || s.AgeClass == "moderate"
}

// warningsPhrase: "2 warnings: story 2.1 changed since; interrupted 3 days ago".
func (s Situation) warningsPhrase() string {
	n := len(s.Warnings)
	var parts []string
	if n > 0 {
		parts = append(parts, listMessages(s.Warnings))
	}
	if s.AgeClass == "moderate" {
		ageWarned := false
		for _, f := range s.Warnings {
			if f.Check == workflow.CheckAge {
				ageWarned = true
			}
		}
		if !ageWarned {
			n++
			parts = append(parts, s.interrupted())
		}
	}
	if n == 0 {
		return "warnings"
	}
	return count(n, "warning") + ": " + strings.Join(parts, "; ")
}

// conflictsPhrase: "2 conflicts: story 3.4 was completed outside this workflow; …".
func conflictsPhrase(fs []workflow.Finding) string {
	return conflictsHead(fs) + conflictsList(fs)
}

// conflictsHead: "2 conflicts" ("conflicts" when they are not listed).
func conflictsHead(fs []workflow.Finding) string {
	if len(fs) == 0 {
		return "conflicts"
	}
	return count(len(fs), "conflict")
}

// conflictsList: ": story 3.4 was completed outside this workflow; …" ("" without findings).
func conflictsList(fs []workflow.Finding) string {
	if len(fs) == 0 {
		return ""
	}
	return ": " + listMessages(fs)
}

// cleanPhrase: "state is clean and 45 minutes old".
func (s Situation) cleanPhrase() string {
	if s.Age > 0 {
		return "state is clean and " + textfmt.Duration(s.Age) + " old"
	}
	switch s.AgeClass {
	case "fresh":
		return "state is clean and less than an hour old"
	case "recent":
		return "state is clean and less than a day old"
	case "moderate":
		return "state is clean and a few days old"
	case "stale":
		return "state is clean but more than a week old"
	}
	return "state is clean; its age is unknown"
}

// pickPhrase says which candidate autopilot took when there were several.
func (s Situation) pickPhrase() string {
	if s.Selected || s.Candidates <= 1 {
		return ""
	}
	return fmt.Sprintf(" (the most recent of %d interrupted workflows)", s.Candidates)
}

// cleanupCommand is the command that archives the workflow without a
// question (autopilot runs where nobody can answer one).
func (s Situation) cleanupCommand() string {
	if s.ID == "" {
		return "orchestrate cleanup"
	}
	return "orchestrate cleanup " + textfmt.ShellWord(s.ID) + " --yes"
}

// interrupted: "interrupted 14 days ago".
func (s Situation) interrupted() string {
	if s.Age > 0 {
		return "interrupted " + textfmt.Duration(s.Age) + " ago"
	}
	if s.AgeClass == "stale" {
		return "interrupted more than a week ago"
	}
	if s.AgeClass == "moderate" {
		return "interrupted more than a day ago"
	}
	return "interrupted some time ago"
}

// listMessages joins the first three messages, then says how many more.
func listMessages(fs []workflow.Finding) string {
	const shown = 3
	var parts []string
	for i, f := range fs {
		if i == shown {
			parts = append(parts, fmt.Sprintf("and %d more", len(fs)-shown))
			break
		}
		msg := strings.TrimRight(strings.TrimSpace(f.Message), ".")
		if msg == "" {
			msg = f.Code
		}
		parts = append(parts, msg)
	}
	return strings.Join(parts, "; ")
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
