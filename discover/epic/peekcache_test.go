package epic

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// A warm scan skips the workflow-state files it found without an epic key
// by their stat data alone, and finds every epic a cache-off scan finds:
// after an edit that adds the key, through a link (read as before, never
// from the table), and with a file that only may hold the key.
func TestPeekCacheSameAsOff(t *testing.T) {
	root := t.TempDir()
	write := func(p, text string) {
		t.Helper()
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".orchestrate/workflows/a.yaml", "execution_id: a\nstory: \"1.1\"\n")
	write(".orchestrate/workflows/b.yaml", "execution_id: b\nstory: \"1.2\"\n")
	write(".orchestrate/workflows/c.yaml", "epic_state:\n  epic_id: \"3\"\n  status: in_progress\n")
	write(".orchestrate/workflows/d.yaml", "execution_id: d\nnote: \"wow!\"\n") // may hold it: always read
	write(".aiox/x-state.yaml", "epic_state: {epic_id: \"4\", status: active}\n")
	if err := os.Symlink("c.yaml", filepath.Join(root, ".orchestrate/workflows/l.yaml")); err != nil {
		t.Fatal(err)
	}
	var hits, added int
	old := peekCacheKind
	peekCacheKind.Now = func() time.Time { return time.Now().Add(time.Hour) } // the files are not racy
	peekCacheKind.Hits = func(h, a int) { hits, added = h, a }
	t.Cleanup(func() { peekCacheKind = old })
	cacheDir := filepath.Join(t.TempDir(), "cache")
	scan := func(cached bool) []workflow.Candidate {
		t.Helper()
		r, _ := source.NewRepo(root, config.Default())
		if cached {
			r.Cache = diskcache.New(cacheDir)
		}
		cs, _ := EpicSource.Scan(r)
		return cs
	}
	ids := func(cs []workflow.Candidate) (out []string) {
		for _, c := range cs {
			out = append(out, c.Source.Path)
		}
		return out
	}
	off := scan(false)
	if got := ids(off); !reflect.DeepEqual(got, []string{".aiox/x-state.yaml", ".orchestrate/workflows/c.yaml", ".orchestrate/workflows/l.yaml"}) {
		t.Fatalf("cache off found %q", got)
	}
	if cold := scan(true); !reflect.DeepEqual(cold, off) || added != 2 {
		t.Fatalf("cold: %q, %d added (a and b)", ids(cold), added)
	}
	if warm := scan(true); !reflect.DeepEqual(warm, off) || hits != 2 || added != 0 {
		t.Fatalf("warm: %q, %d hits, %d added", ids(warm), hits, added)
	}
	// b becomes an epic state: its stat data changes, it is read again
	write(".orchestrate/workflows/b.yaml", "epic_state:\n  epic_id: \"5\"\n  status: in_progress\n")
	off = scan(false)
	if got := ids(off); len(got) != 4 {
		t.Fatalf("cache off after the edit found %q", got)
	}
	if warm := scan(true); !reflect.DeepEqual(warm, off) || hits != 1 {
		t.Fatalf("warm after the edit: %q, %d hits (a only)", ids(warm), hits)
	}
}
