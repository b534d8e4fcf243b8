package source

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// TestMemoExists: each path is asked of exists once while the memo has
// room, the answers are exists's, and past MaxMemoExists a path is asked
// again (nothing more kept); safe for concurrent callers (-race).
func TestMemoExists(t *testing.T) {
	var calls atomic.Int64
	exists := func(p string) bool { calls.Add(1); return len(p)%2 == 0 }
	m := MemoExists(exists)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				p := fmt.Sprintf("docs/%d", i)
				if got := m(p); got != exists(p) {
					t.Errorf("%s: %v", p, got)
				}
			}
		}()
	}
	wg.Wait()
	// 4 × 100 direct calls above, and the memo's: at most one per path per
	// worker racing on a first ask, at least one per path
	memo := calls.Load() - 400
	if memo < 100 || memo > 400 {
		t.Fatalf("the memo asked exists %d times for 100 paths", memo)
	}
	calls.Store(0)
	for i := 0; i < 100; i++ {
		m(fmt.Sprintf("docs/%d", i))
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("known paths asked again: %d", n)
	}
	// past the bound: asked every time
	big := MemoExists(exists)
	for i := 0; i < MaxMemoExists; i++ {
		big(fmt.Sprint(i))
	}
	calls.Store(0)
	big("past")
	big("past")
	if n := calls.Load(); n != 2 {
		t.Fatalf("past the bound: %d calls for two asks, want 2", n)
	}
}
