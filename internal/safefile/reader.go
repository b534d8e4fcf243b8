package safefile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
)

// Reader reads many files below one root, as Read does, remembering which
// folders it has already found not to be symlinks so that scanning
// thousands of files does not resolve the same folders again. Make one per
// scan: the cache assumes the tree does not change while it is used. A
// Reader is safe for concurrent use.
type Reader struct {
	root     string
	rootOnce sync.Once
	rootReal string
	// dirs holds the folders (clean slash paths relative to root) found
	// to exist with no symlink on the way: a folder is cached only once
	// every folder above it is (a symlink inside the root is fine but never
	// cached, nor is anything below it)
	dirs sync.Map
	// probe is the root's descriptor ProbeFast looks paths up from
	probe probeRoot
}

// NewReader returns a Reader for root.
func NewReader(root string) *Reader { return &Reader{root: root} }

func (r *Reader) real() string {
	r.rootOnce.Do(func() {
		real, err := filepath.EvalSymlinks(r.root)
		if err != nil {
			real = r.root
		}
		r.rootReal = real
	})
	return r.rootReal
}

// Read is safefile.Read with cached folder checks and a lean read: the file
// itself is opened with O_NOFOLLOW (a final symlink takes the full, checked
// path), then one fstat and one read sized by it.
func (r *Reader) Read(rel string, max int64) ([]byte, error) {
	data, _, err := r.ReadWithTime(rel, max)
	return data, err
}

// ReadWithTime is Read that also returns the file's modification time (UTC)
// from the same fstat, sparing the caller a stat of its own.
func (r *Reader) ReadWithTime(rel string, max int64) ([]byte, time.Time, error) {
	clean, err := r.checkFolders(rel)
	if err != nil {
		return nil, time.Time{}, err
	}
	full := filepath.Join(r.root, filepath.FromSlash(clean))
	if data, mtime, done, err := fastRead(full, clean, max); done {
		return data, mtime, err
	}
	data, err := Read(r.root, rel, max)
	var mtime time.Time
	if fi, serr := os.Stat(full); serr == nil {
		mtime = fi.ModTime().UTC()
	}
	return data, mtime, err
}

// CheckPath is safefile.CheckPath with the folder checks cached: the
// folders above rel are resolved once per Reader (for every path below
// them), the last element on every call. Same results, same errors.
func (r *Reader) CheckPath(rel string) (string, error) {
	clean, _, err := r.CheckPathStat(rel)
	return clean, err
}

// CheckPathStat is CheckPath that also returns what the check learnt of the
// path's last element: its lstat when it exists and is not a symlink (what
// a stat would give), nil otherwise (missing, a symlink, or ".").
func (r *Reader) CheckPathStat(rel string) (string, fs.FileInfo, error) {
	clean, err := r.checkFolders(rel)
	if err != nil || clean == "." {
		return clean, nil, err
	}
	full := filepath.Join(r.root, filepath.FromSlash(clean))
	fi, err := fastsys.Lstat(full)
	if err != nil {
		return clean, nil, nil // missing (yet)
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		return clean, fi, nil
	}
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %s is a broken or looping symlink", ErrUnsafe, clean)
	}
	if !within(r.real(), real) {
		return "", nil, fmt.Errorf("%w: %s is a symlink leading out of the repository", ErrUnsafe, clean)
	}
	return clean, nil, nil
}

// Exists reports whether rel is a safe path (as CheckPath) naming
// something that exists, following a final symlink that stays inside the
// root. The folders are checked through the Reader's cache, so a path below
// known folders costs one lstat (and a stat only for a symlink).
func (r *Reader) Exists(rel string) bool {
	clean, err := r.checkFolders(rel)
	if err != nil {
		return false
	}
	full := filepath.Join(r.root, filepath.FromSlash(clean))
	fi, err := fastsys.Lstat(full)
	if err != nil {
		return false
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		return true
	}
	real, err := filepath.EvalSymlinks(full)
	if err != nil || !within(r.real(), real) {
		return false
	}
	_, err = os.Stat(full)
	return err == nil
}

// checkFolders is CheckPath without resolving the last element (Read opens
// it with O_NOFOLLOW), with the folder checks cached.
func (r *Reader) checkFolders(rel string) (string, error) {
	clean, err := cleanRel(rel)
	if err != nil {
		return "", err
	}
	last := strings.LastIndexByte(clean, '/')
	if last < 0 {
		return clean, nil // directly in the root: no folder to check
	}
	if _, ok := r.dirs.Load(clean[:last]); ok {
		return clean, nil // the whole folder was checked: one look-up, no walk
	}
	cur := r.root
	linked := false // a symlink is on the way: nothing below it is cached
	for end := 0; end < last; {
		next := strings.IndexByte(clean[end+1:], '/')
		if next < 0 {
			next = last
		} else {
			next += end + 1
		}
		start := end
		if start > 0 {
			start++ // past the '/'
		}
		part, dir := clean[start:next], clean[:next]
		end = next
		cur = filepath.Join(cur, part)
		if _, ok := r.dirs.Load(dir); ok && !linked {
			continue
		}
		fi, err := fastsys.Lstat(cur)
		if err != nil {
			return clean, nil // does not exist: the open reports it
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(cur)
			if err != nil {
				return "", fmt.Errorf("%w: %s is a broken or looping symlink", ErrUnsafe, clean)
			}
			if !within(r.real(), real) {
				return "", fmt.Errorf("%w: %s is a symlink leading out of the repository", ErrUnsafe, clean)
			}
			linked = true // a symlink inside the repository: fine, but not cached
			continue
		}
		if !linked {
			r.dirs.Store(dir, true)
		}
	}
	return clean, nil
}

// fastRead reads a regular file with raw system calls. done is false when
// the caller must take the slow, fully checked path (a symlink, a file that
// grew while read, an open error the slow path reports better).
func fastRead(full, clean string, max int64) (data []byte, mtime time.Time, done bool, err error) {
	fd, err := fastsys.Openat(unix.AT_FDCWD, full, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, mtime, false, nil
	}
	defer fastsys.Close(fd)
	var st unix.Stat_t
	if err := fastsys.Fstat(fd, &st); err != nil {
		return nil, mtime, false, nil
	}
	fst := fileStat(&st)
	mtime = fst.Mtime
	if !fst.Regular() {
		return nil, mtime, true, fmt.Errorf("%w: %s", ErrNotFile, clean)
	}
	if max > 0 && fst.Size > max {
		return nil, mtime, true, fmt.Errorf("%w: %s is %d bytes (limit %d)", ErrTooLarge, clean, fst.Size, max)
	}
	data, ok := readSized(fd, fst.Size)
	if !ok {
		return nil, mtime, false, nil // the slow path re-checks a file that grew
	}
	if looksBinary(data) {
		return nil, mtime, true, fmt.Errorf("%w: %s", ErrBinary, clean)
	}
	return data, mtime, true, nil
}
