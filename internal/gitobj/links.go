package gitobj

import (
	"bytes"
	"encoding/hex"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
)

// CommitLinks are what a history walk reads of a commit: its tree and its
// first parent (zero for a root commit).
type CommitLinks struct {
	Commit, Tree, Parent plumbing.Hash
}

// ParseLinks parses the tree and first parent lines of commit h from raw,
// all of the commit when whole is true, else its first bytes: done is false
// when those end before the lines do (the caller reads the whole commit).
func ParseLinks(h plumbing.Hash, raw []byte, whole bool) (l CommitLinks, done bool, err error) {
	l = CommitLinks{Commit: h}
	seenTree, ended := false, false
	for len(raw) > 0 && !(seenTree && !l.Parent.IsZero()) {
		line := raw
		if nl := bytes.IndexByte(raw, '\n'); nl >= 0 {
			line, raw = raw[:nl], raw[nl+1:]
		} else if !whole {
			return CommitLinks{}, false, nil // a cut line
		} else {
			raw = nil
		}
		if len(line) == 0 {
			ended = true
			break // the end of the header
		}
		switch {
		case !seenTree && bytes.HasPrefix(line, []byte("tree ")):
			if l.Tree, err = parseHexHash(line[5:]); err != nil {
				return CommitLinks{}, true, fmt.Errorf("commit %s: tree: %w", h.String()[:7], err)
			}
			seenTree = true
		case l.Parent.IsZero() && bytes.HasPrefix(line, []byte("parent ")):
			if l.Parent, err = parseHexHash(line[7:]); err != nil {
				return CommitLinks{}, true, fmt.Errorf("commit %s: parent: %w", h.String()[:7], err)
			}
		}
	}
	if !whole && !ended && !(seenTree && !l.Parent.IsZero()) {
		return CommitLinks{}, false, nil // the prefix ends inside the header
	}
	if !seenTree {
		return CommitLinks{}, true, fmt.Errorf("commit %s has no tree", h.String()[:7])
	}
	return l, true, nil
}

// parseHexHash parses a full hex hash.
func parseHexHash(b []byte) (plumbing.Hash, error) {
	var h plumbing.Hash
	if len(b) != 2*len(h) {
		return h, fmt.Errorf("%q is not a full hash", b)
	}
	if _, err := hex.Decode(h[:], b); err != nil {
		return h, fmt.Errorf("%q is not a full hash: %w", b, err)
	}
	return h, nil
}
