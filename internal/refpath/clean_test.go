package refpath

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// cleanReference is Clean without the shortcut (cleanScan): cleaning, then
// the verdict on the cleaned path.
func cleanReference(p string) (string, bool) {
	p = cleanSlow(p)
	if p == "." || p == "" {
		return "", true
	}
	unsafe := strings.ContainsAny(p, "\x00\r\n") || strings.HasPrefix(p, "/") || (len(p) > 1 && p[1] == ':') ||
		p == ".." || strings.HasPrefix(p, "../")
	return p, !unsafe
}

// TestCleanShortcut: Clean with its one-pass shortcut gives what cleaning
// gives, for every string of up to five characters of an alphabet of the
// cases that matter (slashes, dots, spaces, backslashes, a tab, a colon,
// NUL, a line feed, a multi-byte letter and a no-break space) and for longer random ones;
// and the shortcut is taken for ordinary paths.
func TestCleanShortcut(t *testing.T) {
	alphabet := []string{"a", "/", ".", " ", `\`, "\t", ":", "\x00", "\n", "é", "\u00a0"}
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

// FuzzClean: Clean gives what cleaning gives, shortcut or not.
func FuzzClean(f *testing.F) {
	for _, p := range []string{"src/app/main.go", "/abs/x", "C:/x", "../x", "a/./b", "a\x00b", "a/\r/b", " a/b ", `a\b`, "a/..b/.c"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		gotC, gotS := Clean(p)
		wantC, wantS := cleanReference(p)
		if gotC != wantC || gotS != wantS {
			t.Fatalf("Clean(%q) = %q, %v; cleaning gives %q, %v", p, gotC, gotS, wantC, wantS)
		}
	})
}

// BenchmarkClean is Clean on a clean path, the usual reference.
func BenchmarkClean(b *testing.B) {
	for b.Loop() {
		_, _ = Clean("src/pkg012/sub03/file02484.go")
	}
}
