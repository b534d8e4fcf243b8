// Package lazyre compiles a regular expression on its first use instead of
// at package initialisation, so a run pays only for the patterns of the
// formats it meets (every run starts every package; most meet few formats).
package lazyre

import (
	"fmt"
	"regexp"
	"sync"
)

var (
	mu       sync.Mutex
	patterns []string // every expression given to New, for Check
)

// New returns a function that compiles expr once, on its first call, and
// returns the same *regexp.Regexp after; safe for concurrent use. Like
// regexp.MustCompile it panics when expr is not a valid expression, so expr
// must be a constant; Check compiles every expression given to New so a
// test catches a bad one before a run does.
func New(expr string) func() *regexp.Regexp {
	mu.Lock()
	patterns = append(patterns, expr)
	mu.Unlock()
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Check compiles every expression given to New so far (by the packages
// linked in) and returns the first that does not compile, with the number
// checked.
func Check() (int, error) {
	mu.Lock()
	all := append([]string(nil), patterns...)
	mu.Unlock()
	for _, expr := range all {
		if _, err := regexp.Compile(expr); err != nil {
			return len(all), fmt.Errorf("lazyre: %q: %w", expr, err)
		}
	}
	return len(all), nil
}
