//go:build !linux

package safefile

import "io/fs"

// probeRoot holds nothing where ProbeFast has no fast way.
type probeRoot struct{}

// ProbeFast is, where the kernel has no openat2, never able to answer: ok
// is false and the caller takes CheckPathStat's way.
func (r *Reader) ProbeFast(rel string) (clean string, fi fs.FileInfo, ok bool) {
	return "", nil, false
}
