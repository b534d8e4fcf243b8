//go:build !linux

package gitcache

import "io/fs"

// FileStatOf gives no key outside Linux (no change time read): every file
// is hashed, as without the table.
func FileStatOf(fs.FileInfo) (FileStat, bool) { return FileStat{}, false }

// statKeys is false: no key outside Linux (see FileStatOf).
const statKeys = false
