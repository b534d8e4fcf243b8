//go:build !race

package redact

// raceScale divides the large inputs of the tests (1: no race detector).
const raceScale = 1
