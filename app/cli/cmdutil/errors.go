package cmdutil

import (
	"errors"
	"strings"

	"github.com/orchestrate-dev/orchestrate/templates"
)

// UnknownCommand turns cobra's "unknown command" error (a misspelt command,
// or an argument to a command that takes none) into a usage error on one
// line, its suggestions kept.
func UnknownCommand(err error) error {
	msg := err.Error()
	if !strings.HasPrefix(msg, "unknown command ") {
		return err
	}
	lines := strings.Split(msg, "\n")
	var sugg []string
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "\t") {
			sugg = append(sugg, strings.TrimSpace(l))
		}
	}
	first := lines[0]
	if len(sugg) > 0 {
		first += "; did you mean " + strings.Join(sugg, " or ") + "?"
	}
	return CmdLineError(errors.New(first))
}

// SafeErr is an error's message as it may be printed: redacted, with its
// control characters escaped (templates.Safe). A message made of lines
// (messageLines, e.g. a refused saved plan) keeps its line breaks: each
// line is escaped on its own.
func SafeErr(err error) string {
	var ml messageLines
	if errors.As(err, &ml) {
		lines := ml.MessageLines()
		if strings.Join(lines, "\n") == err.Error() { // nothing wraps it with more words
			out := make([]string, len(lines))
			for i, l := range lines {
				out[i] = templates.Safe(l)
			}
			return strings.Join(out, "\n")
		}
	}
	return templates.Safe(err.Error())
}

// messageLines is an error whose message spans lines, given one by one.
type messageLines interface {
	error
	MessageLines() []string
}

// LinesError is an error whose message spans lines (see SafeErr).
type LinesError []string

// Error is the lines, joined.
func (e LinesError) Error() string { return strings.Join(e, "\n") }

// MessageLines implements messageLines.
func (e LinesError) MessageLines() []string { return e }

// PlainFlagError rewrites the parser's words in a bad flag value's error
// ("strconv.ParseInt: parsing \"abc\": invalid syntax") as plain language.
func PlainFlagError(err error) error {
	msg := err.Error()
	i := strings.Index(msg, "strconv.Parse")
	if i < 0 {
		return err
	}
	what := "not a number"
	switch {
	case strings.Contains(msg[i:], "value out of range"):
		what = "out of range"
	case strings.HasPrefix(msg[i:], "strconv.ParseBool"):
		what = "not true or false"
	case strings.HasPrefix(msg[i:], "strconv.ParseInt"), strings.HasPrefix(msg[i:], "strconv.ParseUint"):
		what = "not a whole number"
	}
	return errors.New(msg[:i] + what)
}
