package openprobe

import (
	"syscall"
	"testing"
)

// TestCanOpenWithoutFaccessat2: on a kernel without faccessat2 (ENOSYS,
// remembered) or behind a filter refusing it (EPERM, asked each time),
// CanOpen opens the file instead and still answers as os.Open does.
func TestCanOpenWithoutFaccessat2(t *testing.T) {
	if err := access2("/"); err != nil {
		t.Logf("faccessat2(/) = %v: this kernel takes the fallback anyway", err)
	}
	for _, errno := range []syscall.Errno{syscall.ENOSYS, syscall.EPERM} {
		t.Run(errno.Error(), func(t *testing.T) {
			orig := access2
			calls := 0
			access2 = func(string) error { calls++; return errno }
			t.Cleanup(func() { access2 = orig; noAccess2.Store(false) })
			checkCanOpenMatchesOSOpen(t)
			if calls == 0 {
				t.Error("CanOpen never tried faccessat2")
			}
			if got, want := noAccess2.Load(), errno == syscall.ENOSYS; got != want {
				t.Errorf("noAccess2 = %v after %v, want %v", got, errno, want)
			}
			if errno == syscall.ENOSYS && calls != 1 {
				t.Errorf("faccessat2 tried %d times after ENOSYS, want once", calls)
			}
		})
	}
}

// TestCanOpenUsesFaccessat2: where the kernel has faccessat2, CanOpen asks
// it and never falls back to opening.
func TestCanOpenUsesFaccessat2(t *testing.T) {
	if err := access2("/"); err != nil {
		t.Skipf("faccessat2(/) = %v", err)
	}
	orig := access2
	calls := 0
	access2 = func(p string) error { calls++; return orig(p) }
	t.Cleanup(func() { access2 = orig })
	checkCanOpenMatchesOSOpen(t)
	if calls == 0 || noAccess2.Load() {
		t.Errorf("faccessat2 calls = %d, fallback = %v", calls, noAccess2.Load())
	}
}

func BenchmarkCanOpen(b *testing.B) {
	dir := b.TempDir()
	for name, probe := range map[string]func(string) error{"faccessat2": CanOpen, "open": openProbe} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := probe(dir); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
