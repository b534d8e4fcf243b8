package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
)

// TestStatusAllOfManyStories: `status --all` lists every story of a large
// repository. With 13,000 stories its table is over 1 MiB, which the
// override limit of a template refused ("template output exceeds the
// limit", exit 1); the built-in templates are held only to bounds no scan
// can reach (templates.limitsFor).
func TestStatusAllOfManyStories(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 13,000 files")
	}
	dir := t.TempDir()
	const n = 13_000
	for i := 0; i < n; i++ {
		folder := filepath.Join(dir, "docs", "stories", fmt.Sprintf("e%02d", i/1000))
		if i%1000 == 0 {
			if err := os.MkdirAll(folder, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		story := fmt.Sprintf("# Story %d.%d: A story with a title long enough for a real table row of the status list\n\n**Status:** Done\n", i/1000+1, i%1000+1)
		if err := os.WriteFile(filepath.Join(folder, fmt.Sprintf("%d.%d.story.md", i/1000+1, i%1000+1)), []byte(story), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"NO_COLOR": "1", "ORCHESTRATE_CACHE_DIR": "off", "HOME": dir}
	r := run(t, dir, env, false, "status", "--all")
	if r.code != cmdutil.ExitOK {
		t.Fatalf("status --all: exit %d\n%s", r.code, r.err.String())
	}
	if r.out.Len() <= 1<<20 {
		t.Fatalf("status --all printed %d bytes: the case proves nothing under 1 MiB", r.out.Len())
	}
	if got := strings.Count(r.out.String(), "story:"); got < n {
		t.Fatalf("status --all lists %d stories, want %d", got, n)
	}
	r = run(t, dir, env, false, "status", "--all", "--json")
	var doc struct {
		Candidates []json.RawMessage `json:"candidates"`
	}
	if r.code != cmdutil.ExitOK || json.Unmarshal(r.out.Bytes(), &doc) != nil || len(doc.Candidates) != n {
		t.Fatalf("status --all --json: exit %d, %d candidates, want %d\n%s", r.code, len(doc.Candidates), n, r.err.String())
	}
}
