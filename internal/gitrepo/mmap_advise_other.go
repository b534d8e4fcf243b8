//go:build !linux

package gitrepo

// adviseRandom does nothing here (see the Linux version).
func adviseRandom(b []byte) {}

// dropPages does nothing here (see the Linux version).
func dropPages(b []byte) {}
