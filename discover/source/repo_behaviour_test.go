package source_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// hostileRepo is a repository holding what a state file's reader must
// refuse: an oversize file, a binary one, a FIFO, a folder, symlinks out of
// the repository and a file it may not read.
func hostileRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	outside := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ok.yaml", "status: paused\n")
	write("big.yaml", strings.Repeat("a", 100))
	write("bin.dat", "ab\x00cd")
	write("sub/keep.md", "x")
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(syscall.Mkfifo(filepath.Join(root, "pipe.yaml"), 0o644))
	must(os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "out.yaml")))
	must(os.Symlink(outside, filepath.Join(root, "outdir")))
	must(os.Symlink("ok.yaml", filepath.Join(root, "in.yaml")))
	must(os.Symlink("pipe.yaml", filepath.Join(root, "tofifo.yaml")))
	write("locked.yaml", "x")
	must(os.Chmod(filepath.Join(root, "locked.yaml"), 0))
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	must(os.Chtimes(filepath.Join(root, "ok.yaml"), old, old))
	return root
}

// TestRepoReadRefusesHostileFiles: each refusal is quick (a FIFO does not
// hang the read), returns no bytes, and turns into a blocking finding whose
// code says why and whose message names the file; with and without the
// reader NewRepo sets up.
func TestRepoReadRefusesHostileFiles(t *testing.T) {
	root := hostileRepo(t)
	cfg := config.Default()
	cfg.MaxFileSize = 64
	withReader, _ := source.NewRepo(root, cfg)
	repos := map[string]*source.Repo{
		"reader":    withReader,
		"no reader": {Root: root, Config: cfg},
	}
	isRoot := os.Geteuid() == 0
	tests := []struct {
		rel    string
		code   string // "" reads
		exists bool
	}{
		{"ok.yaml", "", true},
		{"in.yaml", "", true},
		{"big.yaml", "too-large", true},
		{"bin.dat", "binary", true},
		{"pipe.yaml", "not-a-file", true},
		{"tofifo.yaml", "not-a-file", true},
		{"sub", "not-a-file", true},
		{"out.yaml", "unsafe-path", false},
		{"outdir/secret", "unsafe-path", false},
		{"../escape.yaml", "unsafe-path", false},
		{"missing.yaml", "unreadable", false},
		{"locked.yaml", "permission", true},
	}
	for name, r := range repos {
		for _, tt := range tests {
			t.Run(name+"/"+tt.rel, func(t *testing.T) {
				if tt.code == "permission" && isRoot {
					t.Skip("root reads any file")
				}
				done := make(chan struct{})
				var data []byte
				var err error
				go func() { data, err = r.Read(tt.rel); close(done) }()
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					t.Fatal("Read hangs")
				}
				if tt.code == "" {
					if err != nil || string(data) != "status: paused\n" {
						t.Fatalf("Read = %q, %v", data, err)
					}
				} else {
					if err == nil || data != nil {
						t.Fatalf("Read = %q, %v; want a refusal", data, err)
					}
					f := source.ReadFinding(tt.rel, err)
					if f.Code != tt.code || f.Severity != workflow.Blocking || f.Path != tt.rel ||
						!strings.HasPrefix(f.Message, "cannot read "+tt.rel+": ") {
						t.Errorf("finding = %+v, want code %s naming %s", f, tt.code, tt.rel)
					}
				}
				if got := r.Exists(tt.rel); got != tt.exists {
					t.Errorf("Exists = %v, want %v", got, tt.exists)
				}
			})
		}
		t.Run(name+"/ReadWithTime", func(t *testing.T) {
			data, mt, err := r.ReadWithTime("ok.yaml")
			want := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
			if err != nil || string(data) != "status: paused\n" || !mt.Equal(want) {
				t.Errorf("ReadWithTime = %q, %v, %v; want mtime %v", data, mt, err, want)
			}
			if _, _, err := r.ReadWithTime("bin.dat"); !errors.Is(err, safefile.ErrBinary) {
				t.Errorf("ReadWithTime(bin.dat) err = %v", err)
			}
		})
	}
	r := withReader
	if got := r.ModTime("ok.yaml"); !got.Equal(time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)) || got.Location() != time.UTC {
		t.Errorf("ModTime = %v", got)
	}
	if got := r.ModTime("missing"); !got.IsZero() {
		t.Errorf("ModTime(missing) = %v", got)
	}

	// StampMTime: the modification time only when the state records none.
	c := workflow.Candidate{}
	source.StampMTime(r, &c, "ok.yaml")
	if c.UpdatedFrom != "mtime" || c.UpdatedAt.Year() != 2020 {
		t.Errorf("StampMTime = %v %q", c.UpdatedAt, c.UpdatedFrom)
	}
	recorded := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c = workflow.Candidate{UpdatedAt: recorded, UpdatedFrom: "field:updated_at"}
	source.StampMTime(r, &c, "ok.yaml")
	if !c.UpdatedAt.Equal(recorded) || c.UpdatedFrom != "field:updated_at" {
		t.Errorf("StampMTime overrode a recorded time: %v %q", c.UpdatedAt, c.UpdatedFrom)
	}
	c = workflow.Candidate{}
	source.StampMTime(r, &c, "missing")
	if !c.UpdatedAt.IsZero() || c.UpdatedFrom != "" {
		t.Errorf("StampMTime(missing) = %v %q", c.UpdatedAt, c.UpdatedFrom)
	}
}

// TestFrameworkConfigUnreadable: a core-config.yaml that does not decode or
// cannot be read leaves the default story folders, with an info finding.
func TestFrameworkConfigUnreadable(t *testing.T) {
	tests := []struct {
		name, data string
		want       string
	}{
		{"does not decode", "devStoryLocation: [\n", ".bmad-core/core-config.yaml does not decode; stories are looked for in the default folders"},
		{"binary", "a\x00b", "cannot read .bmad-core/core-config.yaml: binary file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, ".bmad-core", "core-config.yaml")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := config.Default()
			r, fs := source.NewRepo(root, cfg)
			var hit *workflow.Finding
			for i := range fs {
				if fs[i].Code == "framework-config" {
					hit = &fs[i]
				}
			}
			if hit == nil || !strings.HasPrefix(hit.Message, tt.want) || hit.Severity != workflow.Info || hit.Path != source.BMADCoreConfig {
				t.Fatalf("findings = %+v, want an info finding %q", fs, tt.want)
			}
			if strings.Join(r.Config.Sources.Stories, ",") != strings.Join(config.Default().Sources.Stories, ",") {
				t.Errorf("story globs = %v, want the defaults", r.Config.Sources.Stories)
			}
		})
	}
}

func TestCommitTimesAndSerializeTimes(t *testing.T) {
	if source.SerializeTimes(nil) != nil {
		t.Error("SerializeTimes(nil) is not nil")
	}
	var inFlight, overlap, calls int32
	times := func(paths []string) map[string]source.Stamp {
		if atomic.AddInt32(&inFlight, 1) > 1 {
			atomic.StoreInt32(&overlap, 1)
		}
		defer atomic.AddInt32(&inFlight, -1)
		atomic.AddInt32(&calls, 1)
		time.Sleep(time.Millisecond)
		out := map[string]source.Stamp{}
		for _, p := range paths {
			if p == "dirty" {
				out[p] = source.Stamp{}
				continue
			}
			out[p] = source.Stamp{When: time.Unix(1700000000, 0), From: "git:abc1234"}
		}
		return out
	}
	r := &source.Repo{Times: source.SerializeTimes(times)}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := r.CommitTimes([]string{"a.md", "dirty"})
			if len(got) != 1 || got["a.md"].From != "git:abc1234" {
				t.Errorf("CommitTimes = %v, want a.md only", got)
			}
		}()
	}
	wg.Wait()
	if overlap != 0 || calls != 8 {
		t.Errorf("serialized calls overlapped (%d) or were lost (%d calls)", overlap, calls)
	}
	if r.CommitTimes(nil) != nil || (&source.Repo{}).CommitTimes([]string{"a"}) != nil {
		t.Error("CommitTimes without paths or git is not nil")
	}
	var nilRepo *source.Repo
	if nilRepo.CommitTimes([]string{"a"}) != nil {
		t.Error("CommitTimes on a nil repo is not nil")
	}
}

func TestFormatIsASource(t *testing.T) {
	want := []workflow.Candidate{{ID: "x:1"}}
	var got *source.Repo
	var s source.Source = source.Format{
		FormatKind:     "x",
		FormatPriority: 7,
		ScanFunc: func(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
			got = r
			return want, nil
		},
	}
	r := &source.Repo{Root: "/nowhere"}
	cs, _ := s.Scan(r)
	if s.Kind() != "x" || s.Priority() != 7 || got != r || len(cs) != 1 || cs[0].ID != "x:1" {
		t.Errorf("Format: kind %q priority %d scanned %v -> %v", s.Kind(), s.Priority(), got, cs)
	}
}
