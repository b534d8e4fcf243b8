package kiro

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// diffExists answers for a repository in which some paths exist: the
// parse's answers depend on it, so both parsers get the same one.
func diffExists(p string) bool { return len(p)%3 != 0 || strings.HasPrefix(p, "src/") }

// diffInputs are the differential tests' documents: every tasks.md
// fixture, the bench's document, the fuzz seeds and corpus, and lines
// written against each rewritten reader.
func diffInputs(t testing.TB) [][]byte {
	out := benchTasks(t)
	for _, s := range []string{
		"# h\n## Tasks ##\n###### six\n####### seven\n    # four blanks\n   # three\n#no blank\n#\t\ttab #  \n# only ## # \n##\n# \n#\r\n\f# ff\n",
		"- [ ] 1. a\n  - _Requirements: 1.1, 2.3_\n  - **Requirements**: 3\n  - Requirements：4.1、4.2\n  - _Depends on: 1_\n  - _Blocked: why_\n  - BLOCKED: x\n  - Bloc\u212aed: kelvin\n  - blockedddddddddddddddddddd: long\n",
		"- [ ] 2 t\n  - File: `src/a.go`, src/b.go\n  - **PATHS**: src/c.go\n  - ********file: src/d.go\n  - Fİle: src/e.go\n  - fil\n  - pathological src/f.go\n  - _Boundary: x_ src/g.go\n",
		"- [x] 1.a.2 x\n- [ ] 1..2 y\n- [ ] 1.2. z\n- [ ] .1 w\n- [ ] 12.7* v (P)\n- [ ] **3.1** u `src/x.go` _Requirements: 1_\n\t- [ ] 3.1.1 deep\n",
		"- [ ] 1 a：b\n  - x：y:z\n  - ：\n  - :\n  - a\u00a0: b\n",
	} {
		out = append(out, []byte(s))
	}
	for _, dir := range []string{"testdata/fuzz/FuzzParseKiro", "testdata/fuzz/FuzzParseTasksDifferential"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			// a corpus file: "go test fuzz v1" then []byte("…")
			if _, rest, ok := strings.Cut(string(b), "\n"); ok {
				out = append(out, []byte(rest))
			}
		}
	}
	return out
}

// TestParseTasksMatchesOld: the parser gives exactly what the parser
// before its rewrite gave (oldparse_test.go), on every input here.
func TestParseTasksMatchesOld(t *testing.T) {
	for i, d := range diffInputs(t) {
		for _, exists := range []func(string) bool{nil, diffExists} {
			if got, want := ParseTasksIn(d, exists), oldParseTasksIn(d, exists); !reflect.DeepEqual(got, want) {
				t.Errorf("input %d:\n%s\nnew %+v\nold %+v", i, d, got, want)
			}
		}
	}
}

// FuzzParseTasksDifferential: on any document the parser gives what the
// parser before its rewrite gave.
func FuzzParseTasksDifferential(f *testing.F) {
	for _, d := range diffInputs(f) {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := ParseTasksIn(data, diffExists), oldParseTasksIn(data, diffExists); !reflect.DeepEqual(got, want) {
			t.Fatalf("new %+v\nold %+v", got, want)
		}
	})
}

// FuzzLineReaders: each hand-written reader answers as the regular
// expression or library call it replaced, on any valid UTF-8 line.
func FuzzLineReaders(f *testing.F) {
	headingRef := regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	refIDRef := regexp.MustCompile(`^\d+(?:\.\d+)*$`)
	for _, s := range []string{"## a ##", "   ###### b # #  ", "#\f\r", "1.2.3", "1.", ".1", "1..2", "", "Requirements：1", "K", "BLOC\u212aED", "********file", "Fİle", "path: x", "a (P) b (P)", " \t(P)\f ", "(P", "x(P)(P)", "a/b `c/d` e", "`a` b/`", "``/`x`", "`/`/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || strings.ContainsRune(s, '\n') {
			return
		}
		text, ok := heading(strings.TrimLeft(s, " \t"), s)
		m := headingRef.FindStringSubmatch(s)
		if strings.HasPrefix(strings.TrimLeft(s, " \t"), "#") && (ok != (m != nil) || ok && text != m[2]) {
			t.Fatalf("heading(%q) = %q %v, the expression gives %q", s, text, ok, m)
		}
		if isRefID(s) != refIDRef.MatchString(s) {
			t.Fatalf("isRefID(%q) = %v", s, isRefID(s))
		}
		if got, want := colonIndex(s), strings.IndexAny(s, ":："); got != want {
			t.Fatalf("colonIndex(%q) = %d, want %d", s, got, want)
		}
		for _, set := range []string{" \t", "_* \t", "-*+ \t", "_*", "(\"'[", ".,;:)\"']"} {
			if trimLeftSet(s, set) != strings.TrimLeft(s, set) || trimRightSet(s, set) != strings.TrimRight(s, set) {
				t.Fatalf("trim %q of %q", set, s)
			}
		}
		if got, want := annotationKind(s), kindOf(strings.ToLower(s)); got != want {
			t.Fatalf("annotationKind(%q) = %q, want %q", s, got, want)
		}
		low := strings.TrimLeft(s[:clipCut(s, 8)], "*")
		oldLow := strings.ToLower(strings.TrimLeft(clip(s, 8), "*"))
		for _, w := range []string{"file", "path"} {
			if hasFoldPrefix(low, w) != strings.HasPrefix(oldLow, w) {
				t.Fatalf("%q starts with %s: %v", s, w, hasFoldPrefix(low, w))
			}
		}
		if got, want := parallelLoc(s), oldParallelLoc(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("parallelLoc(%q) = %v, want %v", s, got, want)
		}
		spans, slash := backtickSpans(s)
		if oldSpans, plain := backticks(s); !reflect.DeepEqual(spans, oldSpans) || slash != strings.Contains(plain, "/") {
			t.Fatalf("backtickSpans(%q) = %q %v, backticks gives %q %q", s, spans, slash, oldSpans, plain)
		}
		tok, rest := firstToken(s)
		if oldTok, oldRest := oldFirstToken(s); tok != oldTok || rest != oldRest {
			t.Fatalf("firstToken(%q) = %q %q, want %q %q", s, tok, rest, oldTok, oldRest)
		}
	})
}
