package safefile

import (
	"os"
	"path/filepath"
	"testing"
)

// Reader.CheckPath gives CheckPath's answer for every path (CheckPathStat
// too, with the stat of what is there and not a symlink), and
// Reader.Exists that of CheckPath then a stat, twice (the second time from
// the folder cache).
func TestReaderCheckPathMatchesCheckPath(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(root, "src", "deep"), 0o755)
	os.WriteFile(filepath.Join(root, "src", "a.go"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("x"), 0o644)
	for link, target := range map[string]string{
		"out":          outside,
		"in":           filepath.Join(root, "src"),
		"src/leak":     filepath.Join(outside, "secret"),
		"src/ok":       filepath.Join(root, "src", "a.go"),
		"src/broken":   filepath.Join(root, "nope"),
		"src/deep/up":  "../../out",
		"src/deep/loo": "loo",
	} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(root)
	for pass := 0; pass < 2; pass++ {
		for _, p := range []string{
			"src/a.go", "./src//a.go", "src/../src/a.go", "missing/file.txt", "in/a.go", "", "/etc/passwd", "../x",
			"src/../../x", "..", "a\x00b", "a\nb", `\\server\share`, "C:/x", "out/secret", "out", ".", "src",
			"src/leak", "src/ok", "src/broken", "src/deep/up", "src/deep/up/secret", "src/deep/loo", "src/deep/loo/x",
			"in/leak", "src/a.go/x", "in/deep/x.go", "src/deep/x.go", "src/deep/up/a/b", "in/deep/up/secret",
			"src/deep/loo/a/b", "out/a/b",
		} {
			want, werr := CheckPath(root, p)
			got, gerr := r.CheckPath(p)
			if got != want || (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
				t.Errorf("pass %d: Reader.CheckPath(%q) = %q, %v; CheckPath = %q, %v", pass, p, got, gerr, want, werr)
			}
			wantExists := false
			if werr == nil {
				_, serr := os.Stat(filepath.Join(root, filepath.FromSlash(want)))
				wantExists = serr == nil
			}
			clean, fi, serr := r.CheckPathStat(p)
			if clean != got || (serr == nil) != (gerr == nil) {
				t.Errorf("pass %d: CheckPathStat(%q) = %q, %v; CheckPath = %q, %v", pass, p, clean, serr, got, gerr)
			}
			if fi != nil {
				st, err := os.Stat(filepath.Join(root, filepath.FromSlash(clean)))
				if err != nil || fi.Mode() != st.Mode() || fi.Size() != st.Size() || !fi.ModTime().Equal(st.ModTime()) {
					t.Errorf("pass %d: CheckPathStat(%q) info %v, %v; stat %v, %v", pass, p, fi.Mode(), fi.Size(), st, err)
				}
			} else if serr == nil && clean != "." {
				if st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(clean))); err == nil && st.Mode()&os.ModeSymlink == 0 {
					t.Errorf("pass %d: CheckPathStat(%q) gave no info for an existing non-symlink", pass, p)
				}
			}
			if got := r.Exists(p); got != wantExists {
				t.Errorf("pass %d: Reader.Exists(%q) = %v, want %v (CheckPath, then stat)", pass, p, got, wantExists)
			}
		}
	}
}
