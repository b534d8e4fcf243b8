package gitrepo

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestParseLinksPrefix checks that every prefix of a commit either asks for
// the whole commit or gives what the whole commit gives.
func TestParseLinksPrefix(t *testing.T) {
	t.Parallel()
	tree := "tree " + strings.Repeat("a", 40) + "\n"
	p1 := "parent " + strings.Repeat("b", 40) + "\n"
	p2 := "parent " + strings.Repeat("c", 40) + "\n"
	who := "author A <a@x> 1 +0000\ncommitter A <a@x> 1 +0000\n"
	tests := []struct {
		name, raw string
		wantErr   bool
	}{
		{"normal", tree + p1 + who + "\nsubject\n", false},
		{"root", tree + who + "\nsubject\n", false},
		{"merge", tree + p1 + p2 + who + "\nsubject\n", false},
		{"parent first", p1 + tree + who + "\n", false},
		{"no header end", tree + who, false},
		{"no tree", p1 + who + "\ntree " + strings.Repeat("a", 40) + "\n", true},
		{"bad tree", "tree xyz\n" + p1, true},
		{"bad parent", tree + "parent 123\n", true},
		{"empty", "", true},
	}
	h := plumbing.NewHash(strings.Repeat("d", 40))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, done, err := parseLinks(h, []byte(tt.raw), true)
			if !done || (err != nil) != tt.wantErr {
				t.Fatalf("whole: done %v, err %v", done, err)
			}
			for k := 0; k <= len(tt.raw); k++ {
				got, done, gerr := parseLinks(h, []byte(tt.raw[:k]), false)
				if !done {
					continue
				}
				if got != want || (gerr != nil) != (err != nil) {
					t.Fatalf("prefix %d: %v, %v; whole %v, %v", k, got, gerr, want, err)
				}
			}
		})
	}
}

// TestPackedWalksMatchLoose repacks the shared history with the git binary
// (deltas included): the walks answer as on loose objects (the objects
// themselves are checked against go-git's in gitobj).
func TestPackedWalksMatchLoose(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary")
	}
	h := newHistory(t)
	loose, err := Open(h.dir)
	must(t, err)
	base := Commit{Hash: h.c1}
	paths := []string{"src/app/main.go", "src/app/util.go", "notes.txt", "docs/new.md", "README.md"}
	wantTouch, err := loose.CommitsTouching(base, paths, 0)
	must(t, err)
	wantLast := loose.LastChange(paths, 0)
	must(t, loose.Close())

	cmd := exec.Command("git", "-C", h.dir, "repack", "-adqf", "--depth=50", "--window=250")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git repack: %v\n%s", err, out)
	}
	r, err := Open(h.dir)
	must(t, err)
	defer r.Close()
	gotTouch, err := r.CommitsTouching(base, paths, 0)
	must(t, err)
	if !reflect.DeepEqual(gotTouch, wantTouch) {
		t.Errorf("CommitsTouching packed = %v, loose %v", gotTouch, wantTouch)
	}
	if got := r.LastChange(paths, 0); !reflect.DeepEqual(got, wantLast) {
		t.Errorf("LastChange packed = %v, loose %v", got, wantLast)
	}
}
