package gitverify

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// A Verifier finds one object that is not what its name says among many
// batches (hashed in the background, queued, or by the caller when the
// queue is full), and finds none when every object is genuine; Failed
// waits for every check made before it.
func TestVerifierFindsTheOneLie(t *testing.T) {
	blob := func(i int) []byte { return bytes.Repeat([]byte(fmt.Sprintf("object %d\n", i)), 1000) }
	const n = 2000 // ~24 MB: more batches than the queue holds
	for _, bad := range []int{-1, 0, 1, n / 2, n - 1} {
		var v Verifier
		v.On.Store(true)
		for i := 0; i < n; i++ {
			content := blob(i)
			h := ObjectHash(plumbing.BlobObject, content)
			if i == bad {
				content = blob(i + 1)
			}
			v.Check(plumbing.BlobObject, h, content)
		}
		if got, want := v.Failed(), bad >= 0; got != want {
			t.Errorf("lie at %d: Failed() = %v, want %v", bad, got, want)
		}
		v.mu.Lock()
		left := len(v.queued)
		v.mu.Unlock()
		if left != 0 {
			t.Errorf("lie at %d: %d batches left after Failed", bad, left)
		}
	}
}

// Later's checks are run too, and a false one fails the Verifier.
func TestVerifierLater(t *testing.T) {
	for _, lie := range []bool{false, true} {
		var v Verifier
		v.On.Store(true)
		for i := 0; i < 5000; i++ {
			ok := !(lie && i == 4321)
			v.Later(func() bool { return ok }, 1000)
		}
		if got := v.Failed(); got != lie {
			t.Errorf("lie %v: Failed() = %v", lie, got)
		}
	}
}
