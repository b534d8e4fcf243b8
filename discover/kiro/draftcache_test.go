package kiro

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// draftCounts are a scan's hits and new entries of the draft and tasks
// tables.
type draftCounts struct{ drafts, draftsAdded, tasks int }

// draftScan scans root's Kiro specs with cache c (nil: off) as cacheScan
// does, the draft table's clock an hour ahead unless racy (then the scan's
// own: what was just written is not stored).
func draftScan(t *testing.T, root string, c *diskcache.Cache, racy bool) (string, draftCounts) {
	t.Helper()
	n := draftCounts{-1, -1, -1}
	draftCacheKind.Hits = func(h, a int) { n.drafts, n.draftsAdded = h, a }
	draftCacheKind.Now = func() time.Time { return time.Now().Add(time.Hour) }
	if racy {
		// the files' own time: written just now, however long the test took
		newest := sourcetest.Newest(t, root)
		draftCacheKind.Now = func() time.Time { return newest }
	}
	t.Cleanup(func() { draftCacheKind.Hits, draftCacheKind.Now = nil, nil })
	out, hits, _ := scanCounting(t, root, c)
	n.tasks = hits
	return out, n
}

// draftSpecs are cacheRepo's specs, each kept whole.
const draftSpecs = 4

// TestDraftCacheStaleCases: with the draft cache off, filling it and
// reading it the candidates are the same; a warm scan takes every spec
// whole (no tasks.md decoded); and after each change a spec's draft
// depends on (its tasks.md edited with its size and time put back, a
// document swapped for a symlink, a document added or removed, a file its
// tasks name removed, cc-sdd's command spelled otherwise) the scan gives
// the answer of a scan without the cache, the changed spec read again.
func TestDraftCacheStaleCases(t *testing.T) {
	root := cacheRepo(t)
	cache := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	off, _ := draftScan(t, root, nil, false)
	first, n := draftScan(t, root, cache, false)
	if n.drafts != 0 || n.draftsAdded != draftSpecs {
		t.Errorf("first: %+v", n)
	}
	warm, n := draftScan(t, root, cache, false)
	if n.drafts != draftSpecs || n.draftsAdded != 0 || n.tasks != 0 {
		t.Errorf("warm: %+v (want every spec whole, no tasks.md decoded)", n)
	}
	if off != first || first != warm {
		t.Fatalf("off, first and warm differ:\n%s\n%s\n%s", off, first, warm)
	}
	p := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	for _, step := range []struct {
		name   string
		change func(t *testing.T)
		hits   int // the specs still taken whole
		warm   int // the specs taken whole by the next scan
	}{
		{"tasks.md edited, size and times put back", func(t *testing.T) {
			f := p(".kiro/specs/parser/tasks.md")
			fi, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(f)
			i := indexBox(data, "- [ ]")
			if i < 0 {
				t.Fatal("no open box in the fixture")
			}
			copy(data[i:], "- [x]") // one more task done, the same size
			if err := os.WriteFile(f, data, fi.Mode()); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(f, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, draftSpecs - 1, draftSpecs},
		{"spec.json swapped for a symlink", func(t *testing.T) {
			f := p(".kiro/specs/syndication-service/spec.json")
			data, _ := os.ReadFile(f)
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			m["phase"] = "tasks-generated-elsewhere"
			other, _ := json.Marshal(m)
			if err := os.WriteFile(p("elsewhere.json"), other, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../../../elsewhere.json", f); err != nil {
				t.Fatal(err)
			}
		}, draftSpecs - 1, draftSpecs - 1},
		{"spec.json added", func(t *testing.T) {
			data, _ := os.ReadFile(filepath.Join("testdata", "ccsdd", "spec.json"))
			if err := os.WriteFile(p(".kiro/specs/billing-dashboard/spec.json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}, draftSpecs - 2, draftSpecs - 1}, // the symlinked spec is never kept
		{"tasks.meta.json removed", func(t *testing.T) {
			if err := os.Remove(p(".kiro/specs/speech-to-text/tasks.meta.json")); err != nil {
				t.Fatal(err)
			}
		}, draftSpecs - 2, draftSpecs - 1},
		{"a file the tasks name removed", func(t *testing.T) {
			if err := os.RemoveAll(p("src")); err != nil {
				t.Fatal(err)
			}
		}, draftSpecs - 2, draftSpecs - 1},
		{"cc-sdd's skill installed", func(t *testing.T) {
			if err := os.MkdirAll(p(".claude/skills/kiro-impl"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p(".claude/skills/kiro-impl/SKILL.md"), []byte("# kiro-impl\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, 0, draftSpecs - 1}, // another salt: every spec read again
	} {
		before := off
		step.change(t)
		off, _ = draftScan(t, root, nil, false)
		if off == before {
			t.Fatalf("%s: the change changed nothing (the step proves nothing)", step.name)
		}
		got, n := draftScan(t, root, cache, false)
		if got != off {
			t.Errorf("%s: the cache's answer differs from the cache off's:\n%s\n%s", step.name, got, off)
		}
		if n.drafts != step.hits {
			t.Errorf("%s: %d specs taken whole, want %d", step.name, n.drafts, step.hits)
		}
		if got, n := draftScan(t, root, cache, false); got != off || n.drafts != step.warm {
			t.Errorf("%s, warm again: %d specs whole (want %d), same answer %v", step.name, n.drafts, step.warm, got == off)
		}
	}
}

// indexBox is the index of the first box in data, -1 for none.
func indexBox(data []byte, box string) int {
	for i := 0; i+len(box) <= len(data); i++ {
		if string(data[i:i+len(box)]) == box {
			return i
		}
	}
	return -1
}

// TestDraftCacheRacy: files written within the racy window of the scan's
// clock are not stored (a change in the same tick would not move their
// times); a damaged or foreign value is a miss with the same answer.
func TestDraftCacheRacy(t *testing.T) {
	root := cacheRepo(t)
	cache := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	off, _ := draftScan(t, root, nil, false)
	if got, n := draftScan(t, root, cache, true); got != off || n.draftsAdded != 0 {
		t.Fatalf("racy: %d stored, same answer %v", n.draftsAdded, got == off)
	}
	if _, n := draftScan(t, root, cache, true); n.drafts != 0 {
		t.Fatalf("racy: %d hits", n.drafts)
	}
	if _, n := draftScan(t, root, cache, false); n.draftsAdded != draftSpecs {
		t.Fatalf("settled: %d stored", n.draftsAdded)
	}
	v := draftCacheKind.Version
	draftCacheKind.Version = v + 1
	got, n := draftScan(t, root, cache, false)
	draftCacheKind.Version = v
	if got != off || n.drafts != 0 {
		t.Fatalf("another version: %d hits, same answer %v", n.drafts, got == off)
	}
}

// fullSpec is a settled spec with every field the draft value keeps set.
func fullSpec() (*spec, int) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 8_000_000, time.UTC)
	s := &spec{
		Counts:   Counts{Done: 1, Total: 2, OptionalDone: 3, OptionalTotal: 4, BoxesDone: 5, Boxes: 6},
		marks:    marks{inProgress: []string{"1.1"}, queued: []string{}, leafMarked: true},
		Config:   kiroConfig{Present: true, GenerationMode: "g", SpecID: "i", WorkflowType: "w", SpecType: "bugfix"},
		Meta:     meta{LastTask: "1.1 t", LastID: "1.1", LastAt: at, PBT: "passed", Bad: true},
		SpecJSON: specJSON{Present: true, Phase: "tasks-generated", TasksApproved: true, Known: true},
		Findings: []workflow.Finding{{Check: "c", Severity: workflow.Warning, Code: "x", Message: "m", Path: "p", Phase: "ph", Line: 7}},
		draft: &workflow.Candidate{
			Findings: []workflow.Finding{{Check: "c2", Severity: workflow.Info, Code: "y", Message: "m2", Path: "p2", Phase: "ph2", Line: 9}},
			Phases:   []workflow.Phase{{ID: "1", Name: "n", Agent: "a", Status: "current", Outputs: []string{"o"}, DependsOn: []string{}}},
			Position: workflow.Position{Kind: "step", Done: 1, Total: 2, At: "1.1", Last: "l", Index: 3, Name: "nm", Phase: 4, Phases: 5},
			Files:    []workflow.RefFile{{Path: "src/a.go", Phase: "1", Hash: "h", From: "f", Critical: true, Produced: true}},
			Resume: &workflow.ResumePoint{Item: "1.1", Title: "t", Section: "s", Labels: []string{"(P)"}, Files: []string{"src/a.go"}, Done: 1, Total: 2,
				Holes: []string{"0.1"}, Note: "n", FrameworkCommand: "/kiro:spec-impl", FrameworkNext: "fn", Differs: true, DiffersWhy: "w"},
		},
	}
	return s, 42
}

// TestDraftEncoding: a settled spec with every field set round trips
// (nil and empty lists kept apart), as does one with none; a value cut
// short, with a byte more, or damaged in its counts is a miss; and the
// types the value keeps have the fields it knows (a field added to one
// must be added to the value: this test then fails).
func TestDraftEncoding(t *testing.T) {
	for name, n := range map[reflect.Type]int{
		reflect.TypeOf(workflow.Finding{}): 7, reflect.TypeOf(workflow.Phase{}): 6, reflect.TypeOf(workflow.Position{}): 9,
		reflect.TypeOf(workflow.RefFile{}): 6, reflect.TypeOf(workflow.ResumePoint{}): 13, reflect.TypeOf(Counts{}): 6,
		reflect.TypeOf(marks{}): 3, reflect.TypeOf(kiroConfig{}): 5, reflect.TypeOf(meta{}): 5, reflect.TypeOf(specJSON{}): 4,
		reflect.TypeOf(spec{}): 18,
	} {
		if name.NumField() != n {
			t.Errorf("%s has %d fields, the draft value knows %d: keep the new one in encodeDraft (and bump draftCacheKind.Version)", name, name.NumField(), n)
		}
	}
	full, ntasks := fullSpec()
	empty := &spec{draft: &workflow.Candidate{Resume: &workflow.ResumePoint{}}}
	for _, s := range []*spec{full, empty} {
		v := encodeDraft(nil, s, ntasks)
		var got spec
		n, ok := decodeDraft(v, &got)
		if !ok || n != ntasks || !reflect.DeepEqual(&got, s) {
			t.Errorf("round trip: ok %v n %d\n got %+v %+v\nwant %+v %+v", ok, n, got, got.draft, s, s.draft)
		}
		for cut := 0; cut < len(v); cut++ {
			if _, ok := decodeDraft(v[:cut], new(spec)); ok {
				t.Errorf("a value cut at %d decodes", cut)
			}
		}
		if _, ok := decodeDraft(append(v[:len(v):len(v)], 0), new(spec)); ok {
			t.Error("a value with a byte more decodes")
		}
	}
	if _, ok := decodeDraft([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, new(spec)); ok {
		t.Error("a huge count decodes")
	}
}

// FuzzDecodeDraft: no value makes the decoder panic or allocate past its
// bounds, and a value it takes encodes back to one that decodes the same.
func FuzzDecodeDraft(f *testing.F) {
	full, n := fullSpec()
	f.Add(encodeDraft(nil, full, n))
	f.Add(encodeDraft(nil, &spec{draft: &workflow.Candidate{Resume: &workflow.ResumePoint{}}}, 0))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, v []byte) {
		var s spec
		n, ok := decodeDraft(v, &s)
		if !ok {
			return
		}
		var again spec
		if n2, ok := decodeDraft(encodeDraft(nil, &s, n), &again); !ok || n2 != n || !reflect.DeepEqual(&again, &s) {
			t.Fatalf("re-encoded value differs: %+v / %+v", s, again)
		}
	})
}

// TestDraftHitDrawsBudget: a spec taken whole draws from the scan's budget
// what the tasks and documents caches' hits draw; past the budget it is
// read the usual way, which reports it.
func TestDraftHitDrawsBudget(t *testing.T) {
	root := cacheRepo(t)
	cache := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	draftScan(t, root, cache, false)
	draftCacheKind.Now = func() time.Time { return time.Now().Add(time.Hour) }
	defer func() { draftCacheKind.Now = nil }()
	spent := func(c *diskcache.Cache, size int) []workflow.Finding {
		r, _ := source.NewRepo(root, config.Default())
		r.Cache = c
		r.BeginBudget(size)
		_, fs := KiroSource.Scan(r)
		if f, ok := r.EndBudget(); ok {
			fs = append(fs, f)
		}
		return fs
	}
	// a budget every spec fits in: no finding either way
	if fs := spent(cache, 1<<20); len(fs) != 0 {
		t.Fatalf("a large budget: %v", fs)
	}
	// none: the first document drawn is refused, with or without the cache
	if got, want := spent(cache, 1), spent(nil, 1); len(got) == 0 || len(want) == 0 {
		t.Fatalf("an empty budget: no finding (cache %v, off %v)", got, want)
	}
}
