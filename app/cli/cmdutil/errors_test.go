package cmdutil

import (
	"errors"
	"fmt"
	"testing"
)

// A message made of lines keeps its line breaks, each line escaped on its
// own; a control character inside a line, or a multi-line message wrapped
// in more words, is still escaped.
func TestSafeErrLines(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"lines", LinesError{"first:", "  - second"}, "first:\n  - second"},
		{"a usage error of lines", CmdLineError(LinesError{"a", "b"}), "a\nb"},
		{"an escape inside a line", LinesError{"a\x1b[31m", "b"}, `a\x1b[31m` + "\nb"},
		{"wrapped in more words", fmt.Errorf("ctx: %w", LinesError{"a", "b"}), `ctx: a\nb`},
		{"a plain error", errors.New("a\nb"), `a\nb`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SafeErr(tt.err); got != tt.want {
				t.Fatalf("SafeErr = %q, want %q", got, tt.want)
			}
		})
	}
}
