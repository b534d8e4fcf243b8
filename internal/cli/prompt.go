package cli

import (
	"os"

	"github.com/orchestrate-dev/orchestrate/internal/prompt"
	"github.com/orchestrate-dev/orchestrate/modes"
)

// errNoTerminal is returned by the survey prompter when stdin or stderr is
// not a file, so there is no terminal to ask on.
var errNoTerminal = prompt.ErrNoTerminal

// newSurveyPrompter returns the Prompter that asks on the terminal of io
// (internal/prompt, the one survey seam). Colour is off when NO_COLOR is set
// or stderr is not a terminal; commands use newSurveyPrompterColor with the
// injected environment and --no-color.
func newSurveyPrompter(io IOStreams) modes.Prompter {
	return newSurveyPrompterColor(io, colorEnabled(false, os.Getenv, io.ErrTTY))
}

// newSurveyPrompterColor is newSurveyPrompter with colour on or off as told.
func newSurveyPrompterColor(io IOStreams, color bool) modes.Prompter {
	return prompt.NewSurvey(io.In, io.ErrOut, color)
}
