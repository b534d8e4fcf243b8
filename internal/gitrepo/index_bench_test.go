package gitrepo

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// BenchmarkIndexFor reads the index of a benchmark repository (cmd/benchgen's
// shape-workflows, named by ORCHESTRATE_BENCH_INDEX_REPO; skipped without
// it) for every 25th tracked path, as status reads it once per run.
func BenchmarkIndexFor(b *testing.B) {
	dir := os.Getenv("ORCHESTRATE_BENCH_INDEX_REPO")
	if dir == "" {
		b.Skip("ORCHESTRATE_BENCH_INDEX_REPO not set")
	}
	out, err := exec.Command("git", "-C", dir, "ls-files").Output()
	must(b, err)
	var paths []string
	for i, p := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if i%25 == 0 {
			paths = append(paths, p)
		}
	}
	r := open(b, dir)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if idx := r.IndexFor(paths, len(paths)); idx == nil || len(idx.entries) == 0 {
			b.Fatal("index not read")
		}
	}
}
