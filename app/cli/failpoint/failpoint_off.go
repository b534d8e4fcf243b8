//go:build !failpoints

package failpoint

// Hook returns the failpoint hook handed to the handoff stage. In normal
// builds there is none; builds with -tags failpoints (the crash-safety
// tests) get one from failpoint_on.go.
func Hook() func(step string) error { return nil }
