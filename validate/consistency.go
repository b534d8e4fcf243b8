package validate

import (
	"fmt"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// StatePending is the canonical state status of a story the state has not
// started yet (pending, todo, not_started, queued, waiting).
const StatePending = "pending"

// Verdicts of a StoryReport.
const (
	VerdictConsistent         = "consistent"
	VerdictCompletedOutside   = "completed-outside"
	VerdictReset              = "reset"
	VerdictQACompletedOutside = "qa-completed-outside"
	VerdictValidatedPaused    = "validated-while-paused"
	VerdictMismatch           = "mismatch"
	VerdictMissing            = "missing"
	VerdictNotCreated         = "not-created"
	VerdictUnknown            = "unknown"      // the story's status is not recognised
	VerdictNotCompared        = "not-compared" // the state gives no status for it
	VerdictSkipped            = "skipped"      // the state skips this story
)

// StateStatus maps a state file's story status to the canonical vocabulary
// compared with story files: InProgress, InReview, Done, Draft, Ready,
// Blocked, or StatePending. skip is true for a story the state skips. An
// unrecognised status is returned normalised (lower case, underscores); an
// empty one as "".
func StateStatus(raw string) (status string, skip bool) {
	s := workflow.NormalizeStateStatus(raw)
	switch s {
	case "":
		return "", false
	case "in_progress", "active", "running", "implementing", "started":
		return string(workflow.StatusInProgress), false
	case "in_review", "review", "reviewing", "qa", "ready_for_review":
		return string(workflow.StatusInReview), false
	case "done", "completed", "complete", "passed", "approved", "merged":
		return string(workflow.StatusDone), false
	case "pending", "todo", "to_do", "not_started", "queued", "waiting":
		return StatePending, false
	case "draft":
		return string(workflow.StatusDraft), false
	case "ready":
		return string(workflow.StatusReady), false
	case "blocked":
		return string(workflow.StatusBlocked), false
	case "skipped", "skip":
		return "", true
	}
	return s, false
}

// storyState is one story involved in the candidate.
type storyState struct {
	id      string
	ref     workflow.StoryRef
	state   string // canonical state status; "" when the state gives none
	derived bool   // state was derived from the candidate's position
	skipped bool
	story   *workflow.Story // nil when the file does not exist
	path    string          // clean repository-relative story path; "" when unknown
	missing bool
	// missingBlocking is set when the missing story is reported story-missing.
	missingBlocking bool
	// recordedPath is the safe path the state records for the story.
	recordedPath string
	report       StoryReport
}

// complete reports whether the state regards the story as finished (or
// skipped): it is no longer work to resume.
func (s *storyState) complete() bool {
	return s.skipped || s.state == string(workflow.StatusDone)
}

// resolveStories collects the stories the candidate involves (its story
// references, then the story ids without a reference) and finds their files.
func (v *validator) resolveStories() {
	byKey := map[string]*storyState{}
	add := func(ref workflow.StoryRef) {
		ref.ID = strings.TrimSpace(ref.ID)
		if ref.ID == "" {
			return
		}
		key := storyid.Loose(ref.ID)
		if s := byKey[key]; s != nil {
			if s.ref.Status == "" {
				s.ref.Status = ref.Status
			}
			if s.ref.Path == "" {
				s.ref.Path = ref.Path
			}
			return
		}
		s := &storyState{id: ref.ID, ref: ref}
		byKey[key] = s
		v.stories = append(v.stories, s)
	}
	for _, r := range v.c.StoryRefs {
		add(r)
	}
	for _, id := range v.c.Stories {
		add(workflow.StoryRef{ID: id})
	}
	sort.SliceStable(v.stories, func(i, j int) bool { return v.stories[i].id < v.stories[j].id })
	derived := v.derivedStatus()
	for _, s := range v.stories {
		v.resolveStory(s, derived)
	}
}

func (v *validator) resolveStory(s *storyState, derived string) {
	s.state, s.skipped = StateStatus(s.ref.Status)
	if s.state == "" && !s.skipped && derived != "" {
		s.state, s.derived = derived, true
	}
	if s.ref.Path != "" {
		if clean, err := v.checkPath(s.ref.Path); err == nil {
			s.recordedPath = clean
		}
	}
	s.story = v.lookupStory(s.id)
	if s.story == nil && s.recordedPath != "" {
		s.story = v.readStory(s.id, s.recordedPath)
	}
	switch {
	case s.story != nil && s.story.Path == s.ref.Path && s.recordedPath != "":
		s.path = s.recordedPath // the same path, checked above (an lstat each)
	case s.story != nil:
		s.path = v.cleanPath(s.story.Path)
	}
	if s.path == "" {
		s.path = s.recordedPath
	}
	s.missing = s.story == nil
	if s.missing && !s.complete() {
		pending := s.state == StatePending || s.state == string(workflow.StatusDraft)
		s.missingBlocking = !pending || s.recordedPath != ""
		if s.missingBlocking && s.path != "" {
			v.missingStoryPaths[s.path] = true
		}
	}
}

// cleanPath turns a story path (repository-relative, or absolute inside the
// root) into a clean relative path; "" when unsafe.
func (v *validator) cleanPath(p string) string {
	if p == "" {
		return ""
	}
	if filepath.IsAbs(p) && v.in.Root != "" {
		rel, err := filepath.Rel(v.in.Root, p)
		if err != nil {
			return ""
		}
		p = filepath.ToSlash(rel)
	}
	clean, err := v.checkPath(p)
	if err != nil {
		return ""
	}
	return clean
}

// lookupStory finds a parsed story by id, exactly or loosely.
func (v *validator) lookupStory(id string) *workflow.Story {
	if st := v.in.Stories[id]; st != nil {
		return st
	}
	if v.storyIndex == nil {
		v.storyIndex = map[string]*workflow.Story{}
		// the first spelling wins, deterministically
		for _, k := range slices.Sorted(maps.Keys(v.in.Stories)) {
			if st := v.in.Stories[k]; st != nil {
				if n := storyid.Loose(k); v.storyIndex[n] == nil {
					v.storyIndex[n] = st
				}
			}
		}
	}
	return v.storyIndex[storyid.Loose(id)]
}

// readStory reads and parses a story file the state records but discovery
// did not parse. It returns nil when the file does not exist.
func (v *validator) readStory(id, path string) *workflow.Story {
	if !v.existsSafe(path) {
		return nil
	}
	data, err := safefile.Read(v.in.Root, path, v.cfg.MaxFileSize)
	if err == nil && v.in.ParseStory != nil {
		if st := v.in.ParseStory(path, data); st != nil {
			if st.Path == "" {
				st.Path = path
			}
			return st
		}
	}
	return &workflow.Story{ID: id, Path: path, Status: workflow.StatusUnknown}
}

// derivedStatus is the status a story has when the state gives none: an SDC
// or workflow at its implement phase is InProgress, at review InReview; a
// QA loop is InReview. "" when it cannot be told.
func (v *validator) derivedStatus() string {
	switch v.c.Type {
	case workflow.TypeQALoop:
		return string(workflow.StatusInReview)
	case workflow.TypeSDC, workflow.TypeWorkflow:
	default:
		return ""
	}
	names := []string{v.c.Position.Name}
	if i := v.c.Position.Index; v.c.Position.Kind == workflow.PosPhase && i > 0 && i <= len(v.c.Phases) {
		names = append(names, v.c.Phases[i-1].ID, v.c.Phases[i-1].Name)
	}
	for _, p := range v.c.Phases {
		if p.Status == workflow.PhaseCurrent {
			names = append(names, p.ID, p.Name)
		}
	}
	for _, n := range names {
		n = strings.ToLower(n)
		switch {
		case n == "":
		case strings.Contains(n, "implement") || strings.Contains(n, "develop"):
			return string(workflow.StatusInProgress)
		case strings.Contains(n, "review") || strings.Contains(n, "qa") || strings.Contains(n, "gate"):
			return string(workflow.StatusInReview)
		}
	}
	return ""
}

// consistency compares each involved story's status in the state with its
// status in the story file.
func (v *validator) consistency() {
	for _, s := range v.stories {
		s.report = StoryReport{ID: display(s.id), Path: display(s.path), StateStatus: s.state, Exists: !s.missing}
		if s.story != nil {
			s.report.StoryStatus = s.story.Status
		}
		v.checkStory(s)
	}
}

func (v *validator) checkStory(s *storyState) {
	id := display(s.id)
	path := s.path
	if path == "" {
		path = v.c.Source.Path
	}
	if s.skipped {
		s.report.Verdict = VerdictSkipped
		return
	}
	if s.missing {
		s.report.Verdict = VerdictMissing
		switch {
		case s.complete():
		case s.missingBlocking:
			v.add(workflow.CheckConsistency, workflow.Blocking, "story-missing", path, "",
				fmt.Sprintf("story %s file no longer exists", id))
		default:
			s.report.Verdict = VerdictNotCreated
			v.add(workflow.CheckConsistency, workflow.Info, "story-not-created", path, "",
				fmt.Sprintf("story %s has no file yet (%s in the state)", id, s.state))
		}
		return
	}
	story := s.story.Status
	if story == workflow.StatusUnknown || story == "" {
		s.report.Verdict = VerdictUnknown
		v.add(workflow.CheckConsistency, workflow.Info, "story-status-unknown", path, "",
			fmt.Sprintf("story %s has a status the tool does not know (%q); it was not compared", id, display(s.story.StatusRaw)))
		return
	}
	if s.state == "" {
		s.report.Verdict = VerdictNotCompared
		return
	}
	says := fmt.Sprintf("(state says %s, story says %s)", display(s.state), story)
	if s.derived {
		says = fmt.Sprintf("(the workflow's current phase means %s, story says %s)", s.state, story)
	}
	type row struct {
		verdict string
		sev     workflow.Severity
		code    string
		msg     string
	}
	var r row
	state := workflow.Status(s.state)
	switch {
	case state == workflow.StatusInProgress && story == workflow.StatusDone:
		r = row{VerdictCompletedOutside, workflow.Blocking, "completed-outside", "story %s was completed outside this workflow %s"}
	case state == workflow.StatusInProgress && story == workflow.StatusDraft:
		r = row{VerdictReset, workflow.Blocking, "story-reset", "story %s was reset %s: the saved state is stale"}
	case state == workflow.StatusInReview && story == workflow.StatusDone:
		r = row{VerdictQACompletedOutside, workflow.Blocking, "qa-completed-outside", "QA for story %s was completed outside this workflow %s"}
	case s.state == StatePending && story == workflow.StatusReady:
		r = row{VerdictValidatedPaused, workflow.Info, "validated-while-paused", "story %s was validated while the workflow was paused %s"}
	case s.state == StatePending && story == workflow.StatusDraft, state == story:
		s.report.Verdict = VerdictConsistent
		return
	default:
		r = row{VerdictMismatch, workflow.Warning, "status-mismatch", "story %s has a different status %s"}
	}
	s.report.Verdict = r.verdict
	v.add(workflow.CheckConsistency, r.sev, r.code, path, "", fmt.Sprintf(r.msg, id, says))
}
