package source

import (
	"sync/atomic"
	"testing"
	"time"
)

// Later runs a save at once outside a scan, on its own goroutine between
// BeginLater and EndLater, and EndLater returns only once every save it
// started has ended (a table written after the scan returned would be lost
// when the command exits).
func TestLater(t *testing.T) {
	var r Repo
	ran := false
	r.Later(func() { ran = true })
	if !ran {
		t.Fatal("outside a scan, Later did not run the save at once")
	}
	r.BeginLater()
	var done atomic.Int32
	release := make(chan struct{})
	for i := 0; i < 3; i++ {
		r.Later(func() {
			<-release // the scan goes on while the save waits
			time.Sleep(10 * time.Millisecond)
			done.Add(1)
		})
	}
	if done.Load() != 0 {
		t.Fatal("a save ran before the scan went on")
	}
	close(release)
	r.EndLater()
	if n := done.Load(); n != 3 {
		t.Fatalf("EndLater returned with %d of 3 saves done", n)
	}
	ran = false
	r.Later(func() { ran = true })
	if !ran {
		t.Fatal("after EndLater, Later did not run the save at once")
	}
	var nilRepo *Repo
	nilRepo.Later(func() { ran = false })
	if ran {
		t.Fatal("a nil Repo's Later did not run the save")
	}
}
