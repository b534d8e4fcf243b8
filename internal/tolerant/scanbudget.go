package tolerant

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/orchestrate-dev/orchestrate/internal/textfmt"
)

// MaxScanReadElements is the most elements (see FileElements) one scan
// reads over all the files of all its formats. Each file is bounded on its
// own (MaxNodes values, MaxElements entries), but nothing bounded their
// sum: ten thousand state files just under every per-file bound each
// passed. The bench's 20,000-story repository reads about 1,010,000 (see
// docs/SECURITY.md, "Counts"): the budget leaves it a margin of about three (and the bound keeps a run past it within seconds: docs/SECURITY.md).
const MaxScanReadElements = 3_000_000

// YAMLWeight is what one element of a YAML file (.yaml, .yml) counts for:
// yaml.v3 spends twelve to sixteen times as long per value as
// encoding/json (99,000 list entries: about 0.9 s against 0.06 on a loaded
// machine), and a Markdown line of a story costs about what a JSON value
// does.
const YAMLWeight = 16

// MaxFileCharge is the most one file draws from a scan's budget: a file
// past it is either refused by the per-file bounds, having cost nothing
// (MaxNodes values; an 8 MiB YAML file of tiny values is tens of millions
// of elements), or a rare large file whose work those bounds cap; so one
// file alone never spends the budget, and the per-file finding, which says
// more, is the one a single hostile file gets.
const MaxFileCharge = MaxScanReadElements / 2

// FileElements is Elements, times YAMLWeight for a file whose name says
// YAML.
func FileElements(name string, data []byte) int {
	n := Elements(data)
	if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") {
		n *= YAMLWeight
	}
	return n
}

// Elements is what reading data costs the scan's budget: its lines (LF,
// CRLF or CR, and YAML's NEL, LS and PS), its commas and its opening
// brackets, plus one. Every value a JSON document decodes to after the
// first follows a comma or an opening bracket (the bound the per-file check
// counts, see jsonShape); a YAML value starts a line or follows an
// indicator, most often a comma or a bracket in flow; every heading, list
// item, checkbox or table row a Markdown format reads is a line. So the
// count follows the work of reading the file, whatever its format, and is
// found before anything is decoded, in a few passes over the bytes.
func Elements(data []byte) int {
	lf, cr := bytes.Count(data, []byte{'\n'}), bytes.Count(data, []byte{'\r'})
	if lf > 0 && cr > 0 {
		cr -= bytes.Count(data, []byte("\r\n")) // a CRLF is one line
	}
	// YAML's other line breaks, which a document can use alone
	nel := 0
	if bytes.IndexByte(data, 0xC2) >= 0 || bytes.IndexByte(data, 0xE2) >= 0 {
		nel = bytes.Count(data, []byte("\u0085")) + bytes.Count(data, []byte("\u2028")) + bytes.Count(data, []byte("\u2029"))
	}
	return 1 + lf + cr + nel + bytes.Count(data, []byte{','}) + bytes.Count(data, []byte{'['}) + bytes.Count(data, []byte{'{'})
}

// ScanBudget is what is left of the elements one scan reads over all its
// files (MaxScanReadElements): every file read draws its Elements from it;
// once a file does not fit, the budget is spent and every file after it is
// refused too, so that which file is read never depends on the size of a
// later one. Safe for concurrent use (formats read on several goroutines).
type ScanBudget struct {
	mu      sync.Mutex
	size    int
	left    int
	at      string // the file the budget ran out at
	refused int    // the files refused, that one included
}

// NewScanBudget returns a full budget of size elements (MaxScanReadElements
// when size <= 0).
func NewScanBudget(size int) *ScanBudget {
	if size <= 0 {
		size = MaxScanReadElements
	}
	return &ScanBudget{size: size, left: size}
}

// Take draws the FileElements of file's data from the budget; it returns nil
// when they were left, otherwise a "too-many" error naming the file the
// budget ran out at (the caller reports it and does not read data). A nil
// budget covers everything.
func (b *ScanBudget) Take(file string, data []byte) *DecodeError {
	if b == nil {
		return nil
	}
	return b.TakeN(file, FileElements(file, data))
}

// TakeN is Take for a count of elements the caller found itself (at most
// MaxFileCharge are drawn).
func (b *ScanBudget) TakeN(file string, n int) *DecodeError {
	if b == nil {
		return nil
	}
	n = min(n, MaxFileCharge)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.at == "" && n <= b.left {
		b.left -= n
		return nil
	}
	b.refused++
	if b.at == "" {
		b.at, b.left = file, 0
		return &DecodeError{Code: "too-many", Msg: fmt.Sprintf("%s elements (lines, commas and brackets) past the %s orchestrate reads in one scan over all the repository's files; the scan's budget ran out here: this file and the ones after it are not read",
			textfmt.Thousands(n), textfmt.Thousands(b.size))}
	}
	return &DecodeError{Code: "too-many", Msg: fmt.Sprintf("not read: the %s elements (lines, commas and brackets) orchestrate reads in one scan over all the repository's files ran out at %s",
		textfmt.Thousands(b.size), b.at)}
}

// Spent reports the file the budget ran out at ("" while it has not) and
// how many files it refused.
func (b *ScanBudget) Spent() (at string, refused int) {
	if b == nil {
		return "", 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.at, b.refused
}

// Size is the number of elements the budget started with.
func (b *ScanBudget) Size() int {
	if b == nil {
		return 0
	}
	return b.size
}
