//go:build !unix

package gitrepo

import "errors"

// mmapFile fails: no memory mapping here (files are read instead).
func mmapFile(f any, size int64) ([]byte, func() error, error) {
	return nil, nil, errors.New("memory mapping not supported")
}
