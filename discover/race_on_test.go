//go:build race

package discover

// raceEnabled is true under -race, whose slowdown the time bounds allow for.
const raceEnabled = true

// raceAsInt is raceEnabled as a number, for constants.
const raceAsInt = 1
