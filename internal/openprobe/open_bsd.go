//go:build unix && !linux

package openprobe

// CanOpen tells whether the file or folder at full can be opened for
// reading (os.Open's error when not), by opening it (see openProbe).
func CanOpen(full string) error { return openProbe(full) }
