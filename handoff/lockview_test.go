package handoff

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestLockViewIsInspect: whatever the locks folder holds, the view answers
// as Inspect does for every workflow, one listing for all of them.
func TestLockViewIsInspect(t *testing.T) {
	withAlive(t, 100)
	old := hostname
	hostname = func() (string, error) { return "host-a", nil }
	t.Cleanup(func() { hostname = old })
	ids := []string{"sdc:4.2", "sdc:4.3", "SDC:4.2", "workflow:a", "workflow:b", "kiro:x"}
	cases := []struct {
		name  string
		setup func(t *testing.T, root string)
	}{
		{"no .orchestrate folder", func(t *testing.T, root string) {}},
		{"no locks folder", func(t *testing.T, root string) { mkdir(t, filepath.Join(root, ".orchestrate")) }},
		{"empty locks folder", func(t *testing.T, root string) { mkdir(t, filepath.Join(root, ".orchestrate", "locks")) }},
		{"a live and a stale lock", func(t *testing.T, root string) {
			writeLock(t, root, "sdc:4.2", me(100), 0o600)
			writeLock(t, root, "workflow:a", me(200), 0o600)
		}},
		{"a lock with loose permissions", func(t *testing.T, root string) {
			writeLock(t, root, "workflow:b", me(100), 0o644)
		}},
		{"a lock that is a symlink", func(t *testing.T, root string) {
			writeLock(t, root, "sdc:4.3", me(100), 0o600)
			p := LockPath(root, "kiro:x")
			if err := os.Symlink(LockPath(root, "sdc:4.3"), p); err != nil {
				t.Fatal(err)
			}
		}},
		{"a lock that is a folder", func(t *testing.T, root string) { mkdir(t, LockPath(root, "workflow:a")) }},
		{"a lock named in upper case", func(t *testing.T, root string) {
			mkdir(t, filepath.Join(root, ".orchestrate", "locks"))
			writeLock(t, root, "sdc:4.2", me(100), 0o600)
			if err := os.Rename(LockPath(root, "sdc:4.2"), filepath.Join(root, ".orchestrate", "locks", "SDC_4.2.LOCK")); err != nil {
				t.Fatal(err)
			}
		}},
		{"a symlinked locks folder", func(t *testing.T, root string) {
			elsewhere := t.TempDir()
			writeLock(t, elsewhere, "sdc:4.2", me(100), 0o600)
			mkdir(t, filepath.Join(root, ".orchestrate"))
			if err := os.Symlink(filepath.Join(elsewhere, ".orchestrate", "locks"), filepath.Join(root, ".orchestrate", "locks")); err != nil {
				t.Fatal(err)
			}
		}},
		{"a locks folder that is a file", func(t *testing.T, root string) {
			mkdir(t, filepath.Join(root, ".orchestrate"))
			if err := os.WriteFile(filepath.Join(root, ".orchestrate", "locks"), []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			tc.setup(t, root)
			v := ViewLocks(root)
			for _, id := range ids {
				if got, want := v.Inspect(id), Inspect(root, id); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: view %+v, Inspect %+v", id, got, want)
				}
				if got, want := v.StateOf(id), LockStateOf(root, id); got != want {
					t.Errorf("%s: view state %+v, LockStateOf %+v", id, got, want)
				}
			}
		})
	}
}

// TestLockViewIsASnapshot: a lock taken after the listing is not in the
// view (a report's look), and one removed after it reads as Inspect reads
// it then (free).
func TestLockViewIsASnapshot(t *testing.T) {
	withAlive(t, 100)
	root := t.TempDir()
	writeLock(t, root, "workflow:a", me(100), 0o600)
	v := ViewLocks(root)
	writeLock(t, root, "workflow:b", me(100), 0o600)
	if st := v.Inspect("workflow:b"); st.Exists {
		t.Errorf("a lock taken after the listing: %+v", st)
	}
	if st := v.Inspect("workflow:a"); !st.Exists {
		t.Errorf("a listed lock: %+v", st)
	}
	if err := os.Remove(LockPath(root, "workflow:a")); err != nil {
		t.Fatal(err)
	}
	if st := v.Inspect("workflow:a"); st.Exists {
		t.Errorf("a listed lock removed since: %+v", st)
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}
