//go:build race

package discover

// raceEnabled is true under -race, whose slowdown the time bounds allow for.
const raceEnabled = true
