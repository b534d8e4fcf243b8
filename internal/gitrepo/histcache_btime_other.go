//go:build !linux

package gitrepo

// birthTime is "" where orchestrate does not read files' birth times.
func birthTime(string) string { return "" }
