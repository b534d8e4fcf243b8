package modes

import (
	"errors"
	"fmt"
	"strings"
)

// ErrDeclined is returned when the user chose not to go on (the "none
// (cancel)" option of ChooseCandidate). Like ErrInterrupted it means exit 10 with
// nothing changed.
var ErrDeclined = errors.New("declined")

// Answer is the user's answer to the resume confirmation.
type Answer string

// The answers of ConfirmResume.
const (
	AnswerResume  Answer = "resume"  // yes: resume at the planned point
	AnswerRestart Answer = "restart" // restart from the first phase
	AnswerCancel  Answer = "cancel"  // change nothing
	AnswerForce   Answer = "force"   // resume over the conflicts (forced, logged)
	AnswerCleanup Answer = "cleanup" // archive the stale state (orchestrate cleanup)
)

// The texts of the questions and of their options, shared with the tests.
const (
	QuestionCandidate = "Which would you like to resume?"
	QuestionResume    = "Resume this workflow?"
	QuestionPartial   = "Proceed with the partial resume?"
	QuestionProceed   = `Type "proceed" to start (anything else cancels):`

	// The options of ConfirmResume carry their shortcut letter: a terminal
	// Prompter lets "[x] text" be chosen with x (as well as its number).
	OptionNone    = "none (cancel)"
	OptionYes     = "[y] yes"
	OptionForce   = "[f] resume anyway (forced, logged)"
	OptionRestart = "[r] restart from scratch"
	OptionCancel  = "[c] cancel"
	OptionCleanup = "[x] clean up the stale state (archive it, reset its stories)"

	QuestionInstead = "This workflow cannot resume as it is. What now?"
	QuestionAgain   = "Hand it off again at the same phase?"
)

// ChooseCandidate asks which of several interrupted workflows to resume.
// labels describe the candidates in the order shown; a last option "none
// (cancel)" is added, and choosing it returns ErrDeclined. The index
// returned is into labels. The labels come from repositories: they never
// get shortcut letters (the last option has none), only their numbers.
func ChooseCandidate(p Prompter, labels []string) (int, error) {
	if len(labels) == 0 {
		return 0, ErrDeclined
	}
	options := make([]string, 0, len(labels)+1)
	options = append(options, labels...)
	options = append(options, OptionNone)
	i, err := p.Select(QuestionCandidate, options, 0)
	if err != nil {
		return 0, err
	}
	if i < 0 || i > len(labels) {
		return 0, fmt.Errorf("candidate choice %d out of range", i)
	}
	if i == len(labels) {
		return 0, ErrDeclined
	}
	return i, nil
}

// ConfirmResume asks whether to resume the planned workflow: "[y] yes",
// "[r] restart from scratch" or "[c] cancel". When conflicts is set (every
// blocking finding is a conflict --force could override) the first option
// is "[f] resume anyway (forced, logged)" instead of "yes", answered
// AnswerForce, and the default is cancel: over conflicts the safe choice is
// the one Enter takes. partial words the question for a partial resume.
func ConfirmResume(p Prompter, conflicts bool, partial bool) (Answer, error) {
	question := QuestionResume
	if partial {
		question = QuestionPartial
	}
	first, firstAnswer := OptionYes, AnswerResume
	if conflicts {
		first, firstAnswer = OptionForce, AnswerForce
	}
	options := []string{first, OptionRestart, OptionCancel}
	answers := []Answer{firstAnswer, AnswerRestart, AnswerCancel}
	def := 0
	if conflicts {
		def = 2 // over conflicts, the safe default is to cancel
	}
	i, err := p.Select(question, options, def)
	if err != nil {
		return AnswerCancel, err
	}
	if i < 0 || i >= len(answers) {
		return AnswerCancel, fmt.Errorf("resume choice %d out of range", i)
	}
	return answers[i], nil
}

// ConfirmProceed asks for the explicit "proceed" pre-flight requires. It is
// true only when the user typed proceed (surrounding spaces and case
// ignored); anything else is a refusal, not an error.
func ConfirmProceed(p Prompter) (bool, error) {
	s, err := p.Input(QuestionProceed, "")
	if err != nil {
		return false, err
	}
	return strings.EqualFold(strings.TrimSpace(s), "proceed"), nil
}

// ConfirmTakeover asks whether to take over a stale lock; description says
// whose lock it is. The default is no.
func ConfirmTakeover(p Prompter, description string) (bool, error) {
	msg := strings.TrimSpace(description)
	if msg != "" {
		msg += " "
	}
	return p.Confirm(msg+"Take it over?", false)
}

// ChooseInstead asks what to do when the workflow cannot resume as it is:
// "[r] restart from scratch" (when restart says a restart would work), "[x]
// clean up the stale state" (only when stale, as orchestrate cleanup) or
// "[c] cancel", the default.
func ChooseInstead(p Prompter, restart, stale bool) (Answer, error) {
	var options []string
	var answers []Answer
	if restart {
		options, answers = append(options, OptionRestart), append(answers, AnswerRestart)
	}
	if stale {
		options, answers = append(options, OptionCleanup), append(answers, AnswerCleanup)
	}
	options, answers = append(options, OptionCancel), append(answers, AnswerCancel)
	i, err := p.Select(QuestionInstead, options, len(options)-1)
	if err != nil {
		return AnswerCancel, err
	}
	if i < 0 || i >= len(answers) {
		return AnswerCancel, fmt.Errorf("choice %d out of range", i)
	}
	return answers[i], nil
}

// ConfirmAgain asks whether to hand off once more a workflow already handed
// off at the same phase; description says when and to whom. The default is
// no.
func ConfirmAgain(p Prompter, description string) (bool, error) {
	msg := strings.TrimSpace(description)
	if msg != "" {
		msg += " "
	}
	return p.Confirm(msg+QuestionAgain, false)
}
