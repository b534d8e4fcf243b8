//go:build !race

package progress

// raceScale divides the large inputs of the linearity tests (1 without the
// race detector).
const raceScale = 1
