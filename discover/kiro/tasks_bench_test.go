package kiro

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchTasks is a tasks.md as the bench's specs shape writes them (a
// hundred-odd tasks with paths and requirements), and the fixtures' own.
func benchTasks(tb testing.TB) [][]byte {
	var b strings.Builder
	b.WriteString("# Implementation Plan\n\n")
	for g := 1; g <= 6; g++ {
		fmt.Fprintf(&b, "- [ ] %d. Catalog the audit-%d service\n", g, g)
		for k := 1; k <= 4; k++ {
			fmt.Fprintf(&b, "- [x] %d.%d Implement file%d.go in `src/pkg%d/sub%02d/file%d.go`\n", g, k, g*100+k, g, k, g*100+k)
			b.WriteString("  - Cover the error paths and the empty case\n")
			fmt.Fprintf(&b, "  - _Requirements: 1.%d, %d.1_\n", k%2+1, g)
		}
		b.WriteString("\n")
	}
	out := [][]byte{[]byte(b.String())}
	files, _ := filepath.Glob("testdata/*/tasks.md")
	for _, f := range files {
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
