package safefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestCheckPath(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	os.WriteFile(filepath.Join(root, "src", "a.go"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("x"), 0o644)
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "src"), filepath.Join(root, "in")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want string // "" = unsafe
	}{
		{"src/a.go", "src/a.go"},
		{"./src//a.go", "src/a.go"},
		{"src/../src/a.go", "src/a.go"},
		{"missing/file.txt", "missing/file.txt"},
		{"in/a.go", "in/a.go"},
		{"", ""},
		{"/etc/passwd", ""},
		{"../x", ""},
		{"src/../../x", ""},
		{"..", ""},
		{"a\x00b", ""},
		{"a\nb", ""},
		{`\\server\share`, ""},
		{"C:/x", ""},
		{"out/secret", ""},
	}
	for _, tt := range tests {
		got, err := CheckPath(root, tt.path)
		if tt.want == "" {
			if err == nil || !errors.Is(err, ErrUnsafe) {
				t.Errorf("CheckPath(%q) = %q, %v; want ErrUnsafe", tt.path, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("CheckPath(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
}

func TestRead(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "ok.txt"), []byte("hello"), 0o644)
	os.WriteFile(filepath.Join(root, "bin"), []byte("ab\x00cd"), 0o644)
	os.WriteFile(filepath.Join(root, "big"), []byte(strings.Repeat("x", 2048)), 0o644)
	os.Mkdir(filepath.Join(root, "dir"), 0o755)
	if data, err := Read(root, "ok.txt", 1024); err != nil || string(data) != "hello" {
		t.Errorf("ok: %q %v", data, err)
	}
	for name, want := range map[string]error{"bin": ErrBinary, "big": ErrTooLarge, "dir": ErrNotFile, "../x": ErrUnsafe} {
		if _, err := Read(root, name, 1024); !errors.Is(err, want) {
			t.Errorf("Read(%s) = %v, want %v", name, err, want)
		}
	}
	if _, err := Read(root, "missing", 1024); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{"a/b", "../a", "/abs", "a/../../b", "a\x00", ".", "a/./b/"} {
		f.Add(s)
	}
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, p string) {
		got, err := CheckPath(root, p)
		if err != nil {
			return
		}
		if strings.HasPrefix(got, "/") || got == ".." || strings.HasPrefix(got, "../") || strings.ContainsAny(got, "\x00\n\r") {
			t.Fatalf("CheckPath(%q) accepted %q", p, got)
		}
		abs := filepath.Join(root, filepath.FromSlash(got))
		if rel, err := filepath.Rel(root, abs); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			t.Fatalf("CheckPath(%q) = %q leaves the root", p, got)
		}
	})
}

// The caching Reader refuses exactly what Read refuses.
func TestReaderMatchesRead(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(root, "a", "b", "ok.md"), []byte("ok"), 0o644)
	os.WriteFile(filepath.Join(root, "bin"), []byte("x\x00y"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret"), 0o644)
	os.Symlink(outside, filepath.Join(root, "a", "out"))
	os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(root, "a", "link.md"))
	os.Symlink(filepath.Join(root, "a", "b", "ok.md"), filepath.Join(root, "a", "inlink.md"))
	// sizes around the one read fastRead makes (size+1 bytes) and the limit
	for name, n := range map[string]int{"empty.md": 0, "one.md": 1, "limit.md": 1024, "over.md": 1025, "page.md": 1000} {
		os.WriteFile(filepath.Join(root, "a", "b", name), bytes.Repeat([]byte("x"), n), 0o644)
	}
	os.Symlink(filepath.Join(root, "a", "b"), filepath.Join(root, "a", "in"))
	r := NewReader(root)
	for _, p := range []string{"a/b/ok.md", "bin", "a/out/secret.md", "a/link.md", "a/inlink.md", "missing.md", "../x", "a/b",
		"a/b/empty.md", "a/b/one.md", "a/b/limit.md", "a/b/over.md", "a/b/page.md", "a/in/ok.md", "a/in/../out/secret.md"} {
		for i := 0; i < 2; i++ { // the second time from the cache
			got, mtime, gerr := r.ReadWithTime(p, 1024)
			want, werr := Read(root, p, 1024)
			if string(got) != string(want) || (gerr == nil) != (werr == nil) {
				t.Errorf("%s (pass %d): Reader = %q, %v; Read = %q, %v", p, i, got, gerr, want, werr)
			}
			if st, err := os.Stat(filepath.Join(root, p)); gerr == nil && (err != nil || !st.ModTime().Equal(mtime)) {
				t.Errorf("%s (pass %d): Reader mtime %v, stat %v, %v", p, i, mtime, st, err)
			}
			if werr != nil && gerr != nil {
				for _, e := range []error{ErrUnsafe, ErrBinary, ErrNotFile, ErrTooLarge, os.ErrNotExist} {
					if errors.Is(werr, e) != errors.Is(gerr, e) {
						t.Errorf("%s: Reader error %v, Read error %v", p, gerr, werr)
					}
				}
			}
		}
	}
}

// FIFOs and devices, directly or through a symlink, are refused fast by Read
// and by the Reader: the open never blocks.
func TestReadRefusesFIFOAndDevicesFast(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink(filepath.Join(root, "fifo"), filepath.Join(root, "fifolink"))
	os.Symlink("/dev/zero", filepath.Join(root, "zero"))
	tests := []struct {
		path string
		want error
	}{
		{"fifo", ErrNotFile},
		{"fifolink", ErrNotFile},
		{"zero", ErrUnsafe},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			for name, read := range map[string]func() ([]byte, error){
				"Read":   func() ([]byte, error) { return Read(root, tt.path, 1<<20) },
				"Reader": func() ([]byte, error) { return NewReader(root).Read(tt.path, 1<<20) },
			} {
				done := make(chan error, 1)
				go func() { _, err := read(); done <- err }()
				select {
				case err := <-done:
					if !errors.Is(err, tt.want) {
						t.Errorf("%s(%s) = %v; want %v", name, tt.path, err, tt.want)
					}
				case <-time.After(2 * time.Second):
					t.Fatalf("%s(%s) hangs", name, tt.path)
				}
			}
		})
	}
}
