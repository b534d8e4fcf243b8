package gitrepo

import (
	"bytes"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// maxCommitHeader bounds what is read of a commit: its header (tree,
// parents, author, committer, signatures) must end within it, and its
// message is read no further (only its first line, the subject, is used).
// A commit with a message of hundreds of megabytes is inflated no further
// than this.
const maxCommitHeader = 1 << 20

// readCommit decodes commit h from at most its first maxCommitHeader bytes:
// the message is cut there; a header that does not end within them is an
// error.
func (r *Repo) readCommit(h plumbing.Hash) (*object.Commit, error) {
	if r.packs == nil {
		return object.GetCommit(r.objects, h)
	}
	data, whole, err := r.packs.commitPrefix(h, maxCommitHeader)
	if err != nil {
		return nil, err
	}
	if !whole && !bytes.Contains(data, []byte("\n\n")) {
		return nil, fmt.Errorf("commit %s: header over %d bytes", h.String()[:7], maxCommitHeader)
	}
	return object.DecodeCommit(r.objects, &packedObject{h: h, t: plumbing.CommitObject, data: data})
}
