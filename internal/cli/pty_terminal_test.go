//go:build linux

package cli

import (
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
)

// status on a terminal of 60 columns: every line fits, cut with "…"; the
// ids stay unique prefixes; --wide shows everything whole.
func TestPTYStatusNarrow(t *testing.T) {
	dir := multipleRepo(t)
	r := startPTYOn(t, newTerminalSize(t, 60, 40), dir, []string{"COLUMNS="}, "status")
	r.expectExit(0)
	out := r.text()
	if !strings.Contains(out, "…") {
		r.fail("nothing was cut at 60 columns")
	}
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if w := termsafe.Width(l); w > 60 {
			r.fail("a line is %d columns wide at 60: %q", w, l)
		}
	}
	r.shows("ID", "POSITION", "SOURCE")
	for _, id := range []string{"qa-loop:3.1", "workflow:sdc-4.2"} {
		found := false
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(l)
			if len(f) > 0 && strings.HasPrefix(id, strings.TrimSuffix(f[0], "…")) {
				found = true
			}
		}
		if !found {
			r.fail("no row starts with (a prefix of) %s", id)
		}
	}

	wide := startPTYOn(t, newTerminalSize(t, 60, 40), dir, []string{"COLUMNS="}, "status", "--wide")
	wide.expectExit(0)
	wide.hides("…")
	wide.shows(".orchestrate/workflows/sdc-4.2.yaml", "docs/specs/login/.pipeline-state.json")

	// COLUMNS overrides the terminal's width
	wider := startPTYOn(t, newTerminalSize(t, 60, 40), dir, []string{"COLUMNS=200"}, "status")
	wider.expectExit(0)
	wider.hides("…")
}

// The multiple-workflows block of a dry run fits a narrow terminal too.
func TestPTYMultipleNarrow(t *testing.T) {
	dir := multipleRepo(t)
	r := startPTYOn(t, newTerminalSize(t, 60, 40), dir, []string{"COLUMNS="}, "resume", "--dry-run")
	r.exit()
	out := r.text()
	start := strings.Index(out, "=== Multiple Interrupted Workflows Found ===")
	if start < 0 {
		r.fail("no multiple block")
	}
	block := strings.SplitN(out[start:], "\n\n", 3)[1]
	for _, l := range strings.Split(block, "\n") {
		if w := termsafe.Width(l); w > 60 {
			r.fail("a line of the list is %d columns wide at 60: %q", w, l)
		}
	}
	if !strings.Contains(block, "…") {
		r.fail("nothing was cut in the list at 60 columns:\n%s", block)
	}
}
