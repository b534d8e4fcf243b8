package handoff

import "github.com/orchestrate-dev/orchestrate/handoff/command"

// shellQuote is how a value is shown in a rendered command's Display.
func shellQuote(s string) string { return command.Quote(s) }
