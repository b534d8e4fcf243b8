package iostreams

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/prompt"
	"github.com/orchestrate-dev/orchestrate/modes"
)

// The adapter reports the leaf's cancel as modes.ErrInterrupted, the one
// cancel the use cases check for, and passes every other error through.
func TestTerminalPrompterInterrupted(t *testing.T) {
	other := errors.New("disk on fire")
	for _, tc := range []struct {
		name string
		in   error
		want error
	}{
		{"nil", nil, nil},
		{"cancelled", prompt.ErrInterrupted, modes.ErrInterrupted},
		{"cancelled, wrapped", fmt.Errorf("select: %w", prompt.ErrInterrupted), modes.ErrInterrupted},
		{"no terminal", prompt.ErrNoTerminal, prompt.ErrNoTerminal},
		{"other", other, other},
	} {
		if got := interrupted(tc.in); got != tc.want {
			t.Errorf("%s: interrupted(%v) = %v, want %v", tc.name, tc.in, got, tc.want)
		}
	}
	// Without options the terminal prompter cancels without asking.
	p := NewTerminalPrompter(IOStreams{In: strings.NewReader(""), ErrOut: &strings.Builder{}}, false)
	if _, err := p.Select("Pick?", nil, 0); err != modes.ErrInterrupted {
		t.Errorf("Select without options: %v, want modes.ErrInterrupted", err)
	}
	if modes.ErrInterrupted.Error() != prompt.ErrInterrupted.Error() {
		t.Errorf("the two cancels word differently: %q, %q", modes.ErrInterrupted, prompt.ErrInterrupted)
	}
}
