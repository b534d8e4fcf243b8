package openspec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchTasks is a tasks.md as the bench's specs shape writes them (groups
// of numbered tasks, some with a path, a sub-task or a requirement), and
// the fixtures' own.
func benchTasks(tb testing.TB) [][]byte {
	var b strings.Builder
	for g := 1; g <= 5; g++ {
		fmt.Fprintf(&b, "## %d. Tenant work\n\n", g)
		for k := 1; k <= 7; k++ {
			switch k % 3 {
			case 0:
				fmt.Fprintf(&b, "- [ ] %d.%d simplify the upload billing in `src/pkg%03d/sub%02d/file%05d.go`\n", g, k, g, k, g*100+k)
			case 1:
				fmt.Fprintf(&b, "- [x] %d.%d extend the tenant checkout\n  - _Requirements: reports %d_\n", g, k, k)
			default:
				fmt.Fprintf(&b, "- [ ] %d.%d harden the upload export\n  - [ ] %d.%d.1 Cover the edge case\n", g, k, g, k)
			}
		}
		b.WriteString("\n")
	}
	out := [][]byte{[]byte(b.String())}
	files, _ := filepath.Glob("testdata/*/tasks.md")
	more, _ := filepath.Glob("testdata/*/*/tasks.md")
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

func BenchmarkParseTasksIn(b *testing.B) {
	docs := benchTasks(b)
	n := 0
	for _, d := range docs {
		n += len(d)
	}
	exists := func(p string) bool { return strings.HasPrefix(p, "src/") }
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range docs {
			_ = ParseTasksIn(d, exists)
		}
	}
}
