//go:build unix

package validate

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// probeFixture is a repository whose referenced files are every kind
// integrity tells apart: files in many folders, a folder, symlinks inside
// (to a file, a folder, through a linked folder) and out of the
// repository, dangling and looping ones, missing files and folders, an
// unreadable file and folder, a FIFO, a path given twice in two
// spellings, and lexically unsafe paths.
func probeFixture(t *testing.T) (*repo, []workflow.RefFile) {
	t.Helper()
	r := newRepo(t)
	var refs []workflow.RefFile
	for i := 0; i < 120; i++ {
		rel := fmt.Sprintf("src/p%02d/f%03d.go", i%17, i)
		if i%5 != 3 { // every fifth is missing
			r.write(rel, "x", time.Time{})
		}
		refs = append(refs, workflow.RefFile{Path: rel, Critical: i%7 == 0, Phase: "implement"})
	}
	r.write("locked", "x", time.Time{})
	r.write("shut/inner", "x", time.Time{})
	if err := os.Chmod(filepath.Join(r.root, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(r.root, "shut"), 0o300); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(r.root, "shut"), 0o755) })
	out := t.TempDir()
	for link, target := range map[string]string{
		"to-file": "src/p01/f001.go", "to-dir": "src/p02", "out": out, "dangling": "nowhere", "loop": "loop",
	} {
		if err := os.Symlink(target, filepath.Join(r.root, link)); err != nil {
			t.Skipf("symlink: %v", err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(r.root, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, p := range []string{
		"locked", "shut", "shut/inner", "to-file", "to-dir", "to-dir/f002.go", "to-dir/none.go", "out", "out/x",
		"dangling", "loop", "pipe", "src/p03", "src/none/x.go", "src/p01/f001.go/below", "./src/p04/f004.go",
		"src//p04/f004.go", "../up", "/abs", "bad\x00name", "src/p05/../p06/f006.go",
	} {
		refs = append(refs, workflow.RefFile{Path: p, Critical: true, Phase: "implement"})
	}
	// shuffled, so that the workers' chunks are not in path order
	for i := range refs {
		j := (i * 7919) % len(refs)
		refs[i], refs[j] = refs[j], refs[i]
	}
	return r, refs
}

// setProbing sets the parallel probing's thresholds for one test.
func setProbing(t *testing.T, min, workers, chunk int) {
	t.Helper()
	oldMin, oldWorkers, oldChunk := minParallelProbes, maxProbeWorkers, probeChunk
	minParallelProbes, maxProbeWorkers, probeChunk = min, workers, chunk
	old := runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), 4))
	t.Cleanup(func() {
		minParallelProbes, maxProbeWorkers, probeChunk = oldMin, oldWorkers, oldChunk
		runtime.GOMAXPROCS(old)
	})
}

// The integrity checks made on workers give the findings, file reports
// and their order of the checks made one after the other, with and
// without a Run, through every kind of path.
func TestIntegrityParallelMatchesSequential(t *testing.T) {
	r, refs := probeFixture(t)
	c := sdc("4.2", refs...)
	st := r.story("4.2", "InProgress", "AC", "notes", time.Time{})
	validate := func(run bool) Report {
		in := input(r, c, st)
		if run {
			in.Run = NewRun(r.root, []workflow.Candidate{c})
		}
		return Validate(in)
	}
	setProbing(t, 1<<30, 1, 1)
	seq, seqRun := validate(false), validate(true)
	if !has(seq, "unsafe-path") || !has(seq, "missing-critical") || !has(seq, "unreadable") {
		t.Fatalf("the fixture lacks a kind: %v", codes(seq))
	}
	for _, tc := range []struct{ workers, chunk int }{{2, 1}, {4, 3}, {4, 32}} {
		setProbing(t, 1, tc.workers, tc.chunk)
		for _, run := range []bool{false, true} {
			want := seq
			if run {
				want = seqRun
			}
			if got := validate(run); !reflect.DeepEqual(got, want) {
				t.Errorf("workers %d, chunk %d, Run %v:\n%+v\nsequential:\n%+v", tc.workers, tc.chunk, run, got, want)
			}
		}
	}
}

// From the second validation of a run with three or more resumable
// workflows, the paths of every resumable workflow not validated yet are
// probed on a goroutine of their own (a candidate over the cap is left to
// its own validation); the reports are the ones of validations that probe
// their own paths, whether the prefetch is ahead of them or not.
func TestRunPrefetchesProbes(t *testing.T) {
	r, refs := probeFixture(t)
	var all []workflow.Candidate
	for i := 0; i < 4; i++ {
		c := sdc(fmt.Sprintf("4.%d", i), refs[i*30:(i+1)*30+5]...)
		c.Stories, c.StoryRefs = nil, nil
		all = append(all, c)
	}
	big := sdc("9.9", refs...)
	big.Stories, big.StoryRefs = nil, nil
	big.ID = "workflow:sdc-big"
	all = append(all, big)
	paused := sdc("8.8", workflow.RefFile{Path: "never/probed"})
	paused.Stories, paused.StoryRefs, paused.Resumable = nil, nil, false
	all = append(all, paused)

	cfg := func(in Input) Input {
		in.Config.MaxRefFiles = 100
		return in
	}
	var want []Report
	for _, c := range all[:5] {
		want = append(want, Validate(cfg(withOthers(input(r, c), all))))
	}
	for _, wait := range []bool{false, true} {
		run := NewRun(r.root, all)
		t.Cleanup(run.waitPrefetch)
		for i, c := range all[:5] {
			in := cfg(input(r, c))
			in.Run = run
			if got := Validate(in); !reflect.DeepEqual(got, want[i]) {
				t.Errorf("%s with a prefetching Run (waited %v):\n%+v\nwithout:\n%+v", c.ID, wait, got, want[i])
			}
			if i == 0 && run.prefetchDone != nil {
				t.Error("a prefetch started at the first validation")
			}
			if wait {
				run.waitPrefetch()
			}
		}
		run.waitPrefetch()
		// 4.2 and 4.3, 65 distinct paths; not 4.0 and 4.1 (validated), nor big
		if run.prefetched != 65 {
			t.Errorf("%d paths prefetched, want 65", run.prefetched)
		}
		if _, ok := run.probed["never/probed"]; ok {
			t.Error("a workflow that is not resumable was probed")
		}
	}

	// two resumable workflows: no prefetch
	run := NewRun(r.root, all[:2])
	for _, c := range all[:2] {
		in := cfg(input(r, c))
		in.Run = run
		Validate(in)
	}
	if run.prefetchDone != nil || run.prefetched != 0 {
		t.Errorf("a prefetch for two workflows (%d paths)", run.prefetched)
	}
}

// BenchmarkIntegrityRefs validates one workflow referencing 5,000 files in
// 2,500 folders (the shape of the refs benchmark), its paths probed one
// after the other (sequential) or on workers (parallel).
func BenchmarkIntegrityRefs(b *testing.B) {
	root := b.TempDir()
	var refs []workflow.RefFile
	for i := 0; i < 5000; i++ {
		rel := fmt.Sprintf("src/pkg%03d/sub%d/file%05d.go", i/10%500, i%5, i)
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		refs = append(refs, workflow.RefFile{Path: rel})
	}
	c := sdc("1.1", refs...)
	c.Stories, c.StoryRefs = nil, nil
	cfg := config.Default()
	cfg.MaxRefFiles = len(refs)
	for _, tc := range []struct {
		name string
		min  int
	}{{"sequential", 1 << 30}, {"parallel", minParallelProbes}} {
		b.Run(tc.name, func(b *testing.B) {
			old := minParallelProbes
			minParallelProbes = tc.min
			defer func() { minParallelProbes = old }()
			for i := 0; i < b.N; i++ {
				Validate(Input{Root: root, Candidate: c, Run: NewRun(root, []workflow.Candidate{c}), Now: now, Config: cfg})
			}
		})
	}
}
