package discover

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// A 50 MB state file or story (sparse, so the test is cheap) is refused
// before it is read: a too-large parse finding, never a hang or a crash.
func TestHugeFilesAreRefused(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{".aiox/epic-BIG-state.yaml", "qa/loop-status.json", ".orchestrate/workflows/big.yaml", "docs/stories/9.9.big.md"} {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(full)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(50 << 20); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	r, _ := source.NewRepo(root, config.Default())
	res := Scan(r, Options{})
	seen := map[string]bool{}
	for _, c := range res.Candidates {
		for _, f := range c.Findings {
			if f.Check == workflow.CheckParse && f.Code == "too-large" {
				seen[f.Path] = true
			}
		}
	}
	for _, p := range []string{".aiox/epic-BIG-state.yaml", "qa/loop-status.json", ".orchestrate/workflows/big.yaml", "docs/stories/9.9.big.md"} {
		if !seen[p] {
			t.Errorf("%s: no too-large finding (candidates: %+v)", p, res.Candidates)
		}
	}
}
