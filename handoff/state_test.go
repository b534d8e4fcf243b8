package handoff

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/epic"
	"github.com/orchestrate-dev/orchestrate/discover/qaloop"
	"github.com/orchestrate-dev/orchestrate/internal/atomicfile"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

var t0 = time.Date(2025, 6, 3, 8, 15, 30, 0, time.UTC)

// lineDiff returns the lines only in a (removed) and only in b (added),
// from a longest-common-subsequence alignment.
func lineDiff(a, b string) (removed, added []string) {
	x, y := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
	n, m := len(x), len(y)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case x[i] == y[j]:
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			removed = append(removed, x[i])
			i++
		default:
			added = append(added, y[j])
			j++
		}
	}
	removed = append(removed, x[i:]...)
	added = append(added, y[j:]...)
	return removed, added
}

// copyState copies a testdata state into a fresh root at rel.
func copyState(t *testing.T, name, rel string) (root string, data []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "states", name))
	if err != nil {
		t.Fatal(err)
	}
	root = t.TempDir()
	full := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return root, data
}

func TestUpdateStateRoundTrips(t *testing.T) {
	ts := `2025-06-03T08:15:30Z`
	tests := []struct {
		name, file, rel string
		// the lines the first resume must remove and add, exactly
		removed, added []string
		// what the second resume changes (count 1 → 2, the time)
		removed2, added2 []string
		wrappers         []string
	}{
		{
			name: "epic state nested under epic_state, comments and quotes",
			file: "epic-EPIC-ACT-state.yaml", rel: ".aiox/epic-EPIC-ACT-state.yaml",
			removed: []string{"  status: 'paused'    # paused by the user at the wave gate\n"},
			added: []string{
				"  resumedAt: \"" + ts + "\"\n",
				"  resumeCount: 1\n",
				"  status: 'active'    # paused by the user at the wave gate\n",
			},
			removed2: []string{"  resumeCount: 1\n"},
			added2:   []string{"  resumeCount: 2\n"},
		},
		{
			name: "camelCase QA loop, pretty JSON",
			file: "loop-status-camel.json", rel: "qa/loop-status.json",
			removed: []string{`  "status": "stopped",` + "\n"},
			added: []string{
				`  "resumedAt": "` + ts + `",` + "\n",
				`  "resumeCount": 1,` + "\n",
				`  "status": "active",` + "\n",
			},
			removed2: []string{`  "resumeCount": 1,` + "\n"},
			added2:   []string{`  "resumeCount": 2,` + "\n"},
		},
		{
			name: "our workflow state, snake_case, flow lists, trailing comment",
			file: "sdc-2025-06-01-1.yaml", rel: ".orchestrate/workflows/sdc-2025-06-01-1.yaml",
			removed: []string{"status: interrupted # the laptop lid closed\n"},
			added: []string{
				"resumed_at: \"" + ts + "\"\n",
				"resume_count: 1\n",
				"status: active # the laptop lid closed\n",
			},
			removed2: []string{"resume_count: 1\n"},
			added2:   []string{"resume_count: 2\n"},
		},
		{
			name: "nexos checkpoint without status",
			file: "EPIC-3-state.yaml", rel: ".nexos/workflow-state/EPIC-3-state.yaml",
			added: []string{
				"status: active\n",
				"resumed_at: \"" + ts + "\"\n",
				"resume_count: 1\n",
			},
			removed2: []string{"resume_count: 1\n"},
			added2:   []string{"resume_count: 2\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, orig := copyState(t, tt.file, tt.rel)
			full := filepath.Join(root, filepath.FromSlash(tt.rel))
			b, err := UpdateState(root, tt.rel, t0)
			if err != nil {
				t.Fatal(err)
			}
			after, _ := os.ReadFile(full)
			removed, added := lineDiff(string(orig), string(after))
			sameLines(t, "removed", removed, tt.removed)
			sameLines(t, "added", added, tt.added)
			if bak, _ := os.ReadFile(full + ".bak"); !bytes.Equal(bak, orig) {
				t.Errorf(".bak is not the previous version")
			}
			if !bytes.Equal(b.Original, orig) || b.HadBak || b.Path != full {
				t.Errorf("backup = %+v", b)
			}
			checkParses(t, tt.rel, after)

			// a second resume a day later: the count goes to 2, the time moves
			b2, err := UpdateState(root, tt.rel, t0.Add(24*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			after2, _ := os.ReadFile(full)
			removed, added = lineDiff(string(after), string(after2))
			tsLine := regexp.MustCompile(`resumed_?[aA]t`)
			var r2, a2 []string
			for _, l := range removed {
				if !tsLine.MatchString(l) {
					r2 = append(r2, l)
				} else if !strings.Contains(l, ts) {
					t.Errorf("second resume removed an unexpected line %q", l)
				}
			}
			for _, l := range added {
				if !tsLine.MatchString(l) {
					a2 = append(a2, l)
				} else if !strings.Contains(l, "2025-06-04T08:15:30Z") {
					t.Errorf("second resume added an unexpected line %q", l)
				}
			}
			sameLines(t, "removed (second)", r2, tt.removed2)
			sameLines(t, "added (second)", a2, tt.added2)
			if !b2.HadBak || !bytes.Equal(b2.OldBak, orig) {
				t.Errorf("second backup should remember the first .bak")
			}
			// restoring the second resume gives the first one back, .bak included
			if err := b2.Restore(); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(full); !bytes.Equal(got, after) {
				t.Errorf("restore: state is not the first resume's")
			}
			if got, _ := os.ReadFile(full + ".bak"); !bytes.Equal(got, orig) {
				t.Errorf("restore: .bak is not the original")
			}
			if err := b.Restore(); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(full); !bytes.Equal(got, orig) {
				t.Errorf("restore: state is not the original")
			}
			if _, err := os.Lstat(full + ".bak"); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("restore: .bak should be gone (there was none), err=%v", err)
			}
		})
	}
}

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "") != strings.Join(want, "") {
		t.Errorf("%s lines:\n got  %q\n want %q", what, got, want)
	}
}

func checkParses(t *testing.T, rel string, data []byte) {
	t.Helper()
	var err error
	if strings.HasSuffix(rel, ".json") {
		_, err = tolerant.DecodeJSONMap(data)
	} else {
		_, err = tolerant.DecodeYAMLMap(data)
	}
	if err != nil {
		t.Errorf("result does not parse: %v\n%s", err, data)
	}
}

func TestUpdateStateWrappedOneLineJSON(t *testing.T) {
	root, orig := copyState(t, "loop-status-wrapped.json", "qa/2.1/loop-status.json")
	if _, err := UpdateState(root, "qa/2.1/loop-status.json", t0); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(root, "qa/2.1/loop-status.json"))
	want := strings.Replace(string(orig),
		`"qaLoop":{"currentIteration":4,"maxIterations":5,"status":"escalated",`,
		`"qaLoop":{"resumedAt":"2025-06-03T08:15:30Z","resumeCount":1,"currentIteration":4,"maxIterations":5,"status":"active",`, 1)
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// the story's own status (outside the wrapper) is untouched
	if !strings.Contains(string(got), `"status":"InReview"`) {
		t.Error("the story status outside the loop changed")
	}
	// and discover reads the loop as active now
	c, _ := qaloop.ParseQALoop("qa/2.1/loop-status.json", got)
	if c.Status != "active" {
		t.Errorf("discover reads status %q", c.Status)
	}
}

func TestUpdateStateDiscoverReadsBack(t *testing.T) {
	root, _ := copyState(t, "epic-EPIC-ACT-state.yaml", ".aiox/epic-EPIC-ACT-state.yaml")
	if _, err := UpdateState(root, ".aiox/epic-EPIC-ACT-state.yaml", t0); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(root, ".aiox/epic-EPIC-ACT-state.yaml"))
	c, fs := epic.ParseEpicState(".aiox/epic-EPIC-ACT-state.yaml", got)
	if c.Status != "active" || len(c.Epic.Waves) != 2 || c.Epic.CurrentWave != 2 {
		t.Errorf("discover reads %q, waves %d, current %d; findings %v", c.Status, len(c.Epic.Waves), c.Epic.CurrentWave, fs)
	}
}

func TestUpdateStateSmallCases(t *testing.T) {
	tests := []struct {
		name, rel, in, want string
	}{
		{"empty values keep their comment", "s.yaml",
			"status: # not set\nresume_count:\nstory: \"1.10\"\n",
			"resumed_at: \"2025-06-03T08:15:30Z\"\nstatus: active # not set\nresume_count: 1\nstory: \"1.10\"\n"},
		{"CRLF line endings", "s.yaml",
			"story: 4.2\r\nstatus: paused\r\n",
			"resumed_at: \"2025-06-03T08:15:30Z\"\r\nresume_count: 1\r\nstory: 4.2\r\nstatus: active\r\n"},
		{"existing fields, plain timestamp, quoted count", "s.yaml",
			"status: \"paused\"\nresumed_at: 2025-01-01T00:00:00Z\nresume_count: \"4\"\n",
			"status: \"active\"\nresumed_at: 2025-06-03T08:15:30Z\nresume_count: \"5\"\n"},
		{"document start marker and leading comments", "s.yaml",
			"---\n# state\nstatus: paused\n",
			"---\n# state\nresumed_at: \"2025-06-03T08:15:30Z\"\nresume_count: 1\nstatus: active\n"},
		{"fields outside the wrapper are patched where they are", "s.yaml",
			"status: paused\nepic_state:\n  epicId: E\n  resume_count: 2\n",
			"status: active\nepic_state:\n  resumed_at: \"2025-06-03T08:15:30Z\"\n  epicId: E\n  resume_count: 3\n"},
		{"one-line JSON with spaces", "s.json",
			`{"status": "paused", "story_id": "1.2"}`,
			`{"resumed_at": "2025-06-03T08:15:30Z", "resume_count": 1, "status": "active", "story_id": "1.2"}`},
		{"JSON null count and tabs", "s.json",
			"{\n\t\"status\": null,\n\t\"resume_count\": null\n}\n",
			"{\n\t\"resumed_at\": \"2025-06-03T08:15:30Z\",\n\t\"status\": \"active\",\n\t\"resume_count\": 1\n}\n"},
		{"empty JSON object", "s.json", `{}`,
			`{"status": "active", "resumed_at": "2025-06-03T08:15:30Z", "resume_count": 1}`},
		{"JSON by content without extension", "state",
			`{"status":"paused"}`,
			`{"resumed_at":"2025-06-03T08:15:30Z","resume_count":1,"status":"active"}`},
		{"byte order mark", "s.yaml",
			"\ufeffstatus: paused\n",
			"\ufeffresumed_at: \"2025-06-03T08:15:30Z\"\nresume_count: 1\nstatus: active\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, tt.rel)
			if err := os.WriteFile(p, []byte(tt.in), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := UpdateState(root, tt.rel, t0); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(p)
			if string(got) != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
			if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
				t.Errorf("permissions changed to %v", fi.Mode().Perm())
			}
		})
	}
}

func TestUpdateStateRefuses(t *testing.T) {
	tests := []struct {
		name, rel, in string
	}{
		{"flow-style mapping", "flow.yaml", "{execution_id: sdc-9, status: paused}\n"},
		{"flow-style wrapper", "e.yaml", "epic_state: {epicId: E, status: paused}\n"},
		{"multi-line plain status", "m.yaml", "status: paused\n  still paused\nx: 1\n"},
		{"block scalar status", "b.yaml", "status: |\n  paused\n"},
		{"anchored status", "a.yaml", "status: &s paused\nother: *s\n"},
		{"status on the next line", "n.yaml", "status:\n  paused\n"},
		{"mapping status", "ms.yaml", "status:\n  value: paused\n"},
		{"not a count", "c.yaml", "status: paused\nresume_count: many\n"},
		{"list at the top", "l.yaml", "- status: paused\n"},
		{"invalid YAML", "i.yaml", "status: [paused\n"},
		{"invalid JSON", "i.json", `{"status": "paused",}`},
		{"JSON array", "a.json", `[{"status": "paused"}]`},
		{"duplicate keys", "d.yaml", "status: paused\nstatus: paused\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, tt.rel)
			if err := os.WriteFile(p, []byte(tt.in), 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := UpdateState(root, tt.rel, t0)
			if err == nil {
				got, _ := os.ReadFile(p)
				t.Fatalf("want an error; wrote %q", got)
			}
			if b.Path != "" {
				t.Errorf("a backup was returned on error")
			}
			got, _ := os.ReadFile(p)
			if string(got) != tt.in {
				t.Errorf("file changed to %q", got)
			}
			if _, err := os.Lstat(p + ".bak"); !errors.Is(err, os.ErrNotExist) {
				t.Errorf(".bak written on error")
			}
			entries, _ := os.ReadDir(root)
			if len(entries) != 1 {
				t.Errorf("files left: %v", entries)
			}
		})
	}
	t.Run("flow-style testdata file", func(t *testing.T) {
		root, orig := copyState(t, "flow-state.yaml", ".orchestrate/workflows/sdc-9.yaml")
		if _, err := UpdateState(root, ".orchestrate/workflows/sdc-9.yaml", t0); err == nil || !strings.Contains(err.Error(), "flow-style") {
			t.Fatalf("err = %v, want a flow-style error", err)
		}
		if got, _ := os.ReadFile(filepath.Join(root, ".orchestrate/workflows/sdc-9.yaml")); !bytes.Equal(got, orig) {
			t.Error("file changed")
		}
	})
}

func TestUpdateStatePaths(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "s.yaml"), []byte("status: paused\n"), 0o644)
	os.WriteFile(filepath.Join(root, "real.yaml"), []byte("status: paused\n"), 0o644)
	os.Symlink(filepath.Join(root, "real.yaml"), filepath.Join(root, "link.yaml"))
	os.Symlink(outside, filepath.Join(root, "out"))
	os.MkdirAll(filepath.Join(root, "docs/specs/login"), 0o755)
	os.WriteFile(filepath.Join(root, "progress.md"), []byte("# Notes\n\nprose\n"), 0o644)

	if _, err := UpdateState(root, "link.yaml", t0); err == nil || !errors.Is(err, safefile.ErrUnsafe) {
		t.Errorf("symlinked state: err = %v", err)
	}
	if _, err := UpdateState(root, "out/s.yaml", t0); err == nil || !errors.Is(err, safefile.ErrUnsafe) {
		t.Errorf("state through a symlink out of the root: err = %v", err)
	}
	if _, err := UpdateState(root, "../x.yaml", t0); err == nil {
		t.Error("state outside the root: want an error")
	}
	if _, err := UpdateState(root, filepath.Join(outside, "s.yaml"), t0); err == nil || !errors.Is(err, safefile.ErrUnsafe) {
		t.Errorf("absolute path outside the root: err = %v", err)
	}
	if b, err := UpdateState(root, "docs/specs/login", t0); err != nil || b.Path != "" {
		t.Errorf("a folder is a no-op: %+v, %v", b, err)
	}
	if _, err := UpdateState(root, "progress.md", t0); !errors.Is(err, ErrNotPatchable) {
		t.Errorf("markdown: err = %v, want ErrNotPatchable", err)
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "s.yaml")); string(got) != "status: paused\n" {
		t.Error("a file outside the root changed")
	}
	// an absolute path inside the root is fine
	if _, err := UpdateState(root, filepath.Join(root, "real.yaml"), t0); err != nil {
		t.Errorf("absolute path inside the root: %v", err)
	}
	// a .bak that is a symlink is not replaced
	os.WriteFile(filepath.Join(root, "b.yaml"), []byte("status: paused\n"), 0o644)
	os.Symlink(filepath.Join(outside, "s.yaml"), filepath.Join(root, "b.yaml.bak"))
	if _, err := UpdateState(root, "b.yaml", t0); err == nil {
		t.Error("symlinked .bak: want an error")
	}
}

// A state update that fails at any of its steps (the rollback handles'
// hard links, the .bak's and the state file's atomic writes) leaves the state
// file, its .bak and the folder exactly as they were.
func TestUpdateStateAtomicFailure(t *testing.T) {
	for _, tt := range []struct {
		step string
		nth  int
	}{
		{"link", 1},                              // the handle to the original
		{"link", 2},                              // the handle to the previous .bak
		{"write", 1}, {"sync", 1}, {"rename", 1}, // the new .bak
		{"write", 2}, {"sync", 2}, {"rename", 2}, // the state file
	} {
		root := t.TempDir()
		p := filepath.Join(root, "s.yaml")
		os.WriteFile(p, []byte("status: paused\n"), 0o644)
		os.WriteFile(p+".bak", []byte("status: older\n"), 0o644)
		n := 0
		atomicfile.Failpoint = func(step string) error {
			if step == tt.step {
				n++
				if n == tt.nth {
					return errors.New("disk full")
				}
			}
			return nil
		}
		_, err := UpdateState(root, "s.yaml", t0)
		atomicfile.Failpoint = nil
		if err == nil {
			t.Fatalf("%s#%d: want an error", tt.step, tt.nth)
		}
		if got, _ := os.ReadFile(p); string(got) != "status: paused\n" {
			t.Errorf("%s#%d: state = %q", tt.step, tt.nth, got)
		}
		if got, _ := os.ReadFile(p + ".bak"); string(got) != "status: older\n" {
			t.Errorf("%s#%d: .bak = %q", tt.step, tt.nth, got)
		}
		if entries, _ := os.ReadDir(root); len(entries) != 2 {
			t.Errorf("%s#%d: files left: %v", tt.step, tt.nth, entries)
		}
	}
}

func TestStateHashIgnoresResumeFields(t *testing.T) {
	for _, name := range []string{"epic-EPIC-ACT-state.yaml", "loop-status-camel.json", "loop-status-wrapped.json", "sdc-2025-06-01-1.yaml", "EPIC-3-state.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "states", name))
		if err != nil {
			t.Fatal(err)
		}
		patched, err := patchState(name, data, t0, allWrappers)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if stateHash(name, data, allWrappers) != stateHash(name, patched, allWrappers) {
			t.Errorf("%s: the hash changed with the resume fields only", name)
		}
		moved := bytes.Replace(data, []byte("2025-"), []byte("2026-"), 1)
		if bytes.Equal(moved, data) {
			moved = bytes.Replace(data, []byte(`"lastIssuesFound":4`), []byte(`"lastIssuesFound":5`), 1)
		}
		if stateHash(name, data, allWrappers) == stateHash(name, moved, allWrappers) {
			t.Errorf("%s: the hash did not change with the state", name)
		}
	}
}

// A hostile .bak twin or folder of a state file is refused fast, the state
// is left as it was, and nothing outside the repository changes.
func TestUpdateStateConfinement(t *testing.T) {
	const state = "status: paused\n"
	tests := []struct {
		name  string
		rel   string
		setup func(t *testing.T, root, outside string)
		want  string
	}{
		{"FIFO .bak", "s.yaml", func(t *testing.T, root, outside string) {
			if err := syscall.Mkfifo(filepath.Join(root, "s.yaml.bak"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "refused: s.yaml.bak is a FIFO; refusing to replace it"},
		{".bak to /dev/zero", "s.yaml", func(t *testing.T, root, outside string) {
			os.Symlink("/dev/zero", filepath.Join(root, "s.yaml.bak"))
		}, "refused: s.yaml.bak is a symlink; refusing to replace it"},
		{".bak to an outside file", "s.yaml", func(t *testing.T, root, outside string) {
			os.Symlink(filepath.Join(outside, "victim"), filepath.Join(root, "s.yaml.bak"))
		}, "refused: s.yaml.bak is a symlink"},
		{"symlinked folder inside the repository", "in/s.yaml", func(t *testing.T, root, outside string) {
			os.Mkdir(filepath.Join(root, "real"), 0o755)
			os.WriteFile(filepath.Join(root, "real", "s.yaml"), []byte(state), 0o644)
			os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "in"))
		}, "refused: in is a symlink"},
		{"state is a FIFO", "f.yaml", func(t *testing.T, root, outside string) {
			os.Remove(filepath.Join(root, "f.yaml"))
			if err := syscall.Mkfifo(filepath.Join(root, "f.yaml"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			os.WriteFile(filepath.Join(outside, "victim"), []byte("keep"), 0o644)
			os.WriteFile(filepath.Join(root, "s.yaml"), []byte(state), 0o644)
			tt.setup(t, root, outside)
			done := make(chan error, 2)
			go func() {
				_, err := updateState(root, tt.rel, t0, allWrappers, true)
				done <- err
				done <- CheckUpdate(root, workflow.Candidate{Source: workflow.SourceRef{Path: tt.rel, Kind: "workflow-state"}}, t0)
			}()
			for _, what := range []string{"updateState", "CheckUpdate"} {
				select {
				case err := <-done:
					if err == nil || !strings.Contains(err.Error(), tt.want) {
						t.Fatalf("%s = %v; want %q", what, err, tt.want)
					}
				case <-time.After(2 * time.Second):
					t.Fatalf("%s hangs", what)
				}
			}
			if got, _ := os.ReadFile(filepath.Join(root, "s.yaml")); string(got) != state {
				t.Errorf("state changed: %q", got)
			}
			if got, _ := os.ReadFile(filepath.Join(outside, "victim")); string(got) != "keep" {
				t.Errorf("outside file changed: %q", got)
			}
		})
	}
}
