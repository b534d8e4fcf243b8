//go:build !unix

package gitrepo

import "github.com/go-git/go-billy/v5"

// mapFile reads the first size bytes of f (no memory mapping here).
func mapFile(f billy.File, size int64) ([]byte, func() error, error) {
	return readWhole(f, size)
}
