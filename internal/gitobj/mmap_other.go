//go:build !unix

package gitobj

import (
	"errors"
	"os"
)

// mmapFile fails: no memory mapping here (files are read instead).
func mmapFile(f any, size int64) ([]byte, func() error, error) {
	return nil, nil, errors.New("memory mapping not supported")
}

// sameFile reports whether a and b describe the same file.
func sameFile(a, b os.FileInfo) bool { return os.SameFile(a, b) }
