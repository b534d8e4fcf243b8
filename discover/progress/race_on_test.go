//go:build race

package progress

// raceScale divides the large inputs of the linearity tests: the race
// detector makes parsing tens of times slower.
const raceScale = 10
