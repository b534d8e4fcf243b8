// Package prompt is the terminal prompter: small Select, Confirm and Input
// prompts of its own on a raw terminal (golang.org/x/term), built so that
// typing cannot pick a surprise. It is a leaf and knows no stage: its
// Terminal has the methods of modes.Prompter, and the command layer
// (app/cli) adapts it to that interface, turning ErrInterrupted into
// ErrInterrupted; everything else asks through modes.Prompter (tests
// use prompttest.Prompter).
//
// Key bindings (each prompt shows them in its help line):
//
//   - Select, up to nine options: the options are numbered; a digit, or the
//     letter x of options labelled "[x] text", moves to that option; up and
//     down (Ctrl-P, Ctrl-N, Tab) move; Enter answers the highlighted option,
//     the default at first. Typing never filters; other keys are ignored.
//   - Select, ten options or more: typing filters, Backspace and Ctrl-U
//     edit the filter, Enter answers; Enter when nothing matches cancels.
//   - Confirm: y or n, then Enter; Enter alone takes the default.
//   - Input: a line of text, Enter answers.
//   - Everywhere: Ctrl-C, Ctrl-D and Esc cancel (ErrInterrupted),
//     whatever was typed before; no key ever answers with a default but
//     Enter.
//
// Questions are written to the error output, so stdout stays data; text
// from a repository is drawn with its control characters replaced, and
// every line is wrapped to the terminal's width.
package prompt

import (
	"errors"
	"io"
	"os"
)

// ErrInterrupted is returned by a Terminal question the user cancelled
// (Ctrl-C, Ctrl-D or Esc). The command layer reports it as
// ErrInterrupted; its text is the same.
var ErrInterrupted = errors.New("interrupted")

// ErrNoTerminal is returned by the terminal prompter when its input or its
// error output is not a terminal, so there is no terminal to ask on.
var ErrNoTerminal = errors.New("no terminal to ask on: stdin and stderr must be terminals")

// Terminal asks questions on a terminal session: the methods of
// modes.Prompter, with ErrInterrupted for a cancelled question.
type Terminal struct {
	in     io.Reader
	errOut io.Writer
	style  style
}

// NewTerminal returns the prompter that asks on a terminal: it reads keys
// from in and draws the questions on errOut, both of which must be
// terminals (else every question fails with ErrNoTerminal), so that stdout
// stays data. color turns colours on.
func NewTerminal(in io.Reader, errOut io.Writer, color bool) *Terminal {
	return &Terminal{in: in, errOut: errOut, style: style{color: color}}
}

// Select asks to choose one of options and returns the index chosen.
// Without options there is nothing to choose: it returns
// ErrInterrupted without asking.
func (p *Terminal) Select(message string, options []string, def int) (int, error) {
	if len(options) == 0 {
		return 0, ErrInterrupted
	}
	m := newSelect(message, options, def)
	if err := p.ask(m); err != nil {
		return 0, err
	}
	if m.chosen < 0 || m.chosen >= len(options) {
		return 0, ErrInterrupted
	}
	return m.chosen, nil
}

// Confirm asks a yes/no question.
func (p *Terminal) Confirm(message string, def bool) (bool, error) {
	m := &confirmModel{message: sanitize(message), def: def}
	if err := p.ask(m); err != nil {
		return false, err
	}
	return m.answer, nil
}

// Input asks for a line of text.
func (p *Terminal) Input(message string, def string) (string, error) {
	m := &inputModel{message: sanitize(message), def: sanitize(def)}
	if err := p.ask(m); err != nil {
		return "", err
	}
	return string(m.text), nil
}

// ask runs one question on the terminal.
func (p *Terminal) ask(m model) error {
	in, ok := p.in.(*os.File)
	if !ok {
		return ErrNoTerminal
	}
	out, ok := p.errOut.(*os.File)
	if !ok {
		return ErrNoTerminal
	}
	return run(in, out, m, p.style)
}
