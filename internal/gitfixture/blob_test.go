package gitfixture

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"
)

func TestBlobHashIsGits(t *testing.T) {
	for _, content := range []string{"", "hello\n", "a\x00b"} {
		obj, err := Blob(memory.NewStorage(), []byte(content))
		if err != nil {
			t.Fatalf("Blob(%q): %v", content, err)
		}
		if want := plumbing.ComputeHash(plumbing.BlobObject, []byte(content)); obj.Hash() != want {
			t.Errorf("Blob(%q) hash = %s, want %s", content, obj.Hash(), want)
		}
		if obj.Type() != plumbing.BlobObject || obj.Size() != int64(len(content)) {
			t.Errorf("Blob(%q) = %s of %d bytes", content, obj.Type(), obj.Size())
		}
	}
}
