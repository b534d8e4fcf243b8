package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// confinedTree builds a root with a regular file, a folder, and every kind
// of hostile entry, plus an outside folder the symlinks point to.
func confinedTree(t *testing.T) (root, outside string) {
	t.Helper()
	root, outside = t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "dir", "sub"), 0o755))
	must(os.WriteFile(filepath.Join(root, "dir", "ok.txt"), []byte("hello"), 0o644))
	must(os.WriteFile(filepath.Join(root, "big.txt"), []byte(strings.Repeat("x", 100)), 0o644))
	must(os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o644))
	must(os.Symlink(outside, filepath.Join(root, "outdir")))                             // symlinked parent, leading out
	must(os.Symlink(filepath.Join(root, "dir"), filepath.Join(root, "indir")))           // symlinked parent, inside
	must(os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "dir", "ln"))) // symlinked file
	must(os.Symlink("/dev/zero", filepath.Join(root, "zero")))
	must(os.Symlink(filepath.Join(outside, "nope"), filepath.Join(root, "dangling")))
	must(syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	return root, outside
}

func TestOpenConfined(t *testing.T) {
	root, outside := confinedTree(t)
	tests := []struct {
		name string
		rel  string
		flag int
		// want: "" success, else the kind of error: "unsafe", "symlink",
		// "notfile", "notdir", "notexist"
		want string
		what string // for a refusal, the text of the message
	}{
		{"regular read", "dir/ok.txt", os.O_RDONLY, "", ""},
		{"regular write", "dir/ok.txt", os.O_WRONLY | os.O_APPEND, "", ""},
		{"create with parents", "new/a/b.txt", os.O_WRONLY | os.O_CREATE, "", ""},
		{"missing", "dir/missing", os.O_RDONLY, "notexist", ""},
		{"missing parent, no create", "nodir/x", os.O_RDONLY, "notexist", ""},
		{"symlinked parent out", "outdir/secret", os.O_RDONLY, "symlink", "refused: outdir is a symlink"},
		{"symlinked parent out, create", "outdir/new", os.O_WRONLY | os.O_CREATE, "symlink", "refused: outdir is a symlink"},
		{"symlinked parent in", "indir/ok.txt", os.O_RDONLY, "symlink", "refused: indir is a symlink"},
		{"symlinked file", "dir/ln", os.O_WRONLY | os.O_APPEND, "symlink", "refused: dir/ln is a symlink"},
		{"symlinked file, create", "dir/ln", os.O_WRONLY | os.O_CREATE | os.O_APPEND, "symlink", "refused: dir/ln is a symlink"},
		{"dev zero symlink", "zero", os.O_RDONLY, "symlink", "refused: zero is a symlink"},
		{"dangling symlink", "dangling", os.O_RDONLY, "symlink", "refused: dangling is a symlink"},
		{"dangling symlink, create", "dangling", os.O_WRONLY | os.O_CREATE, "symlink", "refused: dangling is a symlink"},
		{"fifo read", "fifo", os.O_RDONLY, "notfile", "refused: fifo is a FIFO"},
		{"fifo write", "fifo", os.O_WRONLY, "notfile", "refused: fifo is a FIFO"},
		{"fifo create", "fifo", os.O_RDWR | os.O_CREATE, "notfile", "refused: fifo is a FIFO"},
		{"folder", "dir/sub", os.O_RDONLY, "notfile", "refused: dir/sub is a folder"},
		{"file as parent", "dir/ok.txt/x", os.O_RDONLY, "notdir", "refused: dir/ok.txt is a regular file"},
		{"dotdot", "../x", os.O_RDONLY, "unsafe", ""},
		{"inner dotdot", "dir/../../x", os.O_WRONLY | os.O_CREATE, "unsafe", ""},
		{"absolute", "/etc/passwd", os.O_RDONLY, "unsafe", ""},
		{"empty", "", os.O_RDONLY, "unsafe", ""},
		{"root itself", ".", os.O_RDONLY, "unsafe", ""},
		{"nul", "a\x00b", os.O_RDONLY, "unsafe", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			f, err := OpenConfined(root, tt.rel, tt.flag, 0o644)
			if time.Since(start) > time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			if f != nil {
				f.Close()
			}
			var wantErr error
			switch tt.want {
			case "":
				if err != nil {
					t.Fatalf("OpenConfined(%q) = %v", tt.rel, err)
				}
				return
			case "unsafe":
				wantErr = ErrUnsafe
			case "symlink":
				wantErr = ErrSymlink
			case "notfile":
				wantErr = ErrNotFile
			case "notdir":
				wantErr = ErrNotDir
			case "notexist":
				wantErr = fs.ErrNotExist
			}
			if !errors.Is(err, wantErr) {
				t.Fatalf("OpenConfined(%q) = %v; want %v", tt.rel, err, wantErr)
			}
			if tt.want != "notexist" && !errors.Is(err, ErrUnsafe) {
				t.Errorf("OpenConfined(%q) = %v; does not match ErrUnsafe", tt.rel, err)
			}
			if tt.what != "" && err.Error() != tt.what {
				t.Errorf("OpenConfined(%q) message = %q; want %q", tt.rel, err.Error(), tt.what)
			}
		})
	}
	// nothing was created or changed outside
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("outside folder now holds %d entries", len(entries))
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "secret" {
		t.Errorf("outside file changed: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(root, "new", "a", "b.txt")); err != nil {
		t.Errorf("created file missing: %v", err)
	}
}

func TestReadConfined(t *testing.T) {
	root, _ := confinedTree(t)
	tests := []struct {
		rel     string
		max     int64
		want    string
		wantErr error
	}{
		{"dir/ok.txt", 10, "hello", nil},
		{"dir/ok.txt", 0, "hello", nil},
		{"big.txt", 100, strings.Repeat("x", 100), nil},
		{"big.txt", 99, "", ErrTooLarge},
		{"zero", 1 << 20, "", ErrSymlink},
		{"fifo", 1 << 20, "", ErrNotFile},
		{"dir/ln", 1 << 20, "", ErrSymlink},
		{"outdir/secret", 1 << 20, "", ErrSymlink},
		{"../etc/passwd", 1 << 20, "", ErrUnsafe},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			got, err := ReadConfined(root, tt.rel, tt.max)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ReadConfined(%q) = %q, %v; want %v", tt.rel, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("ReadConfined(%q) = %q, %v; want %q", tt.rel, got, err, tt.want)
			}
		})
	}
}

func TestMkdirRenameRemoveConfined(t *testing.T) {
	root, outside := confinedTree(t)
	tests := []struct {
		name    string
		op      func() error
		wantErr error
	}{
		{"mkdir new", func() error { return MkdirAllConfined(root, "a/b/c") }, nil},
		{"mkdir existing", func() error { return MkdirAllConfined(root, "dir/sub") }, nil},
		{"mkdir through symlink", func() error { return MkdirAllConfined(root, "outdir/x") }, ErrSymlink},
		{"mkdir over file", func() error { return MkdirAllConfined(root, "dir/ok.txt") }, ErrNotDir},
		{"mkdir escaping", func() error { return MkdirAllConfined(root, "../x") }, ErrUnsafe},
		{"rename", func() error { return RenameConfined(root, "big.txt", "a/b/c/big.txt") }, nil},
		{"rename a symlink moves the link", func() error { return RenameConfined(root, "dir/ln", "a/ln") }, nil},
		{"rename out of symlinked folder", func() error { return RenameConfined(root, "outdir/secret", "a/secret") }, ErrSymlink},
		{"rename into symlinked folder", func() error { return RenameConfined(root, "dir/ok.txt", "outdir/ok.txt") }, ErrSymlink},
		{"rename escaping", func() error { return RenameConfined(root, "dir/ok.txt", "../ok.txt") }, ErrUnsafe},
		{"rename missing", func() error { return RenameConfined(root, "nope", "a/nope") }, fs.ErrNotExist},
		{"remove symlink itself", func() error { return RemoveConfined(root, "zero") }, nil},
		{"remove through symlink", func() error { return RemoveConfined(root, "outdir/secret") }, ErrSymlink},
		{"remove missing", func() error { return RemoveConfined(root, "nope") }, fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.op()
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("got %v; want %v", err, tt.wantErr)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(outside, "secret")); err != nil || string(b) != "secret" {
		t.Errorf("outside file changed: %q, %v", b, err)
	}
	if fi, err := os.Lstat(filepath.Join(root, "a", "ln")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("moved symlink: %v, %v", fi, err)
	}
	if _, err := os.Lstat(filepath.Join(root, "zero")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("symlink zero not removed: %v", err)
	}
}

func TestDirLinkAndLstat(t *testing.T) {
	root, _ := confinedTree(t)
	d, err := OpenDir(root, "dir", false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Link("ok.txt", d, "ok2.txt"); err != nil {
		t.Fatal(err)
	}
	if err := d.Link("ok.txt", d, "ok2.txt"); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second link: %v; want ErrExist", err)
	}
	mode, size, err := d.Lstat("ln")
	if err != nil || mode&os.ModeSymlink == 0 {
		t.Fatalf("Lstat(ln) = %v, %d, %v", mode, size, err)
	}
	if _, _, err := d.Lstat("x/y"); !errors.Is(err, ErrUnsafe) {
		t.Fatalf("Lstat(x/y) = %v; want ErrUnsafe", err)
	}
	if _, err := d.OpenFile("../big.txt", os.O_RDONLY, 0); !errors.Is(err, ErrUnsafe) {
		t.Fatalf("OpenFile(../big.txt) = %v; want ErrUnsafe", err)
	}
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
	if data, err := d.ReadFile("ok2.txt", 5); err != nil || string(data) != "hello" {
		t.Fatalf("ReadFile = %q, %v", data, err)
	}
}
