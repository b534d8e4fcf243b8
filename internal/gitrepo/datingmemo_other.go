//go:build !linux

package gitrepo

import "io/fs"

// keyStatOf gives no key outside Linux (no change time read): every file
// is hashed, as without the table.
func keyStatOf(fs.FileInfo) (fileKeyStat, bool) { return fileKeyStat{}, false }
