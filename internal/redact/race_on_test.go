//go:build race

package redact

// raceScale divides the large inputs of the tests: the race detector makes
// the regexp engine tens of times slower.
const raceScale = 16
