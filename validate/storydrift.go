package validate

// Drift of a story a workflow works on: its sections changed since the
// interruption, and history that is missing (drift.go holds the files').

import (
	"fmt"
	"sort"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// storyChange is conflict (b) for one story: compare its sections at the
// interruption commit with the current ones.
func (v *validator) storyChange(base gitrepo.Commit, s *storyState, ch change, by []gitrepo.Commit) {
	if !ch.known || !ch.changed || ch.deleted || ch.added {
		return // unchanged, or not at base: nothing to compare with
	}
	id := display(s.id)
	f := v.byPath[s.path]
	phase := ""
	if f != nil {
		phase = f.ref.Phase
	}
	if ch.own {
		if f != nil {
			f.detail = "own uncommitted work (modified before the interruption)"
		}
		v.add(workflow.CheckConflict, workflow.Info, "own-uncommitted-work", s.path, phase,
			fmt.Sprintf("story %s has uncommitted changes from before the interruption: the workflow's own unfinished work", id))
		return
	}
	prog, others := v.judge(base, s.path, ch, by)
	who := byClause(ch.committed, ch.uncommitted, shown(by))
	changed, ok, missing := v.changedSections(base, s)
	if missing {
		// The old version is not in this (partial) clone: whether the
		// acceptance criteria changed cannot be told, never guessed.
		if f != nil {
			f.detail = "story modified; its version at the interruption is missing (history missing)"
		}
		v.add(workflow.CheckConflict, workflow.Blocking, "history-missing", s.path, phase,
			fmt.Sprintf("story %s was modified since the interruption %s, and its version at the interruption commit %s is not in this %s: whether its Acceptance Criteria or Scope changed cannot be told; %s",
				id, who, base.Short, v.cloneKind(), v.fetchAdvice()))
		return
	}
	if !ok {
		// The old version could not be compared section by section.
		if f != nil {
			f.detail = "story modified"
		}
		v.add(workflow.CheckConflict, workflow.Warning, "story-edited", s.path, phase,
			fmt.Sprintf("story %s was modified since the interruption %s", id, who))
		return
	}
	var other, details []string
	for _, key := range changed {
		name := sectionName(key)
		switch key {
		case workflow.SectionAcceptance:
			details = append(details, name+" changed")
			v.add(workflow.CheckConflict, workflow.Blocking, "acceptance-changed", s.path, phase,
				fmt.Sprintf("the Acceptance Criteria of story %s changed since the interruption %s", id, who))
		case workflow.SectionScope:
			details = append(details, name+" changed")
			v.add(workflow.CheckConflict, workflow.Blocking, "scope-changed", s.path, phase,
				fmt.Sprintf("the Scope of story %s changed since the interruption %s", id, who))
		case workflow.SectionDependencies:
			details = append(details, name+" changed")
			v.add(workflow.CheckConflict, workflow.Warning, "dependencies-changed", s.path, phase,
				fmt.Sprintf("the Dependencies of story %s changed since the interruption %s", id, who))
		default:
			other = append(other, name)
		}
	}
	if len(other) > 0 {
		noun := "section"
		if len(other) > 1 {
			noun = "sections"
		}
		what := strings.Join(other, ", ") + " " + noun + " updated"
		if prog {
			// the workflow's own progress: its tasks ticked, its notes
			// and records written
			v.activity(ch, by, v.mtimeOf(s.path))
			details = append(details, "work in progress: "+what)
			v.add(workflow.CheckConflict, workflow.Info, "progress", s.path, phase,
				fmt.Sprintf("story %s has the workflow's own work in progress since the interruption (%s): %s", id, what, progressText(ch, by, v.mtimeOf(s.path))))
		} else {
			details = append(details, what)
			v.add(workflow.CheckConflict, workflow.Warning, "story-edited", s.path, phase,
				fmt.Sprintf("story %s was modified since the interruption (%s) %s", id, what, byClause(ch.committed, ch.uncommitted, shown(others))))
		}
	}
	if f != nil && len(details) > 0 {
		f.detail = strings.Join(details, "; ")
		for _, key := range changed {
			if key == workflow.SectionAcceptance || key == workflow.SectionScope {
				f.conflict = true
			}
		}
	}
}

// changedSections returns the sorted keys of the sections that differ
// between the story at base and now. ok is false when the old version
// cannot be read or parsed; missing is set when it cannot be read because
// it is not in the repository (a partial clone).
func (v *validator) changedSections(base gitrepo.Commit, s *storyState) (keys []string, ok, missing bool) {
	if v.in.ParseStory == nil {
		return nil, false, false
	}
	old := v.storyAtBase(base, s.path) // once per run for workflows sharing it
	if !old.ok {
		return nil, false, old.missing
	}
	cur := s.story.Sections
	if len(cur) == 0 || s.story.SectionsTrimmed {
		// a story read without its sections (a BMAD v6 ledger's story
		// file), or with only some (a scan's story not in flight): parse
		// it as it is now, never take a section for gone
		data, err := safefile.Read(v.in.Root, s.path, v.cfg.MaxFileSize)
		if err != nil {
			return nil, false, false
		}
		now := v.in.ParseStory(s.path, data)
		if now == nil {
			return nil, false, false
		}
		cur = now.Sections
	}
	for _, a := range old.sections {
		if b, ok := cur.Get(a.Name); (!ok || a.Hash != b.Hash) && a.Name != "status" {
			keys = append(keys, a.Name) // changed or gone; the status is the consistency check's business
		}
	}
	for _, b := range cur {
		if _, ok := old.sections.Get(b.Name); !ok && b.Name != "status" {
			keys = append(keys, b.Name) // new
		}
	}
	sort.Strings(keys)
	return keys, true, false
}

// historyMissing handles a history cut short before the interruption (a
// shallow or partial clone): changes since then can be neither confirmed nor
// ruled out. Modification times say nothing there (a clone writes every
// file), so they are not compared. A file whose recorded hash matches is
// still known unchanged; every other referenced file and unfinished story is
// "unknown", and one blocking conflict finding names them and the fix, so
// that decisions treat them like conflicts (autopilot halts).
func (v *validator) historyMissing(stories []*storyState, why string) {
	v.rep.GitMode = GitModeHistoryMissing
	unknown := v.pathsOf(stories, func(f *refFile) bool {
		if f.exists && f.story == nil && isHexHash(f.ref.Hash) {
			if h, err := v.blobHash(f.clean); err == nil && strings.EqualFold(h, f.ref.Hash) {
				f.state = FileUnchanged
				return false
			}
		}
		if f.state != FileMissing {
			f.state = FileUnknown
			f.detail = "history missing: cannot tell whether it changed since the interruption"
		}
		return true
	})
	if len(unknown) == 0 {
		v.add(workflow.CheckGit, workflow.Info, "history-missing", "", "",
			"the git history does not reach the interruption ("+why+"), but no referenced file needed it")
		return
	}
	noun := "file"
	if len(unknown) > 1 {
		noun = "files"
	}
	v.add(workflow.CheckConflict, workflow.Blocking, "history-missing", "", "",
		fmt.Sprintf("the git history does not reach the interruption (%s): changes by others to %d referenced %s (%s) cannot be ruled out; %s",
			why, len(unknown), noun, listPaths(unknown), v.fetchAdvice()))
}

// listPaths shows at most five sorted paths, "and N more" for the rest.
func listPaths(paths []string) string {
	what, more := paths, ""
	if len(what) > 5 {
		more = fmt.Sprintf(" and %d more", len(what)-5)
		what = what[:5]
	}
	return strings.Join(displayAll(what), ", ") + more
}

// displayAll applies display to every path.
func displayAll(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = display(p)
	}
	return out
}
