package tolerant

import (
	"crypto/sha256"
	"sync"

	"go.yaml.in/yaml/v3"
)

// The node trees of the large YAML documents parsed lately, by the SHA-256
// of their text: a run reads a large state file more than once (discovery
// decodes it, the resume patch locates its fields in it), and a copy of the
// tree costs a fraction of a parse. Only documents of memoMinSize to
// memoMaxSize bytes are kept, at most memoEntries of them, so the memory
// held stays small. The trees kept are never handed out: every caller gets
// its own copy (DecodeYAMLMapNode rewrites tags).
const (
	memoMinSize = 16 << 10
	memoMaxSize = 1 << 20
	memoEntries = 4
)

type memoEntry struct {
	key  [sha256.Size]byte
	root *yaml.Node
}

var memo struct {
	sync.Mutex
	entries []memoEntry // the most recent last
}

// memoKey returns the key of data and whether a document of its size is
// kept at all.
func memoKey(data []byte) ([sha256.Size]byte, bool) {
	if len(data) < memoMinSize || len(data) > memoMaxSize {
		return [sha256.Size]byte{}, false
	}
	return sha256.Sum256(data), true
}

// memoGet returns a copy of the tree kept for key, or nil.
func memoGet(key [sha256.Size]byte) *yaml.Node {
	memo.Lock()
	var root *yaml.Node
	for _, e := range memo.entries {
		if e.key == key {
			root = e.root
			break
		}
	}
	memo.Unlock()
	if root == nil {
		return nil
	}
	return cloneNode(root)
}

// memoPut keeps root (which the caller no longer uses) under key, dropping
// the oldest entry when full.
func memoPut(key [sha256.Size]byte, root *yaml.Node) {
	memo.Lock()
	defer memo.Unlock()
	for _, e := range memo.entries {
		if e.key == key {
			return
		}
	}
	if len(memo.entries) == memoEntries {
		copy(memo.entries, memo.entries[1:])
		memo.entries = memo.entries[:memoEntries-1]
	}
	memo.entries = append(memo.entries, memoEntry{key: key, root: root})
}

// cloneNode copies the tree below root: every node and Content list anew,
// aliases pointing at the copies of their anchors (an alias to a node
// outside the tree, which a parsed document never has, keeps its target).
func cloneNode(root *yaml.Node) *yaml.Node {
	n := 0
	var count func(*yaml.Node)
	count = func(x *yaml.Node) {
		n++
		for _, c := range x.Content {
			count(c)
		}
	}
	count(root)
	nodes := make([]yaml.Node, n)
	copies := make(map[*yaml.Node]*yaml.Node)
	var aliases []*yaml.Node
	i := 0
	var clone func(*yaml.Node) *yaml.Node
	clone = func(x *yaml.Node) *yaml.Node {
		c := &nodes[i]
		i++
		*c = *x
		if x.Anchor != "" {
			copies[x] = c
		}
		if x.Alias != nil {
			aliases = append(aliases, c)
		}
		if x.Content != nil {
			c.Content = make([]*yaml.Node, len(x.Content))
			for j, k := range x.Content {
				c.Content[j] = clone(k)
			}
		}
		return c
	}
	out := clone(root)
	for _, a := range aliases {
		if t, ok := copies[a.Alias]; ok {
			a.Alias = t
		}
	}
	return out
}
