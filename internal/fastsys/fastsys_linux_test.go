package fastsys

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// both runs f with the calls ordinary, then raw, and returns the two
// results.
func both[T any](t *testing.T, f func() T) (ordinary, raw T) {
	t.Helper()
	defer Forbid()
	Forbid()
	ordinary = f()
	Allow()
	raw = f()
	return ordinary, raw
}

// tree makes a folder with a file, a symlink to it, a subfolder and a
// FIFO, and returns it opened (O_PATH-less, as safefile opens folders).
func tree(t *testing.T) (dir string, dirfd int) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("hello, world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("f", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return dir, fd
}

type opened struct {
	ok   bool
	err  error
	stat unix.Stat_t
	data string
}

// TestRawCallsAnswerAsOrdinary: each raw call gives what its
// golang.org/x/sys/unix namesake gives, errors included, for the shapes a
// hostile checkout can take (a symlink where a file was, a FIFO, a folder,
// a missing name, a path escaping its root).
func TestRawCallsAnswerAsOrdinary(t *testing.T) {
	dir, dirfd := tree(t)
	openRead := func(name string, flags int) func() opened {
		return func() opened {
			fd, err := Openat(dirfd, name, flags|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
			if err != nil {
				return opened{err: err}
			}
			defer Close(fd)
			var o opened
			if o.err = Fstat(fd, &o.stat); o.err != nil {
				return o
			}
			o.stat.Atim = unix.Timespec{} // a read may move it
			buf := make([]byte, 64)
			n, err := Read(fd, buf)
			o.ok, o.err, o.data = true, err, string(buf[:max(n, 0)])
			return o
		}
	}
	for _, tc := range []struct {
		name  string
		path  string
		flags int
		want  error
	}{
		{"a regular file", "f", unix.O_RDONLY | unix.O_NOFOLLOW, nil},
		{"a symlink, not followed", "link", unix.O_RDONLY | unix.O_NOFOLLOW, unix.ELOOP},
		{"a symlink, followed", "link", unix.O_RDONLY, nil},
		{"a folder, read", "sub", unix.O_RDONLY, unix.EISDIR},
		{"a FIFO, opened without blocking (no writer: the end at once)", "fifo", unix.O_RDONLY | unix.O_NOFOLLOW, nil},
		{"a missing name", "nothing", unix.O_RDONLY, unix.ENOENT},
		{"below a file", "f/x", unix.O_RDONLY, unix.ENOTDIR},
		{"a NUL in the name", "f\x00x", unix.O_RDONLY, unix.EINVAL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, r := both(t, openRead(tc.path, tc.flags))
			if !reflect.DeepEqual(o, r) {
				t.Errorf("ordinary %+v\nraw      %+v", o, r)
			}
			if !errors.Is(r.err, tc.want) && !(tc.want == nil && r.err == nil) {
				t.Errorf("raw error %v, want %v", r.err, tc.want)
			}
		})
	}
	t.Run("fstatat", func(t *testing.T) {
		for _, name := range []string{"f", "link", "sub", "fifo", "nothing", "f/x"} {
			type res struct {
				st  unix.Stat_t
				err error
			}
			o, r := both(t, func() res {
				var x res
				x.err = Fstatat(dirfd, name, &x.st, unix.AT_SYMLINK_NOFOLLOW)
				return x
			})
			if !reflect.DeepEqual(o, r) {
				t.Errorf("%s: ordinary %+v, raw %+v", name, o, r)
			}
		}
	})
	t.Run("lstat", func(t *testing.T) {
		for _, name := range []string{"f", "link", "sub", "fifo", "nothing", "f/x", "sub/"} {
			type res struct {
				name, mode string
				size       int64
				mtime      int64
				sys        syscall.Stat_t
				err        string
			}
			o, r := both(t, func() res {
				fi, err := Lstat(filepath.Join(dir, name))
				if err != nil {
					return res{err: err.Error()}
				}
				return res{fi.Name(), fi.Mode().String(), fi.Size(), fi.ModTime().UnixNano(), *fi.Sys().(*syscall.Stat_t), ""}
			})
			if o != r {
				t.Errorf("%s: os.Lstat %+v, raw %+v", name, o, r)
			}
		}
	})
	t.Run("faccessat2", func(t *testing.T) {
		for _, name := range []string{"f", "link", "sub", "nothing"} {
			o, r := both(t, func() error { return Faccessat2(dirfd, name, unix.R_OK, unix.AT_EACCESS) })
			if o != r {
				t.Errorf("%s: ordinary %v, raw %v", name, o, r)
			}
		}
	})
	t.Run("openat2 beneath", func(t *testing.T) {
		how := unix.OpenHow{Flags: unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_BENEATH}
		for _, name := range []string{"f", "link", "../x", "/etc/passwd", "sub/../f"} {
			o, r := both(t, func() error {
				fd, err := Openat2(dirfd, name, &how)
				if err == nil {
					unix.Close(fd)
				}
				return err
			})
			if o != r {
				t.Errorf("%s: ordinary %v, raw %v", name, o, r)
			}
		}
	})
	t.Run("getdents", func(t *testing.T) {
		o, r := both(t, func() []byte {
			fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			var all []byte
			buf := make([]byte, 4096)
			for {
				n, err := Getdents(fd, buf)
				if err != nil || n <= 0 {
					return all
				}
				all = append(all, buf[:n]...)
			}
		})
		if len(o) == 0 || !reflect.DeepEqual(o, r) {
			t.Errorf("ordinary %d bytes, raw %d bytes, not the same", len(o), len(r))
		}
	})
	t.Run("a closed descriptor", func(t *testing.T) {
		o, r := both(t, func() [3]error {
			var st unix.Stat_t
			_, rerr := Read(-1, make([]byte, 1))
			return [3]error{Fstat(-1, &st), rerr, Close(-1)}
		})
		if o != r || r[0] != unix.EBADF {
			t.Errorf("ordinary %v, raw %v", o, r)
		}
	})
}

// TestStatTypesAlike: the raw stat calls fill a syscall.Stat_t through a
// *unix.Stat_t (os.Lstat's type behind Sys is syscall's); both must be the
// kernel's struct stat, field for field.
func TestStatTypesAlike(t *testing.T) {
	var s syscall.Stat_t
	var u unix.Stat_t
	if unsafe.Sizeof(s) != unsafe.Sizeof(u) {
		t.Fatalf("sizes %d and %d", unsafe.Sizeof(s), unsafe.Sizeof(u))
	}
	offs := [][2]uintptr{
		{unsafe.Offsetof(s.Dev), unsafe.Offsetof(u.Dev)},
		{unsafe.Offsetof(s.Ino), unsafe.Offsetof(u.Ino)},
		{unsafe.Offsetof(s.Mode), unsafe.Offsetof(u.Mode)},
		{unsafe.Offsetof(s.Uid), unsafe.Offsetof(u.Uid)},
		{unsafe.Offsetof(s.Size), unsafe.Offsetof(u.Size)},
		{unsafe.Offsetof(s.Mtim), unsafe.Offsetof(u.Mtim)},
		{unsafe.Offsetof(s.Ctim), unsafe.Offsetof(u.Ctim)},
	}
	for i, o := range offs {
		if o[0] != o[1] {
			t.Errorf("field %d at %d and %d", i, o[0], o[1])
		}
	}
}

// TestAllowForbidHold: the switch itself; a Hold outlasts any Allow
// until it is released (an in-process status run by the MCP server, whose
// signal handler holds them off, must not turn the calls raw).
func TestAllowForbidHold(t *testing.T) {
	defer Forbid()
	steps := []struct {
		do   func()
		want bool
	}{
		{func() {}, false},
		{Allow, true},
		{Forbid, false},
		{Allow, true},
	}
	for i, s := range steps {
		s.do()
		if Allowed() != s.want {
			t.Fatalf("step %d: allowed %v", i, Allowed())
		}
	}
	r1 := Hold()
	if Allowed() {
		t.Fatal("allowed after Hold")
	}
	r2 := Hold()
	Allow()
	r1()
	r1() // once only
	Allow()
	if Allowed() {
		t.Fatal("allowed with a Hold not released")
	}
	r2()
	if Allowed() {
		t.Fatal("allowed again by release alone")
	}
	Allow()
	if !Allowed() {
		t.Fatal("not allowed once every Hold was released")
	}
}
