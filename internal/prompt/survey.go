// Package prompt is orchestrate's one seam over survey/v2, the only package
// that imports it: the terminal implementation of modes.Prompter. The
// command layer wires it; everything else asks through modes.Prompter (tests
// use prompttest.Prompter).
package prompt

import (
	"errors"
	"io"
	"os"
	"sync"

	"github.com/AlecAivazis/survey/v2"
	"github.com/AlecAivazis/survey/v2/core"
	"github.com/AlecAivazis/survey/v2/terminal"

	"github.com/orchestrate-dev/orchestrate/modes"
)

// ErrNoTerminal is returned by the survey prompter when its input or its
// error output is not a file, so there is no terminal to ask on.
var ErrNoTerminal = errors.New("no terminal to ask on: stdin and stderr must be terminals")

// surveyPrompter is the modes.Prompter of a terminal session: survey/v2
// prompts on stdin, written to stderr so that stdout stays data.
type surveyPrompter struct {
	in      io.Reader
	errOut  io.Writer
	noColor bool
}

// surveyMu serialises prompts: survey's colour switch (core.DisableColor)
// is a package variable, set for the duration of each question. Survey
// reads it when it first compiles a template and keeps the result, so the
// first question of a process decides its colour (one process, one
// setting: that is how the command runs). Survey also honours NO_COLOR
// itself.
var surveyMu sync.Mutex

// NewSurvey returns the Prompter that asks on a terminal: it reads in and
// writes the questions to errOut, both of which must be files (else every
// question fails with ErrNoTerminal), so that stdout stays data. color
// turns survey's colours on (survey also honours NO_COLOR itself).
func NewSurvey(in io.Reader, errOut io.Writer, color bool) modes.Prompter {
	return &surveyPrompter{in: in, errOut: errOut, noColor: !color}
}

// Select asks to choose one of options and returns the index chosen.
func (p *surveyPrompter) Select(message string, options []string, def int) (int, error) {
	if def < 0 || def >= len(options) {
		def = 0
	}
	q := &survey.Select{Message: message, Options: options, Default: def, PageSize: pageSize(len(options))}
	var i int
	if err := p.ask(q, &i); err != nil {
		return 0, err
	}
	return i, nil
}

// Confirm asks a yes/no question.
func (p *surveyPrompter) Confirm(message string, def bool) (bool, error) {
	var ok bool
	if err := p.ask(&survey.Confirm{Message: message, Default: def}, &ok); err != nil {
		return false, err
	}
	return ok, nil
}

// Input asks for a line of text.
func (p *surveyPrompter) Input(message string, def string) (string, error) {
	var s string
	if err := p.ask(&survey.Input{Message: message, Default: def}, &s); err != nil {
		return "", err
	}
	return s, nil
}

// ask runs one survey question on the streams. Ctrl-C (and Ctrl-D, the end
// of input) become modes.ErrInterrupted.
func (p *surveyPrompter) ask(q survey.Prompt, answer any) error {
	in, ok := p.in.(*os.File)
	if !ok {
		return ErrNoTerminal
	}
	errOut, ok := p.errOut.(*os.File)
	if !ok {
		return ErrNoTerminal
	}
	surveyMu.Lock()
	defer surveyMu.Unlock()
	saved := core.DisableColor
	core.DisableColor = p.noColor
	defer func() { core.DisableColor = saved }()

	err := survey.AskOne(q, answer, survey.WithStdio(in, errOut, errOut))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, terminal.InterruptErr), errors.Is(err, io.EOF):
		return modes.ErrInterrupted
	}
	return err
}

// pageSize shows every option when they fit on a screen.
func pageSize(n int) int {
	switch {
	case n < 7:
		return 7
	case n > 15:
		return 15
	}
	return n
}
