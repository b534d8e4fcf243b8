// Package safefile reads files that other tools wrote, defensively: paths are
// confined to a root, symlinks may not leave it, and files that are too large
// or binary are refused before they are parsed.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
)

// Errors returned by Check and Read, matched with errors.Is.
var (
	ErrUnsafe   = errors.New("unsafe path")
	ErrTooLarge = errors.New("file too large")
	ErrBinary   = errors.New("binary file")
	ErrNotFile  = errors.New("not a regular file")
)

// CheckPath reports whether rel is a safe repository-relative path: not
// empty, no NUL or newline, not absolute, not escaping the root with "..",
// and not resolving (through symlinks) to a place outside root. It returns the
// cleaned slash-separated path. A path that does not exist is fine (the
// caller reports it missing); only the parts that exist are resolved.
func CheckPath(root, rel string) (string, error) {
	clean, err := cleanRel(rel)
	if err != nil {
		return "", err
	}
	if err := checkLinks(root, clean); err != nil {
		return "", err
	}
	return clean, nil
}

// cleanRel is the lexical part of CheckPath.
func cleanRel(rel string) (string, error) {
	if rel == "" {
		return "", fmt.Errorf("%w: empty path", ErrUnsafe)
	}
	if strings.ContainsAny(rel, "\x00\n\r") {
		return "", fmt.Errorf("%w: control character in %q", ErrUnsafe, rel)
	}
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) || (len(rel) > 1 && rel[1] == ':') {
		return "", fmt.Errorf("%w: absolute path %q", ErrUnsafe, rel)
	}
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%w: %q leaves the repository", ErrUnsafe, rel)
	}
	for _, part := range strings.Split(clean, "/") {
		if part == ".." {
			return "", fmt.Errorf("%w: %q leaves the repository", ErrUnsafe, rel)
		}
	}
	return clean, nil
}

// checkLinks resolves each existing prefix of clean under root and fails if a
// symlink takes it outside root.
func checkLinks(root, clean string) error {
	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil {
		rootReal = root
	}
	cur := root
	for _, part := range strings.Split(clean, "/") {
		if part == "." || part == "" {
			continue
		}
		cur = filepath.Join(cur, part)
		fi, err := fastsys.Lstat(cur)
		if err != nil {
			return nil // does not exist (yet): nothing further to resolve
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		real, err := filepath.EvalSymlinks(cur)
		if err != nil {
			return fmt.Errorf("%w: %s is a broken or looping symlink", ErrUnsafe, clean)
		}
		if !within(rootReal, real) {
			return fmt.Errorf("%w: %s is a symlink leading out of the repository", ErrUnsafe, clean)
		}
	}
	return nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// OpenNonBlocking opens name read-only and without blocking, with the extra
// open flags flag (such as syscall.O_NOFOLLOW), and returns it with its
// FileInfo. A FIFO or a device opens at once instead of hanging: the caller
// refuses what is not a regular file, and closes f.
func OpenNonBlocking(name string, flag int) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|flag, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// Read reads root/rel after CheckPath, refusing non-regular files, files over
// max bytes (checked before reading, and again while reading in case the file
// grows) and binary files (a NUL byte in the first 8 KiB).
func Read(root, rel string, max int64) ([]byte, error) {
	clean, err := CheckPath(root, rel)
	if err != nil {
		return nil, err
	}
	full := filepath.Join(root, filepath.FromSlash(clean))
	// non-blocking, so that a FIFO (reached through a symlink inside the
	// repository) is refused below instead of hanging the open
	f, fi, err := OpenNonBlocking(full, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s", ErrNotFile, clean)
	}
	if max > 0 && fi.Size() > max {
		return nil, fmt.Errorf("%w: %s is %d bytes (limit %d)", ErrTooLarge, clean, fi.Size(), max)
	}
	limit := max
	if limit <= 0 {
		limit = fi.Size() + 1
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if max > 0 && int64(len(data)) > max {
		return nil, fmt.Errorf("%w: %s grew past %d bytes while reading", ErrTooLarge, clean, max)
	}
	if looksBinary(data) {
		return nil, fmt.Errorf("%w: %s", ErrBinary, clean)
	}
	return data, nil
}
