package refpath

import (
	"math/rand/v2"
	"testing"
)

// cleanReference is Clean without the shortcut (alreadyClean).
func cleanReference(p string) (string, bool) {
	p = cleanSlow(p)
	if p == "." || p == "" {
		return "", true
	}
	c, safe := Clean(p) // p is clean now: the verdict alone
	return c, safe
}

// TestCleanShortcut: Clean with its one-pass shortcut gives what cleaning
// gives, for every string of up to five characters of an alphabet of the
// cases that matter (slashes, dots, spaces, backslashes, a tab, a colon,
// NUL, a multi-byte letter and a no-break space) and for longer random ones;
// and the shortcut is taken for ordinary paths.
func TestCleanShortcut(t *testing.T) {
	alphabet := []string{"a", "/", ".", " ", `\`, "\t", ":", "\x00", "é", "\u00a0"}
	var rec func(prefix string, n int)
	check := func(p string) {
		gotC, gotS := Clean(p)
		wantC, wantS := cleanReference(p)
		if gotC != wantC || gotS != wantS {
			t.Fatalf("Clean(%q) = %q, %v; cleaning gives %q, %v", p, gotC, gotS, wantC, wantS)
		}
	}
	rec = func(prefix string, n int) {
		check(prefix)
		if n == 0 {
			return
		}
		for _, a := range alphabet {
			rec(prefix+a, n-1)
		}
	}
	rec("", 5)
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		p := ""
		for range rnd.IntN(24) {
			p += alphabet[rnd.IntN(len(alphabet))]
		}
		check(p)
	}
	for _, p := range []string{"src/app/main.go", "docs/stories/1.1.story.md", "a", ".env", "a/.b/c..d", "/abs/x", "C:/x", "../x"} {
		if want := p != "../x"; alreadyClean(p) != want {
			t.Errorf("alreadyClean(%q) = %v, want %v", p, !want, want)
		}
	}
}
