package par

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestForCallsEachIndexOnce checks every index is called exactly once, for
// sizes below, at and above the bounds.
func TestForCallsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 3, 4, 5, 63, 64, 1000} {
		for _, o := range []Options{{Workers: 4, Chunk: 32, Min: 64}, {Workers: 4, Chunk: 4, Min: 16}, {}} {
			calls := make([]int32, n)
			For(n, o, func(i int) { atomic.AddInt32(&calls[i], 1) })
			for i, c := range calls {
				if c != 1 {
					t.Fatalf("n=%d %+v: index %d called %d times", n, o, i, c)
				}
			}
		}
	}
}

// TestForRunsConcurrently checks two calls can wait for each other, which
// cannot finish on one goroutine.
func TestForRunsConcurrently(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one processor")
	}
	a, b := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		For(2, Options{Workers: 2, Chunk: 1, Min: 2}, func(i int) {
			if i == 0 {
				close(a)
				<-b
			} else {
				close(b)
				<-a
			}
		})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the calls ran one after the other")
	}
}
