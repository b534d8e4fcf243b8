// Package prompttest is the one fake of modes.Prompter every test uses: it
// answers from a script (or one standing answer) and records what it was
// asked, so decisions and commands are tested without a terminal. It does
// not import modes, so modes' own tests can use it.
package prompttest

import (
	"fmt"
	"strings"
	"testing"
)

// Question is one question the Prompter was asked.
type Question struct {
	Kind    string // select | confirm | input
	Message string
	Options []string // Select only
	Default any      // the default offered: an int, a bool or a string
}

// Reply is the scripted answer to one question.
type Reply struct {
	Index int    // Select: the index chosen
	Yes   bool   // Confirm
	Text  string // Input
	Err   error  // every kind: the error returned (modes.ErrInterrupted for Ctrl-C)
}

// Prompter answers Replies in order. With no Replies left it answers with
// Answer: Select picks the option equal to Answer, else the first containing
// it, else the default; Confirm is yes when Answer is "yes"; Input types
// Answer. Err, when set, is returned by every question instead. With T set,
// a question past the script and without Answer or Err fails the test.
type Prompter struct {
	T       testing.TB
	Replies []Reply
	Answer  string
	Err     error
	// Asked records every question, in order.
	Asked []Question
}

// Script returns a Prompter that answers replies, in order, and fails t on
// any further question.
func Script(t testing.TB, replies ...Reply) *Prompter {
	return &Prompter{T: t, Replies: replies}
}

// Answering returns a Prompter that answers every question with answer.
func Answering(answer string) *Prompter { return &Prompter{Answer: answer} }

// Failing returns a Prompter whose every question fails with err (use
// modes.ErrInterrupted for a user who presses Ctrl-C).
func Failing(err error) *Prompter { return &Prompter{Err: err} }

// Messages are the messages of the questions asked, in order.
func (p *Prompter) Messages() []string {
	out := make([]string, len(p.Asked))
	for i, q := range p.Asked {
		out[i] = q.Message
	}
	return out
}

// next records q and returns the scripted reply, if any.
func (p *Prompter) next(q Question) (Reply, bool) {
	p.Asked = append(p.Asked, q)
	if p.Err != nil {
		return Reply{Err: p.Err}, true
	}
	if len(p.Replies) > 0 {
		r := p.Replies[0]
		p.Replies = p.Replies[1:]
		return r, true
	}
	if p.Answer == "" && p.T != nil {
		p.T.Helper()
		p.T.Fatalf("prompttest: unexpected question %q", q.Message)
	}
	return Reply{}, false
}

// Select asks to choose one of options and returns the index chosen.
func (p *Prompter) Select(message string, options []string, def int) (int, error) {
	r, scripted := p.next(Question{"select", message, append([]string(nil), options...), def})
	if scripted {
		return r.Index, r.Err
	}
	for i, o := range options {
		if o == p.Answer {
			return i, nil
		}
	}
	for i, o := range options {
		if strings.Contains(o, p.Answer) {
			return i, nil
		}
	}
	return def, nil
}

// Confirm asks a yes/no question.
func (p *Prompter) Confirm(message string, def bool) (bool, error) {
	r, scripted := p.next(Question{"confirm", message, nil, def})
	if scripted {
		return r.Yes, r.Err
	}
	return p.Answer == "yes", nil
}

// Input asks for a line of text.
func (p *Prompter) Input(message string, def string) (string, error) {
	r, scripted := p.next(Question{"input", message, nil, def})
	if scripted {
		return r.Text, r.Err
	}
	return p.Answer, nil
}

// String describes the questions asked, for a test failure.
func (p *Prompter) String() string { return fmt.Sprintf("%q", p.Messages()) }
