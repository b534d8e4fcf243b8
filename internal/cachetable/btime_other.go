//go:build !linux

package cachetable

// birthTime is "" where orchestrate does not read files' birth times.
func birthTime(string) string { return "" }
