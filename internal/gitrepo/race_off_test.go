//go:build !race

package gitrepo

// raceEnabled is set under the race detector (see race_on_test.go).
const raceEnabled = false
