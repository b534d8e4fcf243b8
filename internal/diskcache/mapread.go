package diskcache

import (
	"io"
	"os"
	"sync/atomic"
	"syscall"
)

// Tables are mapped rather than read (issue 25's twelfth pass, see
// docs/ARCHITECTURE.md). Reading a table copies it into fresh heap pages,
// one page fault each; the warm run of 1,000 workflows reads 9.7 MB of
// tables, ~2,400 such faults, and on a virtual machine whose guest memory
// is backed lazily a fresh page costs ~15 µs (the run went 0.27 → 0.22 s).
// A mapping shares the page cache's pages, already there: a fault maps 16
// of them at once.
//
// A table's views (Table.Get) are kept by its callers for the run, so a
// mapping is never unmapped once a Table holds it: mappedBytes bounds what
// one process maps (a long-lived `orchestrate mcp` opens tables on every
// call; past the bound it reads them, as before), and with it the disk a
// replaced table's old file keeps while mapped. Tables are replaced by
// renaming a new file over them, never written in place, so a mapping
// reads the bytes its MAC was checked on; a process of the same user that
// truncated one in place would end the run (SIGBUS), never change an
// answer (docs/SECURITY.md, "The cache").
const mapMin = 64 << 10

// mapLimit is the most bytes of tables one process maps (a variable for
// the tests).
var mapLimit int64 = 256 << 20

// mappedBytes is what this process has mapped.
var mappedBytes atomic.Int64

// MappedBytes is how many bytes of tables this process holds mapped:
// resident memory the garbage collector does not count.
func MappedBytes() int64 { return mappedBytes.Load() }

// OnMapped, when set (by the command's main, before any table is
// opened), is called after MappedBytes changed: the collector's soft
// memory limit leaves the mapped tables their room (cmd/orchestrate's
// tuneGC), as it did when they were read into the heap.
var OnMapped func()

// mappedChanged calls OnMapped.
func mappedChanged() {
	if f := OnMapped; f != nil {
		f()
	}
}

// readTable returns the size bytes of table file f: mapped read-only
// when size is at least mapMin and within mapLimit, else read into a
// buffer of its own. unmap is non-nil for a mapping: called when the bytes
// are not used after all (a table that does not parse), it unmaps them and
// gives their room back.
func readTable(f *os.File, size int64) (data []byte, unmap func(), err error) {
	if size >= mapMin && int64(int(size)) == size {
		if mappedBytes.Add(size) <= mapLimit {
			b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE)
			if err == nil {
				mappedChanged()
				return b, func() {
					if syscall.Munmap(b) == nil {
						mappedBytes.Add(-size)
						mappedChanged()
					}
				}, nil
			}
		}
		mappedBytes.Add(-size)
	}
	data = make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, err
	}
	return data, nil, nil
}
