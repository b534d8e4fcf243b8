//go:build !unix

package validate

import (
	"io/fs"
	"os"
)

// sameStat reports whether a and b are lstats of the same file.
func sameStat(a, b fs.FileInfo) bool { return os.SameFile(a, b) }
