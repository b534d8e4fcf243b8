package safefile

import (
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// oldProbe is what a probe was before ProbeFast: CheckPathStat, a stat
// when it gave no lstat, and an open check (O_NONBLOCK, as openprobe's
// fallback) of a regular file or folder.
func oldProbe(r *Reader, root, rel string) (clean string, fi fs.FileInfo, checkErr, openErr error) {
	clean, lstat, err := r.CheckPathStat(rel)
	if err != nil {
		return clean, nil, err, nil
	}
	full := filepath.Join(root, filepath.FromSlash(clean))
	fi = lstat
	if fi == nil {
		if fi, err = os.Stat(full); err != nil {
			return clean, nil, nil, err
		}
	}
	if fi.Mode().IsRegular() || fi.IsDir() {
		fd, err := syscall.Open(full, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != nil {
			return clean, fi, nil, err
		}
		syscall.Close(fd)
	}
	return clean, fi, nil, nil
}

// probeTree makes a tree with what a probe must be careful of: symlinks
// (inside, outside, dangling, looping, on folders), a FIFO, a socket,
// unreadable files and folders, long names and deep paths.
func probeTree(t *testing.T) (root, outside string) {
	t.Helper()
	root, outside = t.TempDir(), t.TempDir()
	long := strings.Repeat("l", 255)
	for _, f := range []string{"src/a.go", "src/deep/b.go", "src/locked", "shut/c.go", "src/" + long, "x/y/z/w/v/u/t/s/r/q.go"} {
		full := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(outside, "secret"), []byte("x"), 0o644)
	os.Chmod(filepath.Join(root, "src", "locked"), 0)
	os.Chmod(filepath.Join(root, "shut"), 0o300)
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "shut"), 0o755) })
	for link, target := range map[string]string{
		"out": outside, "in": filepath.Join(root, "src"), "src/leak": filepath.Join(outside, "secret"),
		"src/ok": "a.go", "src/broken": "nope", "src/deep/up": "../../out", "src/deep/loo": "loo", "rel": "src",
	} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "src", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if l, err := net.Listen("unix", filepath.Join(root, "src", "sock")); err == nil {
		t.Cleanup(func() { l.Close() })
	}
	return root, outside
}

// ProbeFast answers only where the former probe (CheckPathStat, stat, open
// check) found a safe, existing path with no symlink on the way, and then
// gives the same lstat and the same readability; everywhere else it
// declines (the caller takes the former way). A FIFO is never opened.
func TestProbeFastMatchesCheckPathStat(t *testing.T) {
	root, _ := probeTree(t)
	long := strings.Repeat("l", 255)
	paths := []string{
		"src/a.go", "./src//a.go", "src/../src/a.go", "src/deep/b.go", "src", "src/deep", ".", "", "/etc/passwd",
		"../x", "src/../../x", "..", "a\x00b", "missing/file.txt", "src/missing", "in/a.go", "rel/a.go", "out/secret",
		"out", "src/leak", "src/ok", "src/broken", "src/deep/up", "src/deep/up/secret", "src/deep/loo",
		"src/deep/loo/x", "src/a.go/x", "src/pipe", "src/sock", "src/locked", "shut", "shut/c.go",
		"src/" + long, "src/" + long + "x", strings.Repeat("a/", 3000) + "b", "x/y/z/w/v/u/t/s/r/q.go",
	}
	answered := 0
	for pass := 0; pass < 2; pass++ {
		for _, p := range paths {
			r := NewReader(root) // a folder it knows is left to CheckPathStat
			done := make(chan struct{})
			var clean string
			var fi fs.FileInfo
			var ok bool
			go func() { defer close(done); clean, fi, ok = r.ProbeFast(p) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("ProbeFast(%q) hung", p)
			}
			wclean, wfi, werr, wopen := oldProbe(NewReader(root), root, p)
			if !ok {
				continue
			}
			answered++
			if werr != nil || wfi == nil || clean != wclean {
				t.Errorf("ProbeFast(%q) = %q, ok; former probe %q, %v, %v", p, clean, wclean, wfi, werr)
				continue
			}
			if wfi.Mode()&fs.ModeSymlink != 0 || wfi.Name() != fi.Name() || wfi.Mode() != fi.Mode() ||
				wfi.Size() != fi.Size() || !wfi.ModTime().Equal(fi.ModTime()) || wfi.IsDir() != fi.IsDir() {
				t.Errorf("ProbeFast(%q) info %q %v %d %v; former %q %v %d %v", p, fi.Name(), fi.Mode(), fi.Size(),
					fi.ModTime(), wfi.Name(), wfi.Mode(), wfi.Size(), wfi.ModTime())
			}
			ws, _ := wfi.Sys().(*syscall.Stat_t)
			gs, _ := fi.Sys().(*syscall.Stat_t)
			if ws == nil || gs == nil || *ws != *gs {
				t.Errorf("ProbeFast(%q) Sys %+v; former %+v", p, gs, ws)
			}
			if wopen != nil {
				t.Errorf("ProbeFast(%q) answered a path the open check refuses: %v", p, wopen)
			}
		}
	}
	if answered < 2*10 {
		t.Errorf("ProbeFast answered %d probes of %d: the fast way is not taken", answered, 2*len(paths))
	}
}

// A folder swapped for a symlink after a first probe is never walked
// through by ProbeFast.
func TestProbeFastFolderSwappedForLink(t *testing.T) {
	root, outside := probeTree(t)
	os.WriteFile(filepath.Join(outside, "b.go"), []byte("x"), 0o644)
	r := NewReader(root)
	if _, _, ok := r.ProbeFast("src/deep/b.go"); !ok {
		t.Fatal("ProbeFast(src/deep/b.go) declined a plain file")
	}
	if _, _, ok := r.ProbeFast("src/deep/b.go"); ok {
		t.Fatal("ProbeFast(src/deep/b.go) answered in a folder it knows (CheckPathStat's one lstat is less)")
	}
	deep := filepath.Join(root, "src", "deep")
	if err := os.Rename(deep, deep+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, deep); err != nil {
		t.Fatal(err)
	}
	// a Reader trusts the folders it walked (the tree is taken not to
	// change while it is used, as CheckPathStat's cache always did); a
	// walk made after the swap refuses the link
	if clean, fi, ok := NewReader(root).ProbeFast("src/deep/b.go"); ok {
		t.Errorf("ProbeFast walked through a folder swapped for a link: %q %v", clean, fi)
	}
}

// Where the kernel refuses the fast way (seccomp's EPERM, ENOSYS), ProbeFast
// declines every later probe.
func TestProbeFastDisabled(t *testing.T) {
	root, _ := probeTree(t)
	noProbeFast.Store(true)
	t.Cleanup(func() { noProbeFast.Store(false) })
	if _, _, ok := NewReader(root).ProbeFast("src/a.go"); ok {
		t.Error("ProbeFast answered once disabled")
	}
}

func BenchmarkProbe(b *testing.B) {
	root := b.TempDir()
	var paths []string
	for i := 0; i < 200; i++ {
		p := filepath.Join("src", "pkg"+string(rune('a'+i%20)), "sub"+string(rune('a'+i/20)), "f.go")
		os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(root, p), []byte("x"), 0o644)
		paths = append(paths, filepath.ToSlash(p))
	}
	b.Run("fast", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			r := NewReader(root)
			for _, p := range paths {
				if _, _, ok := r.ProbeFast(p); !ok {
					b.Fatal(p)
				}
			}
		}
	})
	b.Run("former", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			r := NewReader(root)
			for _, p := range paths {
				oldProbe(r, root, p)
			}
		}
	})
}
