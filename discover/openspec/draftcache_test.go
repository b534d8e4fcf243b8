package openspec

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// draftScan scans root's changes with cache c (nil: off) as cacheScan
// does, giving the draft table's hits and new entries; its clock an hour
// ahead unless racy (then the scan's own: what was just written is not
// stored).
func draftScan(t *testing.T, root string, c *diskcache.Cache, racy bool) (out string, hits, added int) {
	t.Helper()
	hits, added = -1, -1
	draftCacheKind.Hits = func(h, a int) { hits, added = h, a }
	draftCacheKind.Now = func() time.Time { return time.Now().Add(time.Hour) }
	if racy {
		// the files' own time: written just now, however long the test took
		newest := sourcetest.Newest(t, root)
		draftCacheKind.Now = func() time.Time { return newest }
	}
	t.Cleanup(func() { draftCacheKind.Hits, draftCacheKind.Now = nil, nil })
	out, _, _ = scanCounting(t, root, c)
	return out, hits, added
}

// draftChanges are cacheFiles' active changes with a tasks.md: each kept
// whole.
const draftChanges = 8

// TestDraftCacheStaleCases: with the draft cache off, filling it and
// reading it the candidates are the same, a warm scan taking every active
// change whole; after each change a change's draft depends on (its
// tasks.md edited with its size and time put back, .openspec.yaml swapped
// for a symlink, a delta spec added, a document added, a file its tasks
// name removed, the root's schema changed) the scan gives the answer of a
// scan without the cache.
func TestDraftCacheStaleCases(t *testing.T) {
	root := t.TempDir()
	sourcetest.Write(t, root, cacheFiles(t))
	cache := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	off, _, _ := draftScan(t, root, nil, false)
	first, hits, added := draftScan(t, root, cache, false)
	if hits != 0 || added != draftChanges {
		t.Errorf("first: %d hits, %d added", hits, added)
	}
	warm, hits, added := draftScan(t, root, cache, false)
	if hits != draftChanges || added != 0 {
		t.Errorf("warm: %d hits, %d added", hits, added)
	}
	if off != first || first != warm {
		t.Fatalf("off, first and warm differ:\n%s\n%s\n%s", off, first, warm)
	}
	p := func(rel string) string { return filepath.Join(root, "openspec", filepath.FromSlash(rel)) }
	write := func(t *testing.T, rel, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p(rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range []struct {
		name      string
		change    func(t *testing.T)
		hits, now int // the changes taken whole by this scan and the next
	}{
		{"tasks.md edited, size and times put back", func(t *testing.T) {
			f := p("changes/partial/tasks.md")
			fi, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			write(t, "changes/partial/tasks.md", "## 1. Setup\n\n- [x] 1.1 Init `src/app.ts`\n- [x] 1.2 Wire in `src/app.ts`\n")
			if err := os.Chtimes(f, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, draftChanges - 1, draftChanges},
		{"tasks.md swapped for a symlink", func(t *testing.T) {
			write(t, "changes/markers/elsewhere.md", "## 1. Go\n\n- [x] 1.1 a\n- [ ] 1.2 b\n")
			if err := os.Remove(p("changes/markers/tasks.md")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("elsewhere.md", p("changes/markers/tasks.md")); err != nil {
				t.Fatal(err)
			}
		}, draftChanges - 1, draftChanges - 1},
		{"in flight again", func(t *testing.T) {
			write(t, "changes/partial/tasks.md", "## 1. Setup\n\n- [x] 1.1 Init `src/app.ts`\n- [ ] 1.2 Wire in `src/app.ts` \n") // its .openspec.yaml read
		}, draftChanges - 2, draftChanges - 1},
		{".openspec.yaml edited, size and times put back", func(t *testing.T) {
			f := p("changes/partial/.openspec.yaml")
			fi, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			write(t, "changes/partial/.openspec.yaml", "schema: custom-flow\n") // the size of created: 2026-01-02
			if err := os.Chtimes(f, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, draftChanges - 2, draftChanges - 1},
		{"a delta spec added", func(t *testing.T) {
			write(t, "changes/partial/specs/billing/spec.md", "# Billing\n") // specs/ changes, not the change folder
		}, draftChanges - 2, draftChanges - 1},
		{"a document added", func(t *testing.T) {
			write(t, "changes/fresh/design.md", "# Design\n")
		}, draftChanges - 2, draftChanges - 1},
		{"a file the tasks name removed", func(t *testing.T) {
			if err := os.RemoveAll(filepath.Join(root, "src")); err != nil {
				t.Fatal(err)
			}
		}, draftChanges - 2, draftChanges - 1},
		{"the root's schema changed", func(t *testing.T) {
			write(t, "config.yaml", "schema: custom-flow\n")
		}, 0, draftChanges - 1},
	} {
		before := off
		step.change(t)
		off, _, _ = draftScan(t, root, nil, false)
		if off == before {
			t.Fatalf("%s: the change changed nothing (the step proves nothing)", step.name)
		}
		got, hits, _ := draftScan(t, root, cache, false)
		if got != off {
			t.Errorf("%s: the cache's answer differs from the cache off's:\n%s\n%s", step.name, got, off)
		}
		if hits != step.hits {
			t.Errorf("%s: %d changes taken whole, want %d", step.name, hits, step.hits)
		}
		if got, hits, _ := draftScan(t, root, cache, false); got != off || hits != step.now {
			t.Errorf("%s, warm again: %d changes whole (want %d), same answer %v", step.name, hits, step.now, got == off)
		}
	}
}

// TestDraftCacheRacy: files written within the racy window of the scan's
// clock are not stored; a table of another version is not read.
func TestDraftCacheRacy(t *testing.T) {
	root := t.TempDir()
	sourcetest.Write(t, root, cacheFiles(t))
	cache := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	off, _, _ := draftScan(t, root, nil, false)
	if got, _, added := draftScan(t, root, cache, true); got != off || added != 0 {
		t.Fatalf("racy: %d stored, same answer %v", added, got == off)
	}
	if _, _, added := draftScan(t, root, cache, false); added != draftChanges {
		t.Fatalf("settled: %d stored", added)
	}
	v := draftCacheKind.Version
	draftCacheKind.Version = v + 1
	got, hits, _ := draftScan(t, root, cache, false)
	draftCacheKind.Version = v
	if got != off || hits != 0 {
		t.Fatalf("another version: %d hits, same answer %v", hits, got == off)
	}
}

// fullChange is a settled change with every field the draft value keeps
// set.
func fullChange() (*change, int) {
	return &change{
		Created: "2026-01-02", Schema: "spec-driven",
		Findings: []workflow.Finding{{Check: "c", Severity: workflow.Info, Code: "x", Message: "m", Path: "p", Phase: "ph", Line: 3}},
		d: &draft{done: 1, total: 2, oldDone: 3, oldTotal: 4, cliDone: 5, cliTotal: 6, midDone: 7, midTotal: 8, fenced: 9,
			phases:   []workflow.Phase{{ID: "group-1", Name: "1. Setup", Agent: "dev", Status: "current", Outputs: []string{}, DependsOn: []string{"0"}}},
			position: workflow.Position{Kind: "step", Done: 1, Total: 2, At: "1.2", Last: "1.1", Index: 2, Name: "n", Phase: 1, Phases: 2},
			resume: workflow.ResumePoint{Item: "1.2", Title: "t", Section: "s", Labels: []string{"[Requirements: 1]"}, Files: []string{"src/a"}, Done: 1, Total: 2,
				Holes: []string{"1.0"}, Note: "n", FrameworkCommand: "c", FrameworkNext: "x", Differs: true, DiffersWhy: "w"},
			files:    []workflow.RefFile{{Path: "a", Phase: "b", Hash: "h", From: "f", Critical: true, Produced: true}},
			findings: []workflow.Finding{{Check: "c2", Severity: workflow.Warning, Code: "y", Message: "m2", Path: "p2", Phase: "q", Line: 4}},
		},
	}, 17
}

// TestDraftEncoding: a settled change with every field set round trips,
// as does one with none (nil and empty lists kept apart); a value cut
// short or with a byte more is a miss; and the draft has the fields the
// value knows (a field added must be added to the value: this test then
// fails).
func TestDraftEncoding(t *testing.T) {
	if n := reflect.TypeOf(draft{}).NumField(); n != 14 {
		t.Errorf("draft has %d fields, the value knows 14: keep the new one in encodeDraft (and bump draftCacheKind.Version)", n)
	}
	if n := reflect.TypeOf(change{}).NumField(); n != 20 {
		t.Errorf("change has %d fields, the draft cache knows 20: decide whether a draft depends on the new one", n)
	}
	full, ntasks := fullChange()
	for _, c := range []*change{full, {d: &draft{}}} {
		v := encodeDraft(nil, c, ntasks)
		var got change
		n, ok := decodeDraft(v, &got)
		if !ok || n != ntasks || !reflect.DeepEqual(&got, c) {
			t.Errorf("round trip: ok %v n %d\n got %+v %+v\nwant %+v %+v", ok, n, got, got.d, c, c.d)
		}
		for cut := 0; cut < len(v); cut++ {
			if _, ok := decodeDraft(v[:cut], new(change)); ok {
				t.Errorf("a value cut at %d decodes", cut)
			}
		}
		if _, ok := decodeDraft(append(v[:len(v):len(v)], 0), new(change)); ok {
			t.Error("a value with a byte more decodes")
		}
	}
}

// FuzzDecodeDraft: no value makes the decoder panic, and a value it takes
// encodes back to one that decodes the same.
func FuzzDecodeDraft(f *testing.F) {
	full, n := fullChange()
	f.Add(encodeDraft(nil, full, n))
	f.Add(encodeDraft(nil, &change{d: &draft{}}, 0))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, v []byte) {
		var c change
		n, ok := decodeDraft(v, &c)
		if !ok {
			return
		}
		var again change
		if n2, ok := decodeDraft(encodeDraft(nil, &c, n), &again); !ok || n2 != n || !reflect.DeepEqual(&again, &c) {
			t.Fatalf("re-encoded value differs: %+v / %+v", c, again)
		}
	})
}
