package validate

// What the validations of one Run learn of a file as it was at a base
// commit, kept for the run: the sections of a story at the interruption
// commit (conflict b) and whether a file was rewritten since (progress).
// Several workflows interrupted at one commit ask the same questions of
// the same files (a story two workflows work on, a file both reference):
// each is read from git and parsed once per run.

import (
	"sync"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// atBaseKey names a file at a base commit, read with a size limit.
type atBaseKey struct {
	base, path string
	max        int64
}

// oldSections is a story's sections at a base commit (names and hashes
// only: what changedSections compares), or why there are none: missing
// when its version there is not in the repository, else !ok when it
// could not be read or parsed.
type oldSections struct {
	sections    workflow.Sections
	ok, missing bool
}

// atBase is the Run's answers about files at base commits.
type atBase struct {
	mu        sync.Mutex
	sections  map[atBaseKey]*onceAnswer[oldSections]
	rewritten map[atBaseKey]*onceAnswer[bool]
}

// onceAnswer is one answer of the run, made once: the validations that ask
// while it is being made wait for it.
type onceAnswer[T any] struct {
	once sync.Once
	v    T
}

// sharedAnswer is m's answer for k, made with answer on first ask (mu guards
// m, not the making).
func sharedAnswer[T any](mu *sync.Mutex, m *map[atBaseKey]*onceAnswer[T], k atBaseKey, answer func() T) T {
	mu.Lock()
	if *m == nil {
		*m = map[atBaseKey]*onceAnswer[T]{}
	}
	a := (*m)[k]
	if a == nil {
		a = &onceAnswer[T]{}
		(*m)[k] = a
	}
	mu.Unlock()
	a.once.Do(func() { a.v = answer() })
	return a.v
}

// atBaseRun returns the Run whose answers at base commits this validation
// may share: only when its git answers are the Run's (the Run's Memo of
// one repository) and it validates the Run's repository; nil otherwise.
func (v *validator) atBaseRun() *Run {
	r := v.in.Run
	if r == nil || r.root != v.in.Root || r.gitCache == nil || v.in.Git != Git(r.gitCache) {
		return nil
	}
	return r
}

// storyAtBase is the sections of the story at the clean path p in commit
// base, read and parsed once per run.
func (v *validator) storyAtBase(base gitrepo.Commit, p string) oldSections {
	r := v.atBaseRun()
	if r == nil {
		return v.readStoryAt(base, p)
	}
	k := atBaseKey{base: base.Hash, path: p, max: v.cfg.MaxFileSize}
	return sharedAnswer(&r.atBase.mu, &r.atBase.sections, k, func() oldSections { return v.readStoryAt(base, p) })
}

// readStoryAt reads and parses the story at the clean path p in commit
// base (see oldSections).
func (v *validator) readStoryAt(base gitrepo.Commit, p string) oldSections {
	data, err := v.in.Git.ReadAt(base, p)
	if gitrepo.MissingHistory(err) {
		return oldSections{missing: true}
	}
	if err != nil || int64(len(data)) > v.cfg.MaxFileSize {
		return oldSections{}
	}
	old := v.in.ParseStory(p, data)
	if old == nil {
		return oldSections{}
	}
	// names and hashes only: the run keeps them, not the stories' text
	kept := make(workflow.Sections, len(old.Sections))
	for i, s := range old.Sections {
		kept[i] = workflow.Section{Name: s.Name, Hash: s.Hash, Line: s.Line}
	}
	return oldSections{sections: kept, ok: true}
}

// rewritten reports whether the file at the clean path p was rewritten
// wholesale since base (see rewrittenSince), answered once per run.
func (v *validator) rewritten(base gitrepo.Commit, p string) bool {
	r := v.atBaseRun()
	if r == nil {
		return v.rewrittenSince(base, p)
	}
	k := atBaseKey{base: base.Hash, path: p, max: v.cfg.MaxFileSize}
	return sharedAnswer(&r.atBase.mu, &r.atBase.rewritten, k, func() bool { return v.rewrittenSince(base, p) })
}
