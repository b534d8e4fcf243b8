// Package statepatch holds what every format's byte-preserving patch shares:
// the error for a file a format cannot mark resumed, the status a resume
// writes, the UTF-8 byte-order mark a patch keeps, the content hash used
// to compare a state before and after a resume, and the generic patch of a
// JSON or YAML state (Patch, Hash, MarkedActive) any format package can use. The format packages under
// discover/ own their patches; handoff calls them under its lock and keeps
// the atomic write and the backup (see docs/ARCHITECTURE.md).
package statepatch

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
)

// ErrNotPatchable is returned for a file no format knows how to mark
// resumed (handoff.ErrNotPatchable is this error).
var ErrNotPatchable = errors.New("not a state file orchestrate can patch")

// StatusActive is the status a resumed state gets.
const StatusActive = "active"

// BOM is the UTF-8 byte-order mark; a patch keeps it when the file has one.
var BOM = []byte{0xEF, 0xBB, 0xBF}

// HashHex is the hex sha256 of data.
func HashHex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Edit replaces data[Start:End] with Text.
type Edit struct {
	Start, End int
	Text       string
}

// ApplyEdits applies edits that do not overlap to a copy of data, from the
// last one to the first so that offsets stay valid.
func ApplyEdits(data []byte, edits []Edit) []byte {
	edits = append([]Edit(nil), edits...)
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].Start > edits[j].Start })
	out := append([]byte{}, data...)
	for _, e := range edits {
		out = append(out[:e.Start], append([]byte(e.Text), out[e.End:]...)...)
	}
	return out
}

// Canonical renders decoded state values deterministically (sorted keys,
// quoted strings), for comparison and hashing.
func Canonical(m map[string]any) string {
	return fmt.Sprintf("%#v", m)
}
