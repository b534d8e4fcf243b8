package gitobj

import (
	"bytes"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// MaxCommitHeader bounds what is read of a commit: its header (tree,
// parents, author, committer, signatures) must end within it. Its message is
// read no further than its first line (the subject, all that is used) or
// commitMessageKept bytes: a commit with a message of hundreds of megabytes
// is inflated no further than this.
const MaxCommitHeader = 1 << 20

// commitFirstRead is how much of a commit readCommit reads first: enough
// for the header of nearly every commit, signed ones included.
const commitFirstRead = 8 << 10

// commitMessageKept bounds the part of a message kept when its first line
// is longer.
const commitMessageKept = 4 << 10

// ReadCommit decodes commit h from its first bytes (commitFirstRead, or
// MaxCommitHeader when the header is longer): the message is cut after its
// first line; a header that does not end within maxCommitHeader bytes is an
// error.
func (s *Store) ReadCommit(h plumbing.Hash) (*object.Commit, error) {
	data, whole, err := s.CommitPrefix(h, commitFirstRead)
	if err != nil {
		return nil, err
	}
	end := bytes.Index(data, []byte("\n\n"))
	if !whole && end < 0 {
		if data, whole, err = s.CommitPrefix(h, MaxCommitHeader); err != nil {
			return nil, err
		}
		if end = bytes.Index(data, []byte("\n\n")); !whole && end < 0 {
			return nil, fmt.Errorf("commit %s: header over %d bytes", h.String()[:7], MaxCommitHeader)
		}
	}
	if end >= 0 {
		msg := data[end+2:]
		if nl := bytes.IndexByte(msg, '\n'); nl >= 0 {
			msg = msg[:nl+1]
		}
		data = data[:end+2+min(len(msg), commitMessageKept)]
	}
	return object.DecodeCommit(s, &packedObject{h: h, t: plumbing.CommitObject, data: data})
}
