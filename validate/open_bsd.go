//go:build unix && !linux

package validate

// canOpen tells whether the file or folder at full can be opened for
// reading (os.Open's error when not), by opening it (see openProbe).
func canOpen(full string) error { return openProbe(full) }
