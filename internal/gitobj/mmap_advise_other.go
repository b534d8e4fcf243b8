//go:build !linux

package gitobj

// adviseRandom does nothing here (see the Linux version).
func adviseRandom(b []byte) {}

// dropPages does nothing here (see the Linux version).
func dropPages(b []byte) {}
