//go:build !linux

package gitrepo

import "os"

// statOf reports no stat data here: Compare hashes every file.
func statOf(os.FileInfo) (indexStat, bool) { return indexStat{}, false }
