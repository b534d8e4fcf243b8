package lazyre

import (
	"sync"
	"testing"
)

func TestNew(t *testing.T) {
	tests := []struct {
		expr, in string
		want     bool
	}{
		{`^a+$`, "aaa", true},
		{`^a+$`, "ab", false},
		{`(?i)\bstory\b`, "A Story", true},
	}
	for _, tc := range tests {
		re := New(tc.expr)
		if got := re().MatchString(tc.in); got != tc.want {
			t.Errorf("%s on %q = %v, want %v", tc.expr, tc.in, got, tc.want)
		}
		first, again := re(), re()
		if first != again {
			t.Errorf("%s compiled twice", tc.expr)
		}
	}
}

func TestNewConcurrent(t *testing.T) {
	re := New(`x+`)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !re().MatchString("xx") {
				t.Error("no match")
			}
		}()
	}
	wg.Wait()
}

func TestNewInvalidPanicsOnUse(t *testing.T) {
	re := New(`(`) // not compiled yet: no panic here
	defer dropLast()
	defer func() {
		if recover() == nil {
			t.Error("an invalid expression did not panic on first use")
		}
	}()
	re()
}

func TestCheckFindsBadPattern(t *testing.T) {
	New(`[`)
	defer dropLast()
	if _, err := Check(); err == nil {
		t.Error("Check accepted an invalid expression")
	}
}

// dropLast forgets the last expression given to New (a bad one a test
// added), so TestEveryPatternCompiles sees only the packages' own.
func dropLast() {
	mu.Lock()
	patterns = patterns[:len(patterns)-1]
	mu.Unlock()
}
