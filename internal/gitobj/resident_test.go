package gitobj

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestMappedPacksDroppedOnlyOverTheBound: a Store drops the pages of its
// mapped packs and indexes from the process's memory as it reads (touch)
// only when the mappings are larger than maxResident in all; mappings that
// fit stay resident whole, and a walk over them faults no page in twice.
// A fork (which shares its parent's mappings) follows the same rule.
func TestMappedPacksDroppedOnlyOverTheBound(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary")
	}
	dir := t.TempDir()
	g := func(args ...string) {
		runGit(t, dir, append([]string{"-c", "user.name=A", "-c", "user.email=a@x"}, args...)...)
	}
	g("init", "-q", "-b", "main")
	for i := 0; i < 4; i++ {
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte(fmt.Sprint("content ", i)), 0o644))
		g("add", "-A")
		g("commit", "-qm", fmt.Sprint("commit ", i))
	}
	g("repack", "-adq")
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	must(t, err)
	head := plumbing.NewHash(string(out[:40]))

	var drops int
	old, oldMax := drop, maxResident
	drop = func(b []byte) { drops++; dropPages(b) }
	t.Cleanup(func() { drop, maxResident = old, oldMax })

	// each look-up counts a page of the index read (idxPagesPerFind):
	// enough of them pass maxTouchedPages several times over
	reads := 3 * maxTouchedPages / idxPagesPerFind
	for _, c := range []struct {
		name      string
		resident  int
		wantDrops bool
	}{
		{"mappings within the bound", 1 << 30, false},
		{"mappings over the bound", 0, true},
	} {
		for _, forked := range []bool{false, true} {
			maxResident, drops = c.resident, 0
			s := openStore(t, dir)
			if forked {
				if s = s.Fork(); s == nil {
					t.Fatal("no fork: the store has no packs")
				}
			}
			for i := 0; i < reads; i++ {
				if _, err := s.EncodedObject(plumbing.CommitObject, head); err != nil {
					t.Fatal(err)
				}
			}
			if s.mapped == 0 {
				t.Skip("the pack is not mapped here")
			}
			if got := drops > 0; got != c.wantDrops {
				t.Errorf("%s (fork %v): %d drops, want some: %v", c.name, forked, drops, c.wantDrops)
			}
		}
	}
}
