package tolerant

import (
	"fmt"

	"github.com/orchestrate-dev/orchestrate/internal/textfmt"
)

// MaxElements is the most entries of one kind a format reads from one
// file: tasks and subtasks, waves and their stories, loop or index entries,
// breadcrumbs, ledger lines, checkboxes. Real files hold hundreds (the
// largest real Taskmaster files some hundreds of tasks, real epics dozens
// of waves); a file holding more is not read, with a "too-many" finding,
// rather than read in part (see docs/SECURITY.md, "Counts").
const MaxElements = 20_000

// MaxScanElements is the most entries one source reads in one scan, over
// all its files: past it, the remaining files are not read, each with a
// "too-many" finding.
const MaxScanElements = 200_000

// TooManyElements is the error of a file holding n entries of what
// ("tasks"), more than max.
func TooManyElements(n, max int, what string) *DecodeError {
	return &DecodeError{Code: "too-many", Msg: fmt.Sprintf("%s %s, more than the %s orchestrate reads; the file is not read",
		textfmt.Thousands(n), what, textfmt.Thousands(max))}
}

// Budget is what is left of one source's MaxScanElements in one scan. The
// zero value is spent; use NewBudget.
type Budget struct{ left int }

// NewBudget returns a full budget of MaxScanElements.
func NewBudget() *Budget { return &Budget{left: MaxScanElements} }

// Take spends n entries and reports whether they were left; when they were
// not, nothing is spent and Err says so.
func (b *Budget) Take(n int) bool {
	if b == nil {
		return true
	}
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

// Err is the error of a file whose n entries the budget no longer covers.
func (b *Budget) Err(n int, what string) *DecodeError {
	return &DecodeError{Code: "too-many", Msg: fmt.Sprintf("%s %s, past the %s this source reads in one scan over all its files; the file is not read",
		textfmt.Thousands(n), what, textfmt.Thousands(MaxScanElements))}
}

// ListLen is the length of the list (or the number of entries of the
// mapping) under the first of keys m holds; 0 when it holds none or
// something else. Formats count a list with it before reading it.
func ListLen(m map[string]any, keys ...string) int {
	for _, k := range keys {
		switch t := m[k].(type) {
		case []any:
			return len(t)
		case map[string]any:
			return len(t)
		case nil:
			continue
		}
		return 0
	}
	return 0
}

// CountEntries counts the list entries and mapping entries of a decoded
// value, at every depth, stopping once the count passes limit: a format
// whose files have no one list to count (a workflow state's stories, phases,
// outputs and metadata) bounds them all at once with it.
func CountEntries(v any, limit int) int {
	n := 0
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if n > limit || depth > 2*MaxDepth {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			n += len(t)
			for _, x := range t {
				walk(x, depth+1)
			}
		case []any:
			n += len(t)
			for _, x := range t {
				walk(x, depth+1)
			}
		}
	}
	walk(v, 0)
	return n
}
