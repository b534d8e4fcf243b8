package gitobj

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/go-git/go-billy/v5"
)

// Reading .git as git reads it. Every file of a .git folder that orchestrate
// or go-git opens — HEAD, config, packed-refs, shallow, the refs, commondir,
// a .git file, the index, the commit-graph, pack indexes and packs, loose
// objects, objects/info/alternates — is opened without blocking (a FIFO or a
// device opens at once), must be a regular file (checked with fstat on the
// open descriptor), and the small ones are read with a size bound. Symlinks
// are followed, as git follows them (the repo tool links .git/config,
// .git/objects and .git/refs into a shared folder); what they reach must
// still be a regular file.

// Size bounds of the files read whole from a .git folder.
const (
	// maxRefFile bounds HEAD, a ref, a .git file, commondir and gitdir.
	maxRefFile = 64 << 10
	// maxConfigFile bounds config and objects/info/alternates (go-git
	// decodes a config whole).
	maxConfigFile = 4 << 20
	// maxListFile bounds packed-refs (scanned line by line for each ref
	// looked up there).
	maxListFile = 64 << 20
	// maxShallowFile bounds shallow (every boundary is kept in memory:
	// 400,000 of them).
	maxShallowFile = 16 << 20
)

// ErrNoGit is returned by Open when the folder is not inside a git repository.
var ErrNoGit = errors.New("not a git repository")

// ErrNotRegular is a file of a .git folder that is not a regular file (a
// FIFO, a device, a socket, a folder where a file belongs).
var ErrNotRegular = errors.New("not a regular file")

// ErrGitFileTooLarge is a file of a .git folder over its size bound.
var ErrGitFileTooLarge = errors.New("git file too large")

// gitFileLimit returns the size bound of the file name (slash-separated,
// relative to a .git folder), 0 for a file that is not read whole (objects,
// packs, the index, the commit-graph: those readers bound what they read).
func gitFileLimit(name string) int64 {
	name = strings.TrimPrefix(path.Clean(filepath.ToSlash(name)), "/")
	switch {
	case name == "config", name == "config.worktree", name == "objects/info/alternates":
		return maxConfigFile
	case name == "packed-refs":
		return maxListFile
	case name == "shallow":
		return maxShallowFile
	case name == "HEAD", name == "commondir", name == "gitdir", name == "ORIG_HEAD",
		name == "FETCH_HEAD", name == "MERGE_HEAD", strings.HasPrefix(name, "refs/"):
		return maxRefFile
	}
	return 0
}

// OpenGitFile opens the file full read-only without blocking and returns it
// with its FileInfo; anything but a regular file, or one over max bytes (max
// > 0), is refused.
func OpenGitFile(full string, max int64) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(full, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("stat %s: %w", full, err)
	}
	if err := checkGitFile(full, fi, max); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// checkGitFile refuses what is not a regular file, or one over max bytes
// (max > 0).
func checkGitFile(full string, fi fs.FileInfo, max int64) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w (%s)", full, ErrNotRegular, fileKind(fi.Mode()))
	}
	if max > 0 && fi.Size() > max {
		return fmt.Errorf("%s: %w: %d bytes (limit %d)", full, ErrGitFileTooLarge, fi.Size(), max)
	}
	return nil
}

// fileKind names what a file that is not regular is, for messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a file"
}

// ReadGitFile reads the file full of a .git folder (HEAD, a ref, a .git
// file, commondir) as orchestrate reads every such file: opened without
// blocking, refused unless it is a regular file, and at most max bytes (64
// KiB when max <= 0), checked before reading and again while reading.
func ReadGitFile(full string, max int64) ([]byte, error) {
	if max <= 0 {
		max = maxRefFile
	}
	f, _, err := OpenGitFile(full, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", full, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w: grew past %d bytes while read", full, ErrGitFileTooLarge, max)
	}
	return data, nil
}

// SafeFS is the .git file system handed to go-git: every file opened for
// reading is opened without blocking, must be a regular file, and the files
// go-git reads whole (see gitFileLimit) are refused over their bound and cut
// off past it while read. Opens for writing (never made by orchestrate) pass
// through.
type SafeFS struct {
	billy.Filesystem
}

// Open opens name for reading (see safeFS).
func (s SafeFS) Open(name string) (billy.File, error) {
	return s.OpenFile(name, os.O_RDONLY, 0)
}

// OpenFile opens name (see safeFS).
func (s SafeFS) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 {
		return s.Filesystem.OpenFile(name, flag, perm)
	}
	f, err := s.Filesystem.OpenFile(name, flag|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, err
	}
	full := s.Filesystem.Join(s.Filesystem.Root(), name)
	var fi fs.FileInfo
	if st, ok := f.(interface{ Stat() (fs.FileInfo, error) }); ok {
		fi, err = st.Stat()
	} else {
		fi, err = s.Filesystem.Stat(name)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %s: %w", full, err)
	}
	max := gitFileLimit(name)
	if err := checkGitFile(full, fi, max); err != nil {
		f.Close()
		return nil, err
	}
	if max > 0 {
		return &boundedFile{File: f, left: max, name: full}, nil
	}
	return f, nil
}

// Chroot keeps the checks in the folder returned (go-git reaches the
// alternates' object folders through it).
func (s SafeFS) Chroot(p string) (billy.Filesystem, error) {
	c, err := s.Filesystem.Chroot(p)
	if err != nil {
		return nil, err
	}
	return SafeFS{c}, nil
}

// boundedFile is a file go-git reads whole, cut off past its bound: a file
// that grows while read is an error rather than an endless read.
type boundedFile struct {
	billy.File
	left int64
	name string
}

func (b *boundedFile) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, fmt.Errorf("%s: %w: grew while read", b.name, ErrGitFileTooLarge)
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.File.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, fmt.Errorf("%s: %w: grew while read", b.name, ErrGitFileTooLarge)
	}
	return n, err
}

// DotGit is where a work tree's repository lives.
type DotGit struct {
	Root    string // the work tree
	gitfile string // the .git file, "" when .git is a folder
	GitDir  string // the git folder (.git, or the one a .git file names)
	Common  string // the common git folder of a linked worktree, else ""
}

// FindDotGit finds the repository that contains dir (dir itself or a
// parent), as go-git's DetectDotGit does, reading a .git file and commondir
// through ReadGitFile. No .git up to the file system's root is ErrNoGit.
func FindDotGit(dir string) (DotGit, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return DotGit{}, err
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		abs = filepath.Dir(abs)
	}
	for {
		p := filepath.Join(abs, ".git")
		fi, err := os.Stat(p)
		if err == nil {
			return dotGitAt(abs, p, fi)
		}
		if !os.IsNotExist(err) {
			return DotGit{}, err
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return DotGit{}, ErrNoGit
		}
		abs = parent
	}
}

// dotGitAt reads the .git entry p (fi) of the work tree root.
func dotGitAt(root, p string, fi fs.FileInfo) (DotGit, error) {
	d := DotGit{Root: root, GitDir: p}
	if !fi.IsDir() {
		data, err := ReadGitFile(p, maxRefFile)
		if err != nil {
			return DotGit{}, err
		}
		line, _, _ := strings.Cut(string(data), "\n")
		target, ok := strings.CutPrefix(line, "gitdir: ")
		if !ok {
			return DotGit{}, fmt.Errorf("%s: .git file has no gitdir: prefix", p)
		}
		target = strings.TrimSpace(target)
		if !filepath.IsAbs(target) {
			target = filepath.Join(root, target)
		}
		d.gitfile, d.GitDir = p, target
	}
	fi, err := os.Stat(d.GitDir)
	if err != nil {
		if os.IsNotExist(err) {
			return DotGit{}, fmt.Errorf("git folder %s: %w", d.GitDir, ErrNoGit)
		}
		return DotGit{}, err
	}
	if !fi.IsDir() {
		return DotGit{}, fmt.Errorf("git folder %s: not a folder", d.GitDir)
	}
	data, err := ReadGitFile(filepath.Join(d.GitDir, "commondir"), maxRefFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return DotGit{}, err
	default:
		if c := strings.TrimSpace(string(data)); c != "" {
			if !filepath.IsAbs(c) {
				c = filepath.Join(d.GitDir, c)
			}
			if fi, err := os.Stat(c); err != nil || !fi.IsDir() {
				return DotGit{}, fmt.Errorf("common git folder %s of %s: repository incomplete", c, d.GitDir)
			}
			d.Common = c
		}
	}
	return d, nil
}

// CheckHead reads HEAD and checks the loose ref it names, packed-refs and
// the alternates file, as files of .git are read (see openGitFile). go-git
// takes a ref it cannot read for a missing one, and alternates it cannot
// read for none: checked here, a FIFO, a device or a huge file there is a
// clear error rather than "no commits" or "object not found".
func CheckHead(d DotGit) error {
	head, err := ReadGitFile(filepath.Join(d.GitDir, "HEAD"), maxRefFile)
	if err != nil {
		return err
	}
	common := d.GitDir
	if d.Common != "" {
		common = d.Common
	}
	check := func(full string, max int64) error {
		f, _, err := OpenGitFile(full, max)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		return f.Close()
	}
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref:"); ok {
		ref = strings.TrimSpace(ref)
		if strings.HasPrefix(ref, "refs/") && !strings.Contains(ref, "..") {
			if err := check(filepath.Join(common, filepath.FromSlash(ref)), maxRefFile); err != nil {
				return err
			}
		}
	}
	if err := check(filepath.Join(common, "packed-refs"), maxListFile); err != nil {
		return err
	}
	return check(filepath.Join(common, "objects", "info", "alternates"), maxConfigFile)
}

// GitFile is the .git file d came from, "" when .git is a folder.
func (d DotGit) GitFile() string { return d.gitfile }
