package story

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The story walk lists only real folders: a link to a folder (put there
// after the listing said folder) and a FIFO are refused at once, never
// followed or waited on.
func TestOpenFolderRefusesLinksAndFIFOs(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	f, err := openFolder(real)
	if err != nil {
		t.Fatalf("a folder: %v", err)
	}
	f.Close()
	for _, name := range []string{"link", "fifo"} {
		if f, err := openFolder(filepath.Join(dir, name)); err == nil {
			f.Close()
			t.Errorf("%s opened as a folder", name)
		}
	}
}
