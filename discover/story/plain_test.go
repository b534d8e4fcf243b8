package story

import (
	"strings"
	"testing"
)

// storyPlainHasPrefixFold agrees with the check it stands in front of,
// storyPlain then a case-insensitive prefix, whenever that check holds.
func TestStoryPlainHasPrefixFold(t *testing.T) {
	const prefix = "depends on "
	for _, line := range []string{
		"Depends on 2.3", "**Depends on:** 2.3", "depends  on x", "  Depends\ton x", "depends on", "depends on ",
		"dep**ends on x", "depends**on x", "`depends` on x", "DEPENDS ON X", "depends\u00a0on x", "ñ depends on x",
		"depends on **", "***depends on x", "___depends on x", "depends ** on x", "nothing here", "", "d", "depended on x",
	} {
		plain := storyPlain(line)
		want := len(plain) > len(prefix) && strings.EqualFold(plain[:len(prefix)], prefix)
		if got := storyPlainHasPrefixFold(line, prefix); want && !got {
			t.Errorf("%q: pre-check false, storyPlain %q starts with %q", line, plain, prefix)
		} else if got != want && isASCII(line) {
			t.Errorf("%q: pre-check %v, want %v (storyPlain %q)", line, got, want, plain)
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// FuzzStoryPlainHasPrefixFold: the pre-check never rejects a line whose
// storyPlain starts with the prefix.
func FuzzStoryPlainHasPrefixFold(f *testing.F) {
	for _, s := range []string{"**Depends on:** 2.3", "depends  on x", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		const prefix = "depends on "
		plain := storyPlain(line)
		want := len(plain) > len(prefix) && strings.EqualFold(plain[:len(prefix)], prefix)
		if want && !storyPlainHasPrefixFold(line, prefix) {
			t.Fatalf("%q: pre-check false, storyPlain %q", line, plain)
		}
	})
}

// storyFieldKey gives the general path's answer, storyHeadingName a
// heading's known name, and a known name in ASCII costs no allocation.
func TestStoryFieldKeyAndLower(t *testing.T) {
	for _, k := range []string{"**Status", "Quality Gate", "quality_gate", "Depends-On", "Estado", "Statut de la story", "Zustand", "Abhängigkeiten", "Dépendances", "Step 1", "a:b", "", "`Epic`", "EPIC", "Custom Key"} {
		gotK, gotOK := storyFieldKey(k)
		wantK, wantOK := storyFieldKeySlow(k)
		if isASCII(k) && wantK != "" && storyKnownNames[wantK] == nil {
			wantK = storyNoKey // an unknown ASCII key is not built
		}
		if gotK != wantK || gotOK != wantOK {
			t.Errorf("storyFieldKey(%q) = %q, %v; want %q, %v", k, gotK, gotOK, wantK, wantOK)
		}
	}
	for h, want := range map[string]string{"Acceptance Criteria (MVP Scope)": "acceptance criteria", "3. Scope": "scope", "**Dev Notes:**": "dev notes",
		"Tas\u212As": "tasks", "DEV AGENT RECORD": "dev agent record", "📋 Story": "story", "Story 1.2: Title": "", "Überblick": "", "": ""} {
		got := ""
		if n := storyHeadingName(h); n != nil {
			got = n.name
		}
		if got != want {
			t.Errorf("storyHeadingName(%q) = %q, want %q", h, got, want)
		}
	}
	if n := testing.AllocsPerRun(10, func() {
		_, _ = storyFieldKey("**Status")
		_ = storyHeadingName("Acceptance Criteria")
		_ = appendTableCells(make([]string, 0, MaxTableCells), "| a | b |", 3)
	}); n > 1 {
		t.Errorf("known names allocate %v times", n)
	}
}
