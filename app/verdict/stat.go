package verdict

import (
	"encoding/binary"
	"errors"
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

func lstat(p string) stat {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return stat{absent: true}
		}
		return stat{err: true}
	}
	return stat{dev: uint64(st.Dev), ino: uint64(st.Ino), mode: uint32(st.Mode), size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

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

// statsOf is this run's lstat of each repository-relative path of ps,
// made once for all the run's workflows (status's 200 workflows reference
// 4,000 files 60,000 times).
func (m *Memo) statsOf(ps []string) []stat {
	out := make([]stat, len(ps))
	var todo []int
	m.mu.Lock()
	for i, p := range ps {
		st, ok := m.stats[p]
		if !ok {
			todo = append(todo, i)
		}
		out[i] = st
	}
	m.mu.Unlock()
	if len(todo) == 0 {
		return out
	}
	buf := make([]byte, 0, len(m.root)+256)
	for _, i := range todo {
		buf = append(append(append(buf[:0], m.root...), '/'), ps[i]...)
		out[i] = lstat(string(buf))
	}
	m.mu.Lock()
	for _, i := range todo {
		m.stats[ps[i]] = out[i]
	}
	m.mu.Unlock()
	return out
}
