package gitobj

import (
	"bufio"
	"bytes"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
)

// The readers below take an index whole or from a bufio.Reader; only the
// tests use them (ReadIndex parses the mapped index with parseIndexBytes
// and cacheTreeBytes).

// rootCacheTree reads the index extensions after the entries up to the
// cache-tree ("TREE") and returns the tree of its root when it is valid
// (zero when there is none, it is invalid, or the index is split).
func rootCacheTree(rd *bufio.Reader) plumbing.Hash {
	root, _ := readCacheTree(rd, nil)
	return root
}

// readCacheTree is rootCacheTree that also returns the tree of each valid
// folder of the cache-tree that wantDirs names. It reads rd to its end and
// parses what it read with cacheTreeBytes.
func readCacheTree(rd *bufio.Reader, wantDirs map[string]bool) (plumbing.Hash, map[string]plumbing.Hash) {
	b, err := io.ReadAll(rd)
	if err != nil {
		return plumbing.ZeroHash, nil
	}
	return cacheTreeBytes(b, wantDirs)
}

// parseCacheTree reads a cache-tree extension of size bytes from rd (to
// its end) and parses it with parseCacheTreeBytes.
func parseCacheTree(rd *bufio.Reader, size int, wantDirs map[string]bool) (root plumbing.Hash, dirs map[string]plumbing.Hash) {
	b, err := io.ReadAll(rd)
	if err != nil {
		return plumbing.ZeroHash, nil
	}
	return parseCacheTreeBytes(b, size, wantDirs)
}

// parseIndex reads the entries of a version 2 or 3 git index b whose paths
// are in want, keeping those indexEntries describes; the index was last
// written at (sec, nsec). A malformed index gives nil.
func parseIndex(b []byte, want map[string]bool, sec, nsec uint32) map[string]IndexEntry {
	out, _ := parseIndexBytes(b, want, sec, nsec, &indexScratch{})
	return out
}

// parseIndexFrom is parseIndex reading the index from rd.
func parseIndexFrom(rd *bufio.Reader, want map[string]bool, sec, nsec uint32) map[string]IndexEntry {
	return parseIndexWith(rd, want, sec, nsec, &indexScratch{})
}

// parseIndexWith is parseIndexFrom reading into sc (see indexScratch.heads):
// it reads rd to its end, parses that with parseIndexBytes, and leaves rd
// reading what follows the entries.
func parseIndexWith(rd *bufio.Reader, want map[string]bool, sec, nsec uint32, sc *indexScratch) map[string]IndexEntry {
	b, err := io.ReadAll(rd)
	if err != nil {
		return nil
	}
	out, rest := parseIndexBytes(b, want, sec, nsec, sc)
	rd.Reset(bytes.NewReader(rest))
	return out
}
