package planfile

import (
	"fmt"
	"strconv"
	"strings"
)

// Change is one dependency of a plan that moved since the plan was made:
// Saved and Current are the digests (empty when the dependency is absent
// from that side), Message a sentence saying what changed.
type Change struct {
	Kind    string
	Path    string
	Saved   string
	Current string
	Message string
}

// String is the change's message.
func (c Change) String() string { return c.Message }

type depKey struct{ kind, path string }

// Compare returns the changes between the dependencies a plan saved and the
// current ones, in the order of saved (then the new ones, in current's
// order); nil when nothing moved. Every string in a dependency may come
// from a repository or a hand-edited plan: messages quote paths with %q
// when they hold control characters.
func Compare(saved, current []Dep) []Change {
	cur := make(map[depKey]string, len(current))
	for _, d := range current {
		cur[depKey{d.Kind, d.Path}] = d.Digest
	}
	seen := make(map[depKey]bool, len(saved))
	var out []Change
	for _, d := range saved {
		k := depKey{d.Kind, d.Path}
		if seen[k] {
			continue
		}
		seen[k] = true
		now, ok := cur[k]
		if ok && now == d.Digest {
			continue
		}
		c := Change{Kind: d.Kind, Path: d.Path, Saved: d.Digest, Current: now}
		if !ok {
			c.Message = depSetMessage(d, true)
		} else {
			c.Message = changeMessage(d.Kind, d.Path, d.Digest, now)
		}
		out = append(out, c)
	}
	for _, d := range current {
		k := depKey{d.Kind, d.Path}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, Change{Kind: d.Kind, Path: d.Path, Current: d.Digest, Message: depSetMessage(d, false)})
	}
	return out
}

// show renders a string from a plan or a repository for a message.
func show(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' || r == 0xfffd {
			return strconv.Quote(s)
		}
	}
	if len(s) > 200 {
		return strconv.Quote(truncate(s, 200))
	}
	return s
}

// shortHash is the first 7 characters of a commit hash.
func shortHash(h string) string {
	if len(h) > 7 && h != NoHead {
		return h[:7]
	}
	return h
}

func changeMessage(kind, path, was, now string) string {
	switch kind {
	case KindFile:
		switch {
		case now == Missing:
			return fmt.Sprintf("%s was deleted since the plan", show(path))
		case was == Missing:
			return fmt.Sprintf("%s was created since the plan", show(path))
		case strings.HasPrefix(now, "unreadable: "):
			return fmt.Sprintf("%s can no longer be read (%s) since the plan", show(path), show(strings.TrimPrefix(now, "unreadable: ")))
		}
		return fmt.Sprintf("%s changed since the plan", show(path))
	case KindState:
		if now == Missing {
			return fmt.Sprintf("the state file %s was deleted since the plan", show(path))
		}
		return fmt.Sprintf("the state file %s changed since the plan", show(path))
	case KindHead:
		switch {
		case was == NoHead:
			return fmt.Sprintf("HEAD is now %s (there was no commit when the plan was made)", show(shortHash(now)))
		case now == NoHead:
			return fmt.Sprintf("HEAD %s is gone (no commit now)", show(shortHash(was)))
		}
		return fmt.Sprintf("HEAD moved from %s to %s", show(shortHash(was)), show(shortHash(now)))
	case KindLock:
		if now == LockFree {
			return fmt.Sprintf("the lock was %s when the plan was made and is now free", show(was))
		}
		return fmt.Sprintf("the lock is now %s", show(now))
	case KindPhase:
		return fmt.Sprintf("the resume point moved from phase %s to %s", show(was), show(now))
	case KindMode:
		return fmt.Sprintf("the mode changed from %s to %s", show(was), show(now))
	case KindDecision:
		return fmt.Sprintf("the decision re-derived from the current state is %s, the plan says %s", show(now), show(was))
	case KindWorkflow:
		return fmt.Sprintf("the workflow is now %s, the plan is for %s", show(now), show(was))
	case KindVersion:
		return fmt.Sprintf("the plan was made by %s, this is %s", show(was), show(now))
	}
	if path != "" {
		return fmt.Sprintf("%s %s changed since the plan", show(kind), show(path))
	}
	return fmt.Sprintf("%s changed from %s to %s", show(kind), show(was), show(now))
}

// depSetWords word a dependency that left the plan's set (true: gone) or
// joined it (false: new): a referenced file, the state file, and the end of
// the sentence for the other kinds.
var depSetWords = map[bool]struct{ file, state, other string }{
	true:  {"%s is no longer referenced by the workflow", "the state file %s no longer describes the workflow", "is no longer part of the plan"},
	false: {"%s is now referenced by the workflow (it was not when the plan was made)", "the workflow is now described by the state file %s", "is new since the plan"},
}

// depSetMessage says that d left the plan's dependencies (gone) or joined
// them.
func depSetMessage(d Dep, gone bool) string {
	w := depSetWords[gone]
	switch {
	case d.Kind == KindFile:
		return fmt.Sprintf(w.file, show(d.Path))
	case d.Kind == KindState:
		return fmt.Sprintf(w.state, show(d.Path))
	case d.Path != "":
		return fmt.Sprintf("%s %s %s", show(d.Kind), show(d.Path), w.other)
	case gone:
		return fmt.Sprintf("%s is no longer known", show(d.Kind))
	}
	return fmt.Sprintf("%s %s %s", show(d.Kind), show(d.Digest), w.other)
}
