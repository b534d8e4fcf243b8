//go:build !linux

package gitcache

import "io/fs"

// FileStatOf gives no key outside Linux (no change time read): every file
// is hashed, as without the table.
func FileStatOf(fs.FileInfo) (FileStat, bool) { return FileStat{}, false }

// folderStats gives no stat data outside Linux (see FileStatOf).
type folderStats struct{}

func openFolderStats(string) (folderStats, bool) { return folderStats{}, false }

func (folderStats) close() {}

func (folderStats) stat(string) (FileStat, bool, bool) { return FileStat{}, false, false }
