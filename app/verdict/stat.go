package verdict

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/orchestrate-dev/orchestrate/discover/source"
)

// The read set's stat data (see the package comment): what a memo's
// paths held when it was kept, checked again on every use.

// stat is the lstat data of one path: absent, or device, inode, mode,
// size and times; err when lstat failed otherwise.
type stat struct {
	absent, err  bool
	dev, ino     uint64
	mode         uint32
	size         int64
	mtime, ctime int64 // ns
}

// lstatPath is rootDir.lstat, a variable for the tests (they count the
// calls).
var lstatPath = (*rootDir).lstat

func lstat(p string) stat {
	var st unix.Stat_t
	return statOf(&st, unix.Lstat(p, &st))
}

// statOf is the stat data of st, filled by an lstat that returned err.
func statOf(st *unix.Stat_t, err error) stat {
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return stat{absent: true}
		}
		return stat{err: true}
	}
	return stat{dev: uint64(st.Dev), ino: uint64(st.Ino), mode: uint32(st.Mode), size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

// rootDir is the repository root the read sets' paths are lstat'ed in: the
// folder opened once (Open), each path lstat'ed relative to it without
// following a symlink (fstatat, AT_SYMLINK_NOFOLLOW: the same stat as an
// lstat of the absolute path, without the kernel walking the root's own
// folders again for each of a run's 8,000 paths); fd is -1 when it could
// not be opened, and each path is lstat'ed by its absolute path.
type rootDir struct {
	path string
	fd   int
}

// openRoot opens root for the look-ups, when the folder opened is the one
// root names now (same device and inode); else the absolute paths are
// used.
func openRoot(root string) *rootDir {
	r := &rootDir{path: root, fd: -1}
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return r
	}
	var a, b unix.Stat_t
	if unix.Fstat(fd, &a) != nil || unix.Stat(root, &b) != nil || a.Dev != b.Dev || a.Ino != b.Ino {
		unix.Close(fd)
		return r
	}
	r.fd = fd
	// closed once the memo that holds it is gone (a run's memo lives
	// until the process ends; the tests open many)
	runtime.AddCleanup(r, func(fd int) { unix.Close(fd) }, fd)
	return r
}

// lstat is the lstat data of rel, a clean repository-relative path ("."
// the root itself) as readSet makes them; a path of a decoded value that
// is not one (empty, or starting with a slash, which fstatat would not
// take relative to the root) is lstat'ed as before, by root + "/" + rel.
func (r *rootDir) lstat(rel string) stat {
	if r.fd < 0 || rel == "" || rel[0] == '/' {
		return lstat(r.path + "/" + rel)
	}
	var st unix.Stat_t
	return statOf(&st, unix.Fstatat(r.fd, rel, &st, unix.AT_SYMLINK_NOFOLLOW))
}

// statSize is the most stat.append writes.
const statSize = 1 + 8 + 8 + 4 + 8 + 8 + 8

func (s stat) append(b []byte) []byte {
	if s.absent {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.LittleEndian.AppendUint64(b, s.dev)
	b = binary.LittleEndian.AppendUint64(b, s.ino)
	b = binary.LittleEndian.AppendUint32(b, s.mode)
	b = binary.LittleEndian.AppendUint64(b, uint64(s.size))
	b = binary.LittleEndian.AppendUint64(b, uint64(s.mtime))
	return binary.LittleEndian.AppendUint64(b, uint64(s.ctime))
}

// racy reports whether s changed within the racy window of start (or
// after it).
func (s stat) racy(start time.Time) bool {
	if s.absent {
		return false
	}
	limit := start.Add(-source.StatCacheRacy).UnixNano()
	return s.mtime > limit || s.ctime > limit
}

func (m *Memo) noteRacy(s stat) {
	if s.racy(m.start) {
		m.store = false
	}
}

// slot is one repository-relative path's lstat in this run: made once, by
// the first validation that needs it, and read by every other (status's
// 1,000 workflows name 8,000 files and 4,500 folders 160,000 times).
type slot struct {
	path string
	done atomic.Bool // st and sum are set
	mu   sync.Mutex  // held while they are set
	st   stat
	// sum is the SHA-256 of the path as a memo's value encodes it (a
	// varint length and its bytes) and of its stat data (stat.append):
	// what a read set's sum is made of, made once a run
	sum [32]byte
}

// try makes s's lstat unless it is made or being made; false when another
// validation is making it (the workers validate neighbouring workflows,
// which share paths: one does not wait for the other's lstat while it has
// lstats of its own to make).
func (s *slot) try(root *rootDir) bool {
	if s.done.Load() {
		return true
	}
	if !s.mu.TryLock() {
		return false
	}
	s.make(root)
	s.mu.Unlock()
	return true
}

// wait makes s's lstat, or waits until it is made.
func (s *slot) wait(root *rootDir) {
	if s.done.Load() {
		return
	}
	s.mu.Lock()
	s.make(root)
	s.mu.Unlock()
}

// make sets s's stat data unless set; s.mu is held.
func (s *slot) make(root *rootDir) {
	if s.done.Load() {
		return
	}
	s.st = lstatPath(root, s.path)
	var b [binary.MaxVarintLen64 + 256 + statSize]byte
	s.sum = sha256.Sum256(s.st.append(appendStr(b[:0], s.path)))
	s.done.Store(true)
}

// scratch is what one look-up of a read set uses and gives back.
type scratch struct {
	idx   []uint32
	slots []*slot
	busy  []int32
	buf   []byte // what is hashed
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// release gives sc back to the pool, without the run's slots (and
// without a buffer a large read set grew).
func (sc *scratch) release() {
	clear(sc.slots)
	sc.slots = sc.slots[:0]
	if cap(sc.buf) > 1<<20 {
		sc.buf = nil
	}
	if cap(sc.idx) > 1<<18 {
		sc.idx = nil
	}
	scratchPool.Put(sc)
}

// readSetSum looks up the slot of each path index of idx in the run's path
// table (each path lstat'ed once a run) and returns the SHA-256 of the
// paths and their stat data, in order: of each path's slot sum (the
// SHA-256 of its encoding and its stat data), one after the other (what a
// memo keeps; 32 bytes a path hashed again by each read set that names
// it, not the path and its 45 bytes of stat data). ok is false when an
// index names no path of the table or a path's lstat failed.
func (m *Memo) readSetSum(idx []uint32, sc *scratch) (sum [32]byte, ok bool) {
	pt := &m.pt
	sc.slots, sc.busy = sc.slots[:0], sc.busy[:0]
	for i, x := range idx {
		s := pt.slotAt(uint64(x))
		if s == nil {
			return sum, false
		}
		sc.slots = append(sc.slots, s)
		if !s.try(m.dir) {
			sc.busy = append(sc.busy, int32(i))
		}
	}
	for _, i := range sc.busy {
		sc.slots[i].wait(m.dir)
	}
	buf := sc.buf[:0]
	for _, s := range sc.slots {
		if s.st.err {
			sc.buf = buf
			return sum, false
		}
		buf = append(buf, s.sum[:]...)
	}
	sc.buf = buf
	return sha256.Sum256(buf), true
}
