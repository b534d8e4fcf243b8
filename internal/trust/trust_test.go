package trust

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	dir := t.TempDir()
	return &Store{Path: filepath.Join(dir, "cfg", "orchestrate", FileName), Now: func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) }}
}

func TestDefaultPath(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
		err  bool
	}{
		{"xdg", map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/orchestrate/trusted.json", false},
		{"home", map[string]string{"HOME": "/h"}, "/h/.config/orchestrate/trusted.json", false},
		{"relative xdg falls back to home", map[string]string{"XDG_CONFIG_HOME": "rel", "HOME": "/h"}, "/h/.config/orchestrate/trusted.json", false},
		{"nothing", map[string]string{}, "", true},
		{"relative home", map[string]string{"HOME": "h"}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DefaultPath(func(k string) string { return tc.env[k] })
			if (err != nil) != tc.err || got != tc.want {
				t.Errorf("got %q, %v; want %q (error %v)", got, err, tc.want, tc.err)
			}
		})
	}
}

// Trust, edit, revoke: the life of one file's record.
func TestCheckTrustRevoke(t *testing.T) {
	s := newStore(t)
	cfg := "/repo/.orchestrate.yaml"
	a, b := []byte("handoff: {command: 'echo a'}\n"), []byte("handoff: {command: 'echo b'}\n")
	steps := []struct {
		do   func() error
		data []byte
		want State
	}{
		{nil, a, Untrusted},
		{func() error { return s.Trust(cfg, a) }, a, Trusted},
		{nil, b, Changed},
		{func() error { return s.Trust(cfg, b) }, b, Trusted},
		{nil, a, Changed},
		{func() error { _, err := s.Revoke(cfg); return err }, b, Untrusted},
	}
	for i, st := range steps {
		if st.do != nil {
			if err := st.do(); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
		}
		got, err := s.Check(cfg, st.data)
		if err != nil || got != st.want {
			t.Fatalf("step %d: Check = %v, %v; want %v", i, got, err, st.want)
		}
	}
	// another path with the same bytes is not trusted
	if err := s.Trust(cfg, a); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Check("/other/.orchestrate.yaml", a); got != Untrusted {
		t.Errorf("other path: %v, want untrusted", got)
	}
	fi, err := os.Stat(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("store mode %v, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(s.Path)
	if !strings.Contains(string(data), Hash(a)) || !strings.Contains(string(data), "2026-11-20T12:00:00Z") {
		t.Errorf("store content:\n%s", data)
	}
	if found, err := s.Revoke("/never/trusted"); found || err != nil {
		t.Errorf("revoke unknown: %v, %v", found, err)
	}
	paths, err := s.Paths()
	if err != nil || len(paths) != 1 || paths[0] != cfg {
		t.Errorf("Paths = %v, %v", paths, err)
	}
}

// A store that is not JSON, too big, a folder or a FIFO gives an error that
// names the file, never a panic or a hang; Check still says untrusted.
func TestCorruptStore(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(path string) error
	}{
		{"garbage", func(p string) error { return os.WriteFile(p, []byte("{not json"), 0o600) }},
		{"wrong version", func(p string) error { return os.WriteFile(p, []byte(`{"version": 99, "files": {}}`), 0o600) }},
		{"wrong types", func(p string) error { return os.WriteFile(p, []byte(`{"version": 1, "files": []}`), 0o600) }},
		{"too big", func(p string) error { return os.WriteFile(p, make([]byte, MaxStoreSize+1), 0o600) }},
		{"folder", func(p string) error { return os.Mkdir(p, 0o700) }},
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := tc.make(s.Path); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				st, err := s.Check("/r/.orchestrate.yaml", []byte("x"))
				if st != Untrusted || err == nil || !strings.Contains(err.Error(), s.Path) {
					t.Errorf("Check = %v, %v; want untrusted and an error naming %s", st, err, s.Path)
				}
				if err := s.Trust("/r/.orchestrate.yaml", []byte("x")); err == nil || !strings.Contains(err.Error(), s.Path) {
					t.Errorf("Trust over a corrupt store: %v", err)
				}
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("hung on a corrupt store")
			}
		})
	}
}

// An empty or missing store trusts nothing.
func TestEmptyStore(t *testing.T) {
	s := newStore(t)
	if st, err := s.Check("/r/x", nil); st != Untrusted || err != nil {
		t.Errorf("missing: %v, %v", st, err)
	}
	os.MkdirAll(filepath.Dir(s.Path), 0o700)
	os.WriteFile(s.Path, nil, 0o600)
	if st, err := s.Check("/r/x", nil); st != Untrusted || err != nil {
		t.Errorf("empty: %v, %v", st, err)
	}
	if err := (&Store{}).Trust("/r/x", nil); err == nil {
		t.Error("a store without a path accepted a record")
	}
}

// Concurrent Trust calls never lose a record.
func TestConcurrentTrust(t *testing.T) {
	s := newStore(t)
	var wg sync.WaitGroup
	const n = 16
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Trust(filepath.Join("/repo", string(rune('a'+i)), ".orchestrate.yaml"), []byte{byte(i)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	paths, err := s.Paths()
	if err != nil || len(paths) != n {
		t.Errorf("%d records (%v), want %d", len(paths), err, n)
	}
}

func TestStateString(t *testing.T) {
	for st, want := range map[State]string{Trusted: "trusted", Untrusted: "untrusted", Changed: "changed", State(42): "untrusted"} {
		if st.String() != want {
			t.Errorf("%d: %q, want %q", st, st.String(), want)
		}
	}
}
