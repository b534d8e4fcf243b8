//go:build race

package gitrepo

// raceEnabled is set under the race detector, which multiplies run times:
// wall-clock bounds of tests scale with it.
const raceEnabled = true
