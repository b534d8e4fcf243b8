package openspec

import (
	"reflect"
	"strings"
	"testing"
)

// refMatchCases are texts against each branch of refMatch.
var refMatchCases = []string{
	"_Requirements: 1.1, 2.3_", "(Req: login)", "**Validates: Requirements 2.1**", "Requirements: reports 28",
	"requirement:x", "REQS : a ] ", "reqs:   ", "req:", "spec：  b  )", "[spec: (x)]", "xspec: a", " spec: a", "\tspec:\ta\t",
	"requirementss: a", "requirementſ: a", "ſpec: a", "Spec: a", "requirement s: a", "validates:)", "validates: )) ", "spec:\u00a0",
	"spec: é", "spec: a\nb", "a\nspec: b", "spec spec: c", "(spec (req: a", "req: \u00a0 ) ", "spec: ]", "spec:]x", "",
}

// TestRefMatchMatchesExpression: refMatch answers as the regular
// expression it replaced.
func TestRefMatchMatchesExpression(t *testing.T) {
	for _, s := range refMatchCases {
		checkRefMatch(t, s)
	}
}

// FuzzRefMatch: on any valid text refMatch answers as refRe.
func FuzzRefMatch(f *testing.F) {
	for _, s := range refMatchCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkRefMatch(t, s) })
}

func checkRefMatch(t *testing.T, s string) {
	t.Helper()
	got, ok := refMatch(s)
	m := refRe().FindStringSubmatch(s)
	if ok != (m != nil) || ok && got != m[1] {
		t.Fatalf("refMatch(%q) = %q %v, the expression gives %q", s, got, ok, m)
	}
}

// FuzzBacktickSpans: backtickSpans gives backticks' spans, and whether
// the text outside them holds a "/".
func FuzzBacktickSpans(f *testing.F) {
	for _, s := range []string{"a/b `c/d` e", "`a` b/`", "``/`x`", "`/`/", "no ticks/", "``", "`` `a/b` c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spans, slash := backtickSpans(s)
		old, plain := backticks(s)
		if !reflect.DeepEqual(spans, old) || slash != strings.Contains(plain, "/") {
			t.Fatalf("backtickSpans(%q) = %q %v, backticks gives %q %q", s, spans, slash, old, plain)
		}
	})
}
