package gitobj

import (
	"bytes"
	"encoding/binary"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// commitGraphFile is where git keeps a repository's commit-graph (written by
// `git commit-graph write`, and by `git gc` unless gc.writeCommitGraph is
// off): per commit, its tree and parents, so that a history walk reads them
// without inflating the commit.
const commitGraphFile = "objects/info/commit-graph"

// Commit-graph format constants (version 1, SHA-1).
const (
	graphHeaderLen = 8
	graphChunkLen  = 12 // a chunk table entry: 4-byte id, 8-byte offset
	graphDataLen   = 20 + 16
	graphNoParent  = 0x70000000
)

// CommitGraph is a mapped commit-graph file, its chunks checked to lie
// inside it. Only a single file of version 1 with SHA-1 hashes, no base
// graphs (a split graph's chain), is used; anything else is not loaded.
type CommitGraph struct {
	data   []byte
	unmap  func() error
	n      int
	fanout []byte // 256 big-endian counts
	oids   []byte // n hashes, sorted
	cdat   []byte // n records: tree, first parent, second parent, generation and time
}

// OpenCommitGraph maps and checks the commit-graph of fs (a .git folder);
// nil when there is none or it is not one this reader takes.
func OpenCommitGraph(fs billy.Filesystem) *CommitGraph {
	if fs == nil {
		return nil
	}
	fi, err := fs.Stat(commitGraphFile)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<31 {
		return nil
	}
	f, err := fs.Open(commitGraphFile)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, unmap, err := mapOrRead(fs, commitGraphFile, f, fi)
	if err != nil {
		return nil
	}
	g := parseCommitGraph(b)
	if g == nil {
		if unmap != nil {
			_ = unmap()
		}
		return nil
	}
	g.unmap = unmap
	return g
}

// parseCommitGraph checks the header, the chunk table and the sizes of the
// chunks used in b; nil when any is wrong.
func parseCommitGraph(b []byte) *CommitGraph {
	if len(b) < graphHeaderLen+graphChunkLen+20 || string(b[:4]) != "CGPH" ||
		b[4] != 1 || b[5] != 1 || b[7] != 0 {
		return nil
	}
	chunks := int(b[6])
	end := len(b) - 20 // the trailing checksum
	table := b[graphHeaderLen:]
	if len(table) < (chunks+1)*graphChunkLen {
		return nil
	}
	g := &CommitGraph{data: b}
	var cdat []byte
	for i := 0; i < chunks; i++ {
		e := table[i*graphChunkLen:]
		id := string(e[:4])
		start := binary.BigEndian.Uint64(e[4:12])
		stop := binary.BigEndian.Uint64(e[graphChunkLen+4 : graphChunkLen+12])
		if start < uint64(graphHeaderLen+(chunks+1)*graphChunkLen) || stop < start || stop > uint64(end) {
			return nil
		}
		c := b[start:stop]
		switch id {
		case "OIDF":
			g.fanout = c
		case "OIDL":
			g.oids = c
		case "CDAT":
			cdat = c
		}
	}
	if len(g.fanout) != 256*4 {
		return nil
	}
	prev := uint32(0)
	for i := 0; i < 256; i++ {
		v := binary.BigEndian.Uint32(g.fanout[4*i:])
		if v < prev {
			return nil
		}
		prev = v
	}
	g.n = int(prev)
	if uint64(len(g.oids)) != uint64(g.n)*20 || uint64(len(cdat)) != uint64(g.n)*graphDataLen {
		return nil
	}
	g.cdat = cdat
	return g
}

// Links returns the tree and first parent (zero: none) of commit h when
// the graph holds it (ok false otherwise, or when the record names a
// parent outside the graph).
func (g *CommitGraph) Links(h plumbing.Hash) (tree, parent plumbing.Hash, ok bool) {
	if g == nil || g.fanout == nil {
		return tree, parent, false
	}
	i, found := g.find(h)
	if !found {
		return tree, parent, false
	}
	rec := g.cdat[i*graphDataLen : (i+1)*graphDataLen]
	copy(tree[:], rec[:20])
	switch p := binary.BigEndian.Uint32(rec[20:24]); {
	case p == graphNoParent:
	case int64(p) < int64(g.n):
		copy(parent[:], g.oids[int(p)*20:int(p)*20+20])
	default:
		return plumbing.ZeroHash, plumbing.ZeroHash, false
	}
	return tree, parent, true
}

// find binary-searches the graph's sorted hashes for h.
func (g *CommitGraph) find(h plumbing.Hash) (int, bool) {
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(g.fanout[4*(int(h[0])-1):]))
	}
	hi := int(binary.BigEndian.Uint32(g.fanout[4*int(h[0]):]))
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(g.oids[m*20:m*20+20], h[:]); {
		case c == 0:
			return m, true
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return 0, false
}

// Close releases the mapping.
func (g *CommitGraph) Close() error {
	if g == nil || g.unmap == nil {
		return nil
	}
	err := g.unmap()
	g.unmap, g.data, g.oids, g.cdat, g.fanout = nil, nil, nil, nil, nil
	g.n = 0
	return err
}
