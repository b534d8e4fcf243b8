//go:build !race

package tolerant

// raceEnabled is true under -race, whose slowdown the time bounds allow for.
const raceEnabled = false
