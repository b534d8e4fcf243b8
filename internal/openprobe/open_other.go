//go:build !unix

package openprobe

import "os"

// CanOpen tells whether the file or folder at full can be opened for
// reading (os.Open's error when not).
func CanOpen(full string) error {
	fh, err := os.Open(full)
	if err == nil {
		fh.Close()
	}
	return err
}
