//go:build unix && !linux

package prompt

// flushInput would drop the keys typed before a question was asked; only
// Linux does it.
func flushInput(int) {}
