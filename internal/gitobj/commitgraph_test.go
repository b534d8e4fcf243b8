package gitobj

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// A damaged commit-graph is not loaded, or answers without a panic: every
// truncation, random bytes over the header, chunk table and records, and
// records naming parents outside the graph.
func TestCommitGraphHostile(t *testing.T) {
	dir, all := graphRepo(t)
	b, err := os.ReadFile(filepath.Join(dir, ".git", "objects", "info", "commit-graph"))
	must(t, err)
	probe := func(c []byte) {
		g := parseCommitGraph(c)
		for _, h := range all {
			if _, _, ok := g.Links(h); ok {
				if i, found := g.find(h); !found || !bytes.Equal(g.oids[i*20:i*20+20], h[:]) {
					t.Fatalf("links of %s from a record of another commit", h)
				}
			}
		}
	}
	for n := 0; n < len(b); n++ {
		probe(b[:n])
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 2000; round++ {
		c := append([]byte(nil), b...)
		for k := 1 + rng.IntN(4); k > 0; k-- {
			at := rng.IntN(len(c))
			if round%2 == 0 {
				at = rng.IntN(min(len(c), graphHeaderLen+8*graphChunkLen))
			}
			c[at] = byte(rng.IntN(256))
		}
		probe(c)
	}
	// Every first parent pointing past the end of the graph.
	g := parseCommitGraph(append([]byte(nil), b...))
	for i := 0; i < g.n; i++ {
		binary.BigEndian.PutUint32(g.cdat[i*graphDataLen+20:], uint32(g.n+i))
	}
	for _, h := range all {
		if tree, parent, ok := g.Links(h); ok {
			t.Errorf("%s: links %s %s from a parent position outside the graph", h, tree, parent)
		}
	}
	if parseCommitGraph(nil) != nil || (*CommitGraph)(nil).Close() != nil {
		t.Error("nil graph")
	}
}
