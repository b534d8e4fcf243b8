package cli

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
		{"lines", linesError{"first:", "  - second"}, "first:\n  - second"},
		{"a usage error of lines", cmdLineError(linesError{"a", "b"}), "a\nb"},
		{"an escape inside a line", linesError{"a\x1b[31m", "b"}, `a\x1b[31m` + "\nb"},
		{"wrapped in more words", fmt.Errorf("ctx: %w", linesError{"a", "b"}), `ctx: a\nb`},
		{"a plain error", errors.New("a\nb"), `a\nb`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := safeErr(tt.err); got != tt.want {
				t.Fatalf("safeErr = %q, want %q", got, tt.want)
			}
		})
	}
}
