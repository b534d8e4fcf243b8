package loaded

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/config"
)

func TestResolve(t *testing.T) {
	base := t.TempDir()
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	marked := filepath.Join(base, "marked")
	deep := filepath.Join(marked, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(marked, ".orchestrate.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, want string
		notFolder       bool
	}{
		{name: "the marked folder above", dir: deep, want: marked},
		{name: "the marked folder itself", dir: marked, want: marked},
		{name: "a file", dir: file, notFolder: true},
		{name: "missing", dir: filepath.Join(base, "nope"), notFolder: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loc, err := Resolve(tc.dir)
			var nf *NotFolderError
			if tc.notFolder {
				if !errors.As(err, &nf) {
					t.Fatalf("Resolve(%s) = %+v, %v; want a NotFolderError", tc.dir, loc, err)
				}
				return
			}
			if err != nil || loc.Root != tc.want {
				t.Fatalf("Resolve(%s) = %+v, %v; want root %s", tc.dir, loc, err, tc.want)
			}
		})
	}
}

func TestLoadWithoutGit(t *testing.T) {
	root := t.TempDir()
	state := "execution_id: sdc-1\nworkflow: story-development-cycle\nstory: \"4.2\"\nupdated_at: 2026-11-20T11:30:00Z\ncurrent_phase: implement\nstatus: interrupted\n"
	if err := os.MkdirAll(filepath.Join(root, ".orchestrate", "workflows"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".orchestrate", "workflows", "sdc-1.yaml"), []byte(state), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.FixedZone("x", 3600))
	s := Load(Location{Root: root}, config.Default(), now)
	if !s.Now.Equal(now) || s.Now.Location() != time.UTC {
		t.Errorf("Now = %v, want %v in UTC", s.Now, now)
	}
	res := s.Resumable()
	if len(res) != 1 || res[0].ID != "workflow:sdc-1" {
		t.Fatalf("Resumable = %+v, want workflow:sdc-1", res)
	}
	if rep := s.Validate(res[0]); rep.Status == "" {
		t.Errorf("Validate gave no status: %+v", rep)
	}
	if got, want := s.LogPath(), filepath.Join(root, ".orchestrate", "log.jsonl"); got != want {
		t.Errorf("LogPath = %s, want %s", got, want)
	}
}

func TestResolveBare(t *testing.T) {
	base := t.TempDir()
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	mk := func(dir, config string) {
		for _, d := range []string{"objects", "refs/heads"} {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "config"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bare := filepath.Join(base, "bare.git")
	mk(bare, "[core]\n\trepositoryformatversion = 0\n\tbare = true\n")
	gitDir := filepath.Join(base, "work", ".git")
	mk(gitDir, "[core]\n\tbare = false\n")
	tests := []struct {
		name, dir string
		bare      bool
	}{
		{name: "the bare repository", dir: bare, bare: true},
		{name: "inside it", dir: filepath.Join(bare, "refs", "heads"), bare: true},
		{name: "a work tree's git folder", dir: gitDir},
		{name: "a plain folder", dir: base},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Resolve(tc.dir)
			var be *BareRepoError
			if got := errors.As(err, &be); got != tc.bare {
				t.Fatalf("Resolve(%s) error %v; want a BareRepoError: %v", tc.dir, err, tc.bare)
			}
			if tc.bare && be.Dir != bare {
				t.Errorf("Dir = %s, want %s", be.Dir, bare)
			}
		})
	}
}

// Exists answers as Repo.Exists does, before and after a validation that
// checked the same referenced files (which it then answers from).
func TestExistsAfterValidate(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".orchestrate/workflows/sdc-1.yaml", "execution_id: sdc-1\nworkflow: story-development-cycle\nstory: \"4.2\"\n"+
		"updated_at: 2026-11-20T11:30:00Z\ncurrent_phase: implement\nstatus: interrupted\nfiles:\n  - src/a.go\n  - src/gone.go\n  - ../out\n")
	write("src/a.go", "package a\n")
	write("src/other.go", "package a\n")
	s := Load(Location{Root: root}, config.Default(), time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	paths := []string{"src/a.go", "src/gone.go", "../out", "src/other.go", "./src/a.go", "src"}
	check := func(when string) {
		t.Helper()
		for _, p := range paths {
			if got, want := s.Exists(p), s.Repo.Exists(p); got != want {
				t.Errorf("%s: Exists(%q) = %v, Repo.Exists %v", when, p, got, want)
			}
		}
	}
	check("before Validate")
	res := s.Resumable()
	if len(res) != 1 {
		t.Fatalf("Resumable = %+v", res)
	}
	s.Validate(res[0])
	check("after Validate")
	if !s.run.Exists("src/a.go") {
		t.Error("the validation did not record src/a.go")
	}
}

// A folder that looks like a bare repository but whose config is a FIFO is
// not read (it would block): Resolve answers at once.
func TestResolveFIFOConfigDoesNotHang(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"objects", "refs"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "config"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = Resolve(dir)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Resolve blocked on a FIFO named config")
	}
}
