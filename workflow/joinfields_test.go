package workflow

import (
	"strings"
	"testing"
)

// JoinFields is strings.Join(strings.Fields(s), " ") for every input.
func TestJoinFields(t *testing.T) {
	for _, s := range []string{"", " ", "a", "a b", " a", "a ", "a  b", "a\tb", "a\r\n", "x\u00a0y", "é è", "a b c d", "\u2003a"} {
		if got, want := JoinFields(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("JoinFields(%q) = %q, want %q", s, got, want)
		}
	}
	if n := testing.AllocsPerRun(10, func() { _ = JoinFields("Acceptance Criteria") }); n != 0 {
		t.Errorf("JoinFields of a clean string allocates %v times", n)
	}
}
