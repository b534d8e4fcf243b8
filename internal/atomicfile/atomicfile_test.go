package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestWriteNewAndReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state.yaml")
	if err := Write(p, []byte("a: 1\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("new file perm = %v, want 0640", fi.Mode().Perm())
	}
	// an existing file keeps its permission bits
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("a: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if string(data) != "a: 2\n" {
		t.Errorf("content = %q", data)
	}
	fi, _ = os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file perm = %v, want 0600 (kept)", fi.Mode().Perm())
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("temporary files left: %v", l)
	}
}

func TestWriteFailpoints(t *testing.T) {
	for _, step := range []string{"write", "sync", "rename"} {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f.json")
			if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			var seen []string
			boom := errors.New("boom")
			Failpoint = func(s string) error {
				seen = append(seen, s)
				if s == step {
					return boom
				}
				return nil
			}
			defer func() { Failpoint = nil }()
			err := Write(p, []byte("new"), 0o644)
			if !errors.Is(err, boom) {
				t.Fatalf("err = %v, want the injected error", err)
			}
			data, _ := os.ReadFile(p)
			if string(data) != "old" {
				t.Errorf("content = %q, want old", data)
			}
			if l := leftovers(t, dir); len(l) > 0 {
				t.Errorf("temporary files left: %v", l)
			}
			if seen[len(seen)-1] != step {
				t.Errorf("steps = %v", seen)
			}
		})
	}
	// a failure before a new file exists leaves no file at all
	dir := t.TempDir()
	p := filepath.Join(dir, "new.json")
	Failpoint = func(s string) error {
		if s == "rename" {
			return errors.New("boom")
		}
		return nil
	}
	defer func() { Failpoint = nil }()
	if err := Write(p, []byte("x"), 0o600); err == nil {
		t.Fatal("want an error")
	}
	if _, err := os.Lstat(p); !os.IsNotExist(err) {
		t.Errorf("file exists after a failed write: %v", err)
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("temporary files left: %v", l)
	}
}

func TestWriteRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, []byte("x"), 0o644); err == nil {
		t.Error("writing over a folder: want an error")
	}
	if err := Write(filepath.Join(dir, "missing", "f"), []byte("x"), 0o644); err == nil {
		t.Error("writing into a missing folder: want an error")
	}
}

func TestSyncDir(t *testing.T) {
	if err := SyncDir(t.TempDir()); err != nil {
		t.Error(err)
	}
	if err := SyncDir(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Error("want an error for a missing folder")
	}
}

func TestWriteConfined(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{
		{outside, "outdir"},
		{victim, "link"},
		{"/dev/zero", "zero"},
		{filepath.Join(outside, "nope"), "dangling"},
	} {
		if err := os.Symlink(l[0], filepath.Join(root, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rel     string
		wantErr error
		msg     string
	}{
		{"a/b/state.yaml", nil, ""},
		{"top.json", nil, ""},
		{"outdir/victim", safefile.ErrSymlink, "refused: outdir is a symlink"},
		{"outdir/new", safefile.ErrSymlink, "refused: outdir is a symlink"},
		{"link", safefile.ErrSymlink, "refused: link is a symlink"},
		{"zero", safefile.ErrSymlink, "refused: zero is a symlink"},
		{"dangling", safefile.ErrSymlink, "refused: dangling is a symlink"},
		{"fifo", safefile.ErrNotFile, "refused: fifo is not a regular file"},
		{"../escape", safefile.ErrUnsafe, ""},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			err := WriteConfined(root, tt.rel, []byte("new"), 0o644)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				if b, _ := os.ReadFile(filepath.Join(root, tt.rel)); string(b) != "new" {
					t.Fatalf("content %q", b)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || !errors.Is(err, safefile.ErrUnsafe) {
				t.Fatalf("WriteConfined(%q) = %v; want %v", tt.rel, err, tt.wantErr)
			}
			if tt.msg != "" && !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("message %q lacks %q", err, tt.msg)
			}
		})
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("outside file changed: %q", b)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("outside folder holds %d entries", len(entries))
	}
	if l := leftovers(t, root); len(l) > 0 {
		t.Errorf("temporary files left: %v", l)
	}
}
