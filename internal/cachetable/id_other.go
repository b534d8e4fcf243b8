//go:build !unix

package cachetable

import "os"

// fileIdentity is "" where the system gives no device and inode: the path
// alone names the repository's tables.
func fileIdentity(os.FileInfo) string { return "" }
