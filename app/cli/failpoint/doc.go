// Package failpoint is the crash-safety tests' failpoints: the hook the
// command layer hands to the handoff stage (and installs as
// atomicfile.Failpoint), built from ORCHESTRATE_FAILPOINT in a build with
// -tags failpoints (failpoint_on.go; internal/crashtest builds one). In
// normal builds there is none.
package failpoint
