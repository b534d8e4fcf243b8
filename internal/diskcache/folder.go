package diskcache

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The cache folder is orchestrate's alone. It holds orchestrate's marker
// (markerName, with exactly markerContent: a cache directory tag, so that
// backup tools skip the folder) once orchestrate has used it. A folder
// without it is used only when orchestrate creates it, or when it holds
// nothing but orchestrate's own files (empty, or the tables of an earlier
// version): orchestrate then writes the marker. Any other folder — one
// holding a file of the user's, "/", the home folder itself — is refused,
// and the run goes on without the cache. Pruning removes only files named
// as tables whose content starts as a table does, and stale temporary files
// of its own writes, never anything else.

// markerName and markerContent are the marker of a cache folder.
const markerName = "CACHEDIR.TAG"

var markerContent = []byte("Signature: 8a477f597d28d172789f06886806bc55\n" +
	"# This file is a cache directory tag created by orchestrate.\n" +
	"# For information about cache directory tags, see https://bford.info/cachedir/\n")

// errNotMarked is Open's answer for a folder without the marker: nothing
// of it is read (a later Write claims it when it may).
var errNotMarked = errors.New("not marked as orchestrate's cache (no " + markerName + ")")

// checkDir checks that the cache folder is a folder (not a symlink) of the
// user's that others cannot write and that it is orchestrate's (marked).
// With create set, a missing folder is created (0700, under its existing
// anchor: never a missing home) and marked, and an unmarked folder that
// holds only orchestrate's files is marked.
func (c *Cache) checkDir(create bool) error {
	if c.dir == "/" || c.dir == "" {
		return fmt.Errorf("cache folder %q: refused", c.dir)
	}
	fi, err := os.Lstat(c.dir)
	if errors.Is(err, os.ErrNotExist) && create {
		if err := c.create(); err != nil {
			return fmt.Errorf("cache folder %s: %w", c.dir, err)
		}
		fi, err = os.Lstat(c.dir)
	}
	if err != nil {
		return fmt.Errorf("cache folder %s: %w", c.dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("cache folder %s: not a folder (a symlink is not followed)", c.dir)
	}
	if err := ownedPrivate(fi, true); err != nil {
		return fmt.Errorf("cache folder %s: %w", c.dir, err)
	}
	if c.marked.Load() {
		return nil
	}
	if hasMarker(c.dir) {
		c.marked.Store(true)
		return nil
	}
	if !create {
		return fmt.Errorf("cache folder %s: %w", c.dir, errNotMarked)
	}
	if err := onlyOurs(c.dir); err != nil {
		return fmt.Errorf("cache folder %s: %w; not used (point %s elsewhere, or set it to off)", c.dir, err, EnvDir)
	}
	if err := writeAtomic(c.dir, markerName, func(w io.Writer) error {
		_, err := w.Write(markerContent)
		return err
	}); err != nil {
		return err
	}
	c.marked.Store(true)
	return nil
}

// create makes the cache folder (0700) and the folders above it up to its
// anchor, which must exist (a folder that is not there, such as a missing
// home, is never created).
func (c *Cache) create() error {
	anchor := c.anchor
	if anchor == "" {
		anchor = filepath.Dir(c.dir)
	}
	if fi, err := os.Stat(anchor); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s is not there: not created", anchor)
	}
	return os.MkdirAll(c.dir, 0o700)
}

// hasMarker reports whether dir holds orchestrate's marker: a regular
// file of the user's (not followed through a symlink) with exactly
// markerContent.
func hasMarker(dir string) bool {
	f, err := os.OpenFile(filepath.Join(dir, markerName), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(markerContent)) || ownedPrivate(fi, false) != nil {
		return false
	}
	got := make([]byte, len(markerContent))
	if _, err := io.ReadFull(f, got); err != nil {
		return false
	}
	return bytes.Equal(got, markerContent)
}

// onlyOurs checks that dir holds nothing but what orchestrate writes there:
// tables (isTable), temporary files of its writes (isTemp). A marker that
// is not orchestrate's (another program's cache) is not.
func onlyOurs(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		n := e.Name()
		if isTemp(n) && e.Type().IsRegular() {
			continue
		}
		if e.Type().IsRegular() && isTable(filepath.Join(dir, n)) {
			continue
		}
		return fmt.Errorf("it holds %q, which is not orchestrate's", n)
	}
	return nil
}

// isTemp reports whether name is that of a temporary file writeAtomic
// makes: "." + a table's name (or the marker's) + ".tmp-" + pid "-" time.
func isTemp(name string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	base, suffix, ok := strings.Cut(name[1:], ".tmp-")
	if !ok || (!validName(base) && base != markerName) {
		return false
	}
	pid, at, ok := strings.Cut(suffix, "-")
	if !ok || pid == "" || at == "" {
		return false
	}
	if _, err := strconv.ParseUint(pid, 10, 32); err != nil {
		return false
	}
	_, err := strconv.ParseUint(at, 36, 64)
	return err == nil
}

// isTable reports whether the file at path is named as a table and starts
// as a table of any version does (the user's files in the folder are not).
func isTable(path string) bool {
	if !validName(filepath.Base(path)) {
		return false
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	head := make([]byte, len(magicPrefix))
	if _, err := io.ReadFull(f, head); err != nil {
		return false
	}
	return bytes.Equal(head, magicPrefix)
}

// prune removes, from the cache folder, temporary files of its writes older
// than staleTemp and then the tables written longest ago (never keep) until
// the tables take at most limit bytes. Only regular files named as this
// package names them, and tables starting as a table does, are removed;
// errors are ignored (another process may be pruning too).
func (c *Cache) prune(keep string, limit int64) {
	if !c.marked.Load() {
		return // only a folder that is orchestrate's
	}
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type table struct {
		name string
		size int64
		mod  time.Time
	}
	var tables []table
	var total int64
	now := time.Now()
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		n := e.Name()
		if isTemp(n) {
			if now.Sub(fi.ModTime()) > staleTemp {
				_ = os.Remove(filepath.Join(c.dir, n))
			}
			continue
		}
		if !isTable(filepath.Join(c.dir, n)) {
			continue // not orchestrate's: neither counted nor removed
		}
		total += fi.Size()
		if n != keep {
			tables = append(tables, table{n, fi.Size(), fi.ModTime()})
		}
	}
	sort.Slice(tables, func(i, j int) bool { return tables[i].mod.Before(tables[j].mod) })
	for _, t := range tables {
		if total <= limit {
			break
		}
		if os.Remove(filepath.Join(c.dir, t.name)) == nil {
			total -= t.size
		}
	}
}

// writeAtomic writes data to dir/name through a temporary file renamed
// over it. There is no fsync: a table torn by a crash fails its MAC and
// reads as empty.
func writeAtomic(dir, name string, write func(io.Writer) error) error {
	tmp := filepath.Join(dir, "."+name+".tmp-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("cache table %s: %w", name, err)
	}
	werr := write(f)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, filepath.Join(dir, name))
	}
	if werr != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("cache table %s: %w", name, werr)
	}
	return nil
}
