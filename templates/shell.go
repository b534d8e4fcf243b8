package templates

import "github.com/orchestrate-dev/orchestrate/internal/textfmt"

// ShellWord is s as one POSIX shell word: as it is when it holds only
// characters no shell interprets, else single-quoted (textfmt.ShellWord).
func ShellWord(s string) string { return textfmt.ShellWord(s) }
