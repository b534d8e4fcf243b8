//go:build !linux

package command

// jobControl is false: a stopped command is not noticed here (no waitid
// for stops without reaping), and orchestrate keeps waiting for it, as
// before (see docs/SECURITY.md).
const jobControl = false

func childStopped(int) bool { return false }
