package openspec

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// diffExists answers for a repository in which some paths exist.
func diffExists(p string) bool { return len(p)%3 != 0 || strings.HasPrefix(p, "src/") }

// diffInputs are the differential tests' documents: the fixtures, the
// bench's document, the fuzz corpus, and lines against the rewritten
// readers.
func diffInputs(t testing.TB) [][]byte {
	out := benchTasks(t)
	for _, s := range []string{
		"# h\n- [ ] 1.1 a\n## Tasks ##\n- [ ] 1.2 b\n###### six\n- [x] c\n####### seven\n- [ ] d\n    # four\n\t## tab\n- [ ] e\n## **Bold** `code` ✅\n- [ ] f\n",
		"## 1. G\n- [ ] 1.1 a (Req: login)\n  - _Requirements: 1.1, 2.3_\n  - **Validates: Requirements 2.1**\n  - requirementſ: x\n  - Spec：y )\n  - reqs:   \n  - __Files__: `src/a.go`, src/b.go\n  - Paths: src/c.go\n",
		"- [ ] T-3 x req: a] \n- [ ] **FB-1**: y spec: b\n```\n- [ ] fenced req: z\n",
	} {
		out = append(out, []byte(s))
	}
	files, _ := filepath.Glob("testdata/fuzz/*/*")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, rest, ok := strings.Cut(string(b), "\n"); ok {
			out = append(out, []byte(rest))
		}
	}
	return out
}

// TestParseTasksMatchesOld: the parser gives exactly what the parser
// before its rewrite gave (oldparse_test.go), with and without details.
func TestParseTasksMatchesOld(t *testing.T) {
	for i, d := range diffInputs(t) {
		for _, exists := range []func(string) bool{nil, diffExists} {
			for _, detail := range []bool{true, false} {
				if got, want := parseTasks(d, exists, detail), oldParseTasks(d, exists, detail); !reflect.DeepEqual(got, want) {
					t.Errorf("input %d (detail %v):\n%s\nnew %+v\nold %+v", i, detail, d, got, want)
				}
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
		if got, want := parseTasks(data, diffExists, true), oldParseTasks(data, diffExists, true); !reflect.DeepEqual(got, want) {
			t.Fatalf("new %+v\nold %+v", got, want)
		}
	})
}
