package source

import (
	"regexp"
	"testing"
)

var headingCases = []string{
	"# h", "## Tasks ##", "###### six", "####### seven", "    # four blanks", "   # three", "#no blank", "#\t\ttab #  ",
	"# only ## # ", "##", "# ", "#\r", "\f# ff", "\t# tab", "# a # #", "# #hash", "## ##", "# x#", "#  \u00a0x \u00a0#", "", "#",
	"# a\nb", "\n# a", "#\n",
}

// TestHeadingMatchesExpression: Heading answers as the regular expression
// it replaced.
func TestHeadingMatchesExpression(t *testing.T) {
	for _, s := range headingCases {
		checkHeading(t, s)
	}
}

// FuzzHeading: on any line Heading answers as the regular expression.
func FuzzHeading(f *testing.F) {
	for _, s := range headingCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkHeading(t, s) })
}

var headingRef = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)

func checkHeading(t *testing.T, s string) {
	t.Helper()
	level, text, ok := Heading(s)
	m := headingRef.FindStringSubmatch(s)
	if ok != (m != nil) || ok && (text != m[2] || level != len(m[1])) {
		t.Fatalf("Heading(%q) = %d %q %v, the expression gives %q", s, level, text, ok, m)
	}
}
