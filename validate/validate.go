// Package validate checks a discovered candidate against the repository as
// it is now: integrity of referenced files, consistency of
// statuses, conflicts with work done since the interruption (git drift
// through internal/gitrepo, or modification times without git), and age. It
// returns findings as values, sorted, and never writes anything.
//
// Every finding has a stable code:
//
// Integrity (check "integrity"):
//   - unsafe-path (blocking): a referenced path is absolute, leaves the
//     repository (.., a symlink out) or holds NUL or a newline; it is never read.
//   - missing-critical (blocking): a critical referenced file is missing.
//   - missing-file (warning): a non-critical referenced file is missing, or a
//     critical one the saved state makes unnecessary (an epic's execution
//     plan when the state lists its waves and stories).
//
// With git, a missing file's message names the commit that deleted it, moved
// it (same content at a new path) or moved its folder into a submodule.
//   - unreadable (blocking when critical, else warning): the file exists but
//     cannot be opened (permissions).
//   - too-many-refs (warning): more referenced files than Config.MaxRefFiles;
//     the rest were not checked.
//
// Consistency (check "consistency"):
//   - completed-outside (blocking): state InProgress, story Done.
//   - story-reset (blocking): state InProgress, story Draft; the state is stale.
//   - qa-completed-outside (blocking): state InReview, story Done.
//   - validated-while-paused (info): state pending, story Ready.
//   - status-mismatch (warning): any other disagreement.
//   - story-missing (blocking): a story the state names has no file (and the
//     state does not say it is complete).
//   - story-not-created (info): a story still pending in the state, with no
//     recorded path, has no file yet.
//   - story-status-unknown (info): the story file's status is not one the
//     tool knows; it was not compared.
//
// Conflict (check "conflict"). A change is a conflict only when it is not
// the workflow's own progress (DESIGN §13 "Whose change"; see progress.go):
// an uncommitted edit of one of its own files (its state, story and tasks
// files, the files its File List, tasks or completed phases name), or a
// commit since the interruption by one of its authors (who last changed its
// record files at or before the interruption commit) that changed only its
// own files, is progress.
//   - progress (info): the workflow's own work since the interruption on
//     one of its files (for a story: sections other than the Acceptance
//     Criteria, Scope and Dependencies), saying what changed, by which
//     commit or by an uncommitted edit and when; the interruption time
//     (Report.InterruptedAt, the age) is then the last such activity.
//   - file-rewritten (blocking): one of its own files rewritten wholesale
//     (fewer than a quarter of its lines left), even by its own work.
//   - another-workflow (blocking): another resumable workflow naming the
//     same story was updated after this one, or holds a live lock.
//   - acceptance-changed (blocking): a story's Acceptance Criteria changed
//     since the interruption.
//   - scope-changed (blocking): a story's Scope changed.
//   - dependencies-changed (warning): a story's Dependencies changed.
//   - story-edited (warning): other story sections changed (Dev Notes,
//     Tasks, …) by someone else's commits.
//   - file-changed (blocking): a referenced file was changed by commits since
//     the interruption that are not the workflow's own (named in the
//     message), or differs from the hash the state recorded.
//   - file-changed-uncommitted (blocking): a referenced file that is not one
//     of the workflow's own (an input it depends on) has an uncommitted
//     edit made after the interruption.
//   - own-uncommitted-work (info): an uncommitted edit from before the
//     interruption: the workflow's own unfinished work.
//   - epic-stories-added (warning): a story of the epic that the saved state
//     does not list.
//   - changed-since (warning): without git history, a referenced file or
//     story was modified after the interruption (by whom is unknown).
//   - history-missing (blocking): a check needed history the clone does not
//     hold, so changes by others cannot be ruled out: a shallow or partial
//     clone does not reach the interruption; the candidate's time was dated
//     from the commit where the history ends (a depth-1 clone's boundary:
//     the state changed at or before it, so the interruption commit is
//     unknown); the interruption commit's trees, or a story's version at
//     it, are missing (a partial clone: never fetched); or the walk since
//     the interruption commit ends before reaching it. The referenced files
//     are then "unknown", the report names no interruption commit, and the
//     message names the fix (git fetch --unshallow and fetch-depth: 0 for a
//     shallow clone, git fetch --refetch --no-filter <remote> for a partial
//     one). Check "git", info, when nothing referenced needed the history.
//
// Git (check "git"):
//   - no-git (info): no git repository; modification times are compared.
//   - git-fallback (info): no commit at the interruption time in a complete
//     history; modification times are compared.
//   - git-error (warning): reading git failed; modification times are compared.
//   - no-baseline (info): neither an interruption time nor a commit is known,
//     so nothing could be compared.
//
// Age (check "age"):
//   - age-moderate (warning): interrupted between Config.Age.Recent and
//     Config.Age.Stale ago.
//   - age-stale (warning): interrupted longer than Config.Age.Stale ago.
//   - age-unknown (info): the interruption time is not known, or it is only
//     a lower bound (dated from where a shallow or partial clone's history
//     ends: "at least", Report.AgeAtLeast; age-moderate and age-stale say
//     "at least" too, and the class is unknown unless the bound is stale).
package validate

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/validate/gitmemo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Git is what validation needs of git; *gitrepo.Repo satisfies it (see
// gitmemo.Git, which the Run answers each question of once).
type Git = gitmemo.Git

// Input is everything Validate looks at. It is read, never modified.
type Input struct {
	// Root is the repository root (absolute).
	Root string
	// Candidate is the candidate to validate.
	Candidate workflow.Candidate
	// Others are every other discovered candidate (for conflict (a)); unused
	// when Run is set.
	Others []workflow.Candidate
	// Run, when set, is shared by every validation of the command: the
	// candidates sorted once (in place of Others), cached folder checks and
	// git answers.
	Run *Run
	// Stories are the parsed story files by id.
	Stories map[string]*workflow.Story
	// Git is nil when there is no git repository.
	Git Git
	// Now is the injected clock's current time.
	Now time.Time
	// Config is the configuration; zero age thresholds and limits take the defaults.
	Config config.Config
	// LiveLock reports whether a candidate's lock is held by a live process;
	// nil when there is no lock information.
	LiveLock func(candidateID string) bool
	// NoLists says the caller reads neither Report.Files nor
	// Report.Stories (status shows the verdict, the age and the
	// findings): they are left empty instead of copied out of the checks.
	// Nothing else in the report depends on it.
	NoLists bool
	// ParseStory parses an old version of a story (for conflict (b)). When
	// nil, a changed story is reported as edited without naming sections.
	ParseStory func(path string, data []byte) *workflow.Story
}

// Validate runs every check on in.Candidate and returns the report. It never
// panics on bad input, never writes, and gives the same report for the same
// input.
func Validate(in Input) Report {
	v := unaged(in)
	v.age()
	return v.finish()
}

// Unaged is Validate without the age step (app/verdict keeps it): nothing
// in it depends on in.Now unless Report.Activity is after in.Now.
func Unaged(in Input) Report { return unaged(in).finish() }

// Aged is Validate's report of in from u, Unaged's report of in: the age
// step as of in.Now, its findings sorted and capped with u's.
func Aged(u Report, in Input) Report {
	v := newValidator(in)
	v.rep = u
	v.list.Add(u.Findings...)
	v.age()
	r := v.finish()
	r.ChangedPhases, r.MissingPhases = u.ChangedPhases, u.MissingPhases
	return r
}

func unaged(in Input) *validator {
	v := newValidator(in)
	v.list.Add(in.Candidate.Findings...)
	v.resolveStories()
	v.integrity()
	v.consistency()
	v.otherWorkflows()
	v.drift()
	v.epicStories()
	return v
}

// validator carries one validation run.
type validator struct {
	in   Input
	cfg  config.Config
	c    *workflow.Candidate
	list workflow.Findings
	rep  Report

	files   []*refFile          // referenced files, de-duplicated, capped, sorted by path
	stories []*storyState       // involved stories, sorted by id
	byPath  map[string]*refFile // safe referenced files by clean path
	// missingStoryPaths are the paths of involved stories reported as
	// story-missing: integrity does not report them a second time.
	missingStoryPaths map[string]bool
	// storyIndex finds stories by a normalised id when the exact id misses.
	storyIndex map[string]*workflow.Story
	// removalLookups counts the history walks naming removed files.
	removalLookups int
	// own is what is known of the workflow's own files and authors (see
	// progress.go), made on first use.
	own    ownership
	keyBuf []byte // clause's key, reused
}

var defaults = config.Default() // made once for every validation

func newValidator(in Input) *validator {
	cfg := in.Config
	if cfg.MaxRefFiles <= 0 {
		cfg.MaxRefFiles = defaults.MaxRefFiles
	}
	if cfg.MaxFileSize <= 0 {
		cfg.MaxFileSize = defaults.MaxFileSize
	}
	if in.Run != nil {
		in.Git = in.Run.git(in.Git) // the run's shared answers
	}
	c := in.Candidate
	return &validator{
		in:     in,
		cfg:    cfg,
		c:      &c,
		byPath: map[string]*refFile{},

		missingStoryPaths: map[string]bool{},
		rep: Report{
			InterruptedAt: c.UpdatedAt,
			GitMode:       GitModeNone,
			Files:         []FileReport{},
			Stories:       []StoryReport{},
		},
	}
}

// add records a finding. Paths, phases and messages carry text from the
// repository: control characters in them are shown escaped, never printed.
func (v *validator) add(check string, sev workflow.Severity, code, path, phase, msg string) {
	v.list.Add(workflow.Finding{Check: check, Severity: sev, Code: code,
		Message: display(msg), Path: display(path), Phase: display(phase)})
}

// finish fills the report's derived fields.
func (v *validator) finish() Report {
	rep := v.rep
	missing, changed := map[string]bool{}, map[string]bool{}
	lists := !v.in.NoLists
	if lists && rep.Files == nil && len(v.files) > 0 {
		rep.Files = make([]FileReport, 0, len(v.files))
	}
	for _, f := range v.files {
		if lists {
			rep.Files = append(rep.Files, f.report())
		}
		if f.ref.Phase == "" || (f.state != FileMissing && !f.conflict) {
			continue
		}
		phase := display(f.ref.Phase) // as the file report shows it
		if f.state == FileMissing {
			missing[phase] = true
		}
		if f.conflict {
			changed[phase] = true
		}
	}
	slices.SortStableFunc(rep.Files, func(a, b FileReport) int { return strings.Compare(a.Path, b.Path) })
	if lists && rep.Stories == nil && len(v.stories) > 0 {
		rep.Stories = make([]StoryReport, 0, len(v.stories))
	}
	for _, s := range v.stories {
		if lists {
			rep.Stories = append(rep.Stories, s.report)
		}
	}
	slices.SortStableFunc(rep.Stories, func(a, b StoryReport) int { return strings.Compare(a.ID, b.ID) })
	rep.ChangedPhases = sortedKeys(changed)
	rep.MissingPhases = sortedKeys(missing)
	// a file's thousands of references: 500 and a count
	rep.Findings = workflow.CapSortedFindings(v.list.TakeSorted())
	if rep.Findings == nil {
		rep.Findings = []workflow.Finding{}
	}
	rep.Status = StatusClean
	for _, f := range rep.Findings {
		switch f.Severity {
		case workflow.Blocking:
			rep.Status = StatusConflicts
		case workflow.Warning:
			if rep.Status == StatusClean {
				rep.Status = StatusWarnings
			}
		}
	}
	return rep
}

func sortedKeys(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }

// display makes a path safe to print: a path holding control characters
// (NUL, newline, …) is shown escaped, as a Go string literal without quotes.
func display(p string) string {
	// a control character is one byte below 0x80, never part of a
	// multi-byte sequence (valid or not): bytes, not runes, are tested
	for i := 0; i < len(p); i++ {
		if b := p[i]; b < 0x20 || b == 0x7f {
			q := strconv.Quote(p)
			return q[1 : len(q)-1]
		}
	}
	return p
}

// phaseNote is " (needed by phase X)" for a referenced file, or "".
func phaseNote(rf workflow.RefFile) string {
	switch {
	case rf.Phase == "":
		return ""
	case rf.Produced:
		return " (output of phase " + display(rf.Phase) + ")"
	default:
		return " (needed by phase " + display(rf.Phase) + ")"
	}
}

// stamp formats a time for messages.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// describeCommits renders commits as "a1b2c3d (Jane Doe, 2026-01-02T03:04:05Z)".
func describeCommits(cs []gitrepo.Commit) string {
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		short := c.Short
		if short == "" {
			short = c.Hash
			if len(short) > 7 {
				short = short[:7]
			}
		}
		who := c.Author
		if who == "" {
			who = c.Email
		}
		parts = append(parts, short+" ("+display(who)+", "+stamp(c.When)+")")
	}
	return strings.Join(parts, ", ")
}
