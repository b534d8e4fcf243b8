//go:build !linux

package gitobj

import "os"

// StatOf reports no stat data here: Compare hashes every file.
func StatOf(os.FileInfo) (IndexStat, bool) { return IndexStat{}, false }
