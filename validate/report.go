package validate

import (
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Validation statuses of a candidate.
const (
	StatusClean     = "clean"
	StatusWarnings  = "warnings"
	StatusConflicts = "conflicts"
)

// Age classes.
const (
	AgeFresh    = "fresh"
	AgeRecent   = "recent"
	AgeModerate = "moderate"
	AgeStale    = "stale"
	AgeUnknown  = "unknown" // the interruption time is not known
)

// Git modes of a Report: how drift was found.
const (
	GitModeGit   = "git"   // compared with the interruption commit
	GitModeMtime = "mtime" // no git, or no commit at the time (history complete)
	GitModeNone  = "none"  // nothing to compare
	// GitModeHistoryMissing: a shallow or partial clone does not reach the
	// interruption; changes since could not be checked (never judged by
	// modification times, which a clone resets).
	GitModeHistoryMissing = "history-missing"
)

// FileReport is the file-by-file comparison of one referenced file, as the
// pre-flight report shows it.
type FileReport struct {
	Path     string `json:"path"`
	Phase    string `json:"phase,omitempty"`
	Critical bool   `json:"critical"`
	Produced bool   `json:"produced,omitempty"`
	// State is one of: unchanged, missing, unsafe, changed-committed,
	// changed-uncommitted, changed (no git: mtime newer), unknown.
	State string `json:"state"`
	// By names what changed it: commits (short hash, author, time) or
	// "uncommitted edit".
	By     []gitrepo.Commit `json:"by,omitempty"`
	Detail string           `json:"detail,omitempty"`
}

// File states of a FileReport.
const (
	FileUnchanged          = "unchanged"
	FileMissing            = "missing"
	FileUnsafe             = "unsafe"
	FileChangedCommitted   = "changed-committed"
	FileChangedUncommitted = "changed-uncommitted"
	FileChanged            = "changed"
	FileUnknown            = "unknown"
)

// StoryReport is the status of one story involved in the candidate.
type StoryReport struct {
	ID          string          `json:"id"`
	Path        string          `json:"path,omitempty"`
	StateStatus string          `json:"state_status,omitempty"` // as the state file gives it (canonical)
	StoryStatus workflow.Status `json:"story_status,omitempty"` // as the story file gives it
	Verdict     string          `json:"verdict"`                // consistent, completed-outside, reset, …
	Exists      bool            `json:"exists"`
}

// Report is the outcome of validating one candidate.
type Report struct {
	Findings []workflow.Finding `json:"findings"`
	Status   string             `json:"validation"` // clean, warnings, conflicts
	Age      time.Duration      `json:"-"`
	AgeClass string             `json:"age_class"`
	// AgeAtLeast is set when Age is only a lower bound: the time was dated
	// from the commit where a shallow or partial clone's history ends, so
	// the state was last updated at or before it. AgeClass is then
	// "unknown", or "stale" when the bound is already stale.
	AgeAtLeast bool `json:"age_at_least,omitempty"`
	// InterruptedAt is when the candidate was interrupted: the last activity
	// on the workflow's own files — the time its state was last updated, or
	// later, the time of its own progress since ("progress" findings: its own
	// commits' times, its uncommitted edits' modification times, never past
	// Now). Age counts from it.
	InterruptedAt time.Time `json:"interrupted_at"`
	// Activity is the latest own activity, unbounded by Now (zero: none);
	// TimeCut, where a cut history dated the candidate's time from, or "".
	Activity time.Time `json:"-"`
	TimeCut  string    `json:"-"`
	// Base is the interruption commit, zero without git or when not found.
	Base gitrepo.Commit `json:"base"`
	// GitMode says how drift was found: "git", "mtime" (no git, or no commit
	// at the time), "history-missing" (shallow or partial clone not reaching
	// the interruption) or "none" (nothing to compare).
	GitMode string        `json:"git_mode"`
	Files   []FileReport  `json:"files"`
	Stories []StoryReport `json:"stories"`
	// ChangedPhases are the phases whose referenced files changed since the
	// interruption (their outputs are no longer valid).
	ChangedPhases []string `json:"changed_phases,omitempty"`
	// MissingPhases are the phases with a missing referenced file.
	MissingPhases []string `json:"missing_phases,omitempty"`
}
