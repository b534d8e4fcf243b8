package wfstate

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// builtOf builds the state text at name and encodes its candidate.
func builtOf(t testing.TB, name, text string) (workflow.Candidate, []byte) {
	t.Helper()
	m, err := tolerant.DecodeYAMLMap([]byte(text))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := Build(name, m, nil)
	return c, encodeBuilt(&c, tolerant.CountEntries(m, maxStateEntries))
}

// Every layout's candidate round-trips exactly through the codec (a field
// Build fills that the codec does not hold would make encodeBuilt refuse
// it, and this test fail: the cache would silently keep documents only).
func TestBuiltCandidateRoundTrips(t *testing.T) {
	for name, text := range map[string]string{
		"ours.yaml": wfOurs, "aios.yaml": wfAIOS, "aiox.yaml": wfAIOX, "unknown.yaml": wfUnknownWorkflow,
		"EPIC-1-state.yaml": wfCheckpointPaused, "EPIC-2-state.yaml": wfCheckpointAborted,
		".session-state.yaml": wfSession,
		"offset.yaml":         "execution_id: off-1\nupdated_at: 2026-01-02T03:04:05+02:00\nstatus: paused\n",
		"scalars.yaml":        stateCacheFiles()[".orchestrate/workflows/scalars.yaml"],
	} {
		c, v := builtOf(t, name, text)
		if v == nil {
			t.Errorf("%s: the candidate is not kept", name)
			continue
		}
		back, _, ok := decodeBuilt(v)
		if !ok || !reflect.DeepEqual(back, c) {
			t.Errorf("%s: decoded %+v\nwant %+v", name, back, c)
		}
	}
}

// What the codec cannot hold exactly is refused, never kept changed: a
// time in another zone than UTC, a field Build never sets, a context value
// the value codec does not know.
func TestBuiltCandidateRefused(t *testing.T) {
	c, v := builtOf(t, "ours.yaml", wfOurs)
	if v == nil {
		t.Fatal("ours is not kept")
	}
	for name, change := range map[string]func(c *workflow.Candidate){
		"zone":      func(c *workflow.Candidate) { c.UpdatedAt = c.UpdatedAt.In(time.FixedZone("X", 3600)) },
		"monotonic": func(c *workflow.Candidate) { c.StartedAt = time.Now() },
		"backup":    func(c *workflow.Candidate) { c.BackupPath = "x.bak" },
		"evidence":  func(c *workflow.Candidate) { c.Evidence = []workflow.SourceRef{{Path: "x"}} },
		"qa":        func(c *workflow.Candidate) { c.QA = &workflow.QALoop{} },
		"context":   func(c *workflow.Candidate) { c.Context = map[string]any{"f": func() {}} },
		"framework": func(c *workflow.Candidate) { c.Framework = "x" },
	} {
		d := c
		change(&d)
		if encodeBuilt(&d, 1) != nil {
			t.Errorf("%s: kept", name)
		}
	}
}

// A value that is cut short, has bytes after it or another tag does not
// decode (and never panics).
func TestDecodeBuiltDamaged(t *testing.T) {
	_, v := builtOf(t, "ours.yaml", wfOurs)
	for i := range len(v) {
		if _, _, ok := decodeBuilt(v[:i:i]); ok {
			t.Fatalf("cut at %d of %d: decoded", i, len(v))
		}
	}
	if _, _, ok := decodeBuilt(append(v[:len(v):len(v)], 0)); ok {
		t.Fatal("a trailing byte: decoded")
	}
	w := append([]byte{tagDoc}, v[1:]...)
	if _, _, ok := decodeBuilt(w); ok {
		t.Fatal("another tag: decoded")
	}
}

// A state whose workflow definition changed is built again with the new
// one: the definitions salt the keys, so the entry kept with the old is a
// miss, and the warm scan gives the cache-off candidates.
func TestStateCacheDefinitionChanged(t *testing.T) {
	root := t.TempDir()
	state := "execution_id: cf-1\nworkflow: custom-flow\ncurrent_phase: 2\nstatus: interrupted\nupdated_at: 2025-06-01T10:00:00Z\n"
	sourcetest.Write(t, root, map[string]string{".orchestrate/workflows/cf.yaml": state})
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	stateCacheScan(t, root, c)
	if _, hits, _ := stateCacheScan(t, root, c); hits != 1 {
		t.Fatalf("warm: %d hits, want 1", hits)
	}
	sourcetest.Write(t, root, map[string]string{"workflows/custom-flow.yaml": "workflow:\n  id: custom-flow\n  name: Custom\nphases:\n  - id: plan\n    agent: pm\n  - id: build\n    agent: dev\n  - id: check\n    agent: qa\n"})
	off, _, _ := stateCacheScan(t, root, nil)
	got, hits, added := stateCacheScan(t, root, c)
	if hits != 0 || added != 1 || !reflect.DeepEqual(got, off) {
		t.Fatalf("a new definition: %d hits, %d added (want 0, 1); same candidates %v\n%+v\n%+v", hits, added, reflect.DeepEqual(got, off), got, off)
	}
	if len(off) != 1 || off[0].Position.Total != 3 || off[0].Agent != "dev" {
		t.Fatalf("the definition is not used (the test proves nothing): %+v", off)
	}
	if got, hits, _ := stateCacheScan(t, root, c); hits != 1 || !reflect.DeepEqual(got, off) {
		t.Fatalf("warm with the definition: %d hits, same %v", hits, reflect.DeepEqual(got, off))
	}
}

// The built candidate's decoder takes any bytes without a panic, and what
// it accepts encodes back to the same candidate.
func FuzzDecodeBuilt(f *testing.F) {
	for name, text := range map[string]string{"ours.yaml": wfOurs, "aios.yaml": wfAIOS, ".session-state.yaml": wfSession} {
		if _, v := builtOf(f, name, text); v != nil {
			f.Add(v)
		}
	}
	f.Add([]byte{tagBuilt})
	f.Fuzz(func(t *testing.T, v []byte) {
		c, n, ok := decodeBuilt(v)
		if !ok {
			return
		}
		// what it accepts encodes, and that encoding decodes to the same
		// candidate (printed when not DeepEqual: a NaN in the context is
		// not equal to itself)
		w := candWriter{ok: true}
		w.b = appendUvarint([]byte{tagBuilt}, n)
		w.candidate(&c)
		if !w.ok {
			return // refused, as encodeBuilt would refuse it
		}
		c2, n2, ok := decodeBuilt(w.b)
		if !ok || n2 != n {
			t.Fatalf("the encoding of a decoded value does not decode: %q", w.b)
		}
		if !reflect.DeepEqual(c2, c) && fmt.Sprintf("%#v", c2) != fmt.Sprintf("%#v", c) {
			t.Fatalf("not the same candidate:\n%#v\n%#v", c2, c)
		}
	})
}

func appendUvarint(b []byte, n int) []byte {
	for n >= 0x80 {
		b = append(b, byte(n)|0x80)
		n >>= 7
	}
	return append(b, byte(n))
}
