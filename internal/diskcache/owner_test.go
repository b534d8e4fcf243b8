package diskcache

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeOne writes table name with one entry in c.
func writeOne(t *testing.T, c *Cache, name string) {
	t.Helper()
	b := NewBuilder(20)
	b.Add(key("a"), []byte("value"))
	if err := c.Write(name, nil, b); err != nil {
		t.Fatal(err)
	}
}

func TestACopiedTableIsNotRead(t *testing.T) {
	c := New(filepath.Join(t.TempDir(), "cache"))
	writeOne(t, c, "git-commits-aaaa")
	b := NewBuilder(20)
	b.Add(key("b"), []byte("other"))
	if err := c.Write("git-commits-bbbb", nil, b); err != nil {
		t.Fatal(err)
	}
	// what restoring a cache folder, or a table planted under another
	// repository's name, does: the file of one table under another's name
	data, err := os.ReadFile(c.Path("git-commits-aaaa"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.Path("git-commits-bbbb"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	tb, err := c.Open("git-commits-bbbb", 20)
	if err == nil || tb.Len() != 0 {
		t.Fatalf("a table copied over another's name was read: %d entries, %v", tb.Len(), err)
	}
	if tb, err := c.Open("git-commits-aaaa", 20); err != nil || tb.Len() != 1 {
		t.Fatalf("the original: %d entries, %v", tb.Len(), err)
	}
}

func TestATableOfAnotherKeyIsNotRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	mine := &Cache{dir: dir, key: bytes.Repeat([]byte{1}, keySize)}
	theirs := &Cache{dir: dir, key: bytes.Repeat([]byte{2}, keySize)}
	writeOne(t, theirs, "stories")
	tb, err := mine.Open("stories", 20)
	if err == nil || tb.Len() != 0 {
		t.Fatalf("a table written with another key was read: %d entries, %v", tb.Len(), err)
	}
	if tb, err := theirs.Open("stories", 20); err != nil || tb.Len() != 1 {
		t.Fatalf("with its own key: %d entries, %v", tb.Len(), err)
	}
}

func TestEveryByteOfATableIsAuthenticated(t *testing.T) {
	c := New(filepath.Join(t.TempDir(), "cache"))
	writeOne(t, c, "t")
	data, err := os.ReadFile(c.Path("t"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		spoilt := bytes.Clone(data)
		spoilt[i] ^= 0x40
		if err := os.WriteFile(c.Path("t"), spoilt, 0o600); err != nil {
			t.Fatal(err)
		}
		if tb, err := c.Open("t", 20); err == nil || tb.Len() != 0 {
			t.Fatalf("byte %d flipped: %d entries read, %v", i, tb.Len(), err)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// env is a getenv of m.
func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestForUserMakesAPrivateKeyOutsideTheCache(t *testing.T) {
	home := t.TempDir()
	e := env(map[string]string{"HOME": home})
	c, err := ForUser(e, nil)
	if err != nil || c == nil {
		t.Fatalf("ForUser: %v, %v", c, err)
	}
	if c.Dir() != filepath.Join(home, ".cache", "orchestrate") {
		t.Fatalf("folder %s", c.Dir())
	}
	kf := KeyFile(e)
	if kf != filepath.Join(home, ".config", "orchestrate", "cache.key") {
		t.Fatalf("key file %s", kf)
	}
	fi, err := os.Stat(kf)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != keySize {
		t.Fatalf("key file: %v %v", fi, err)
	}
	writeOne(t, c, "t")
	// another run reads it with the same key
	c2, err := ForUser(e, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tb, err := c2.Open("t", 20); err != nil || tb.Len() != 1 {
		t.Fatalf("another run: %d entries, %v", tb.Len(), err)
	}
	if !hasMarker(c.Dir()) {
		t.Fatal("no marker in the folder made")
	}
	// a new key (another machine, a key lost): the tables are not read
	if err := os.Remove(kf); err != nil {
		t.Fatal(err)
	}
	c3, err := ForUser(e, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tb, _ := c3.Open("t", 20); tb.Len() != 0 {
		t.Fatal("a table of an older key was read")
	}
}

func TestForUserRefuses(t *testing.T) {
	type setup struct {
		env map[string]string
		// the folder checked to be left as it was
		check string
	}
	tests := []struct {
		name string
		make func(t *testing.T, home string) setup
		warn bool // a warning (else silently off)
	}{
		{"the root folder", func(t *testing.T, home string) setup {
			return setup{env: map[string]string{"HOME": home, EnvDir: "/"}}
		}, true},
		{"the home folder", func(t *testing.T, home string) setup {
			return setup{env: map[string]string{"HOME": home, EnvDir: home}, check: home}
		}, true},
		{"the home folder through a link", func(t *testing.T, home string) setup {
			link := filepath.Join(t.TempDir(), "h")
			if err := os.Symlink(home, link); err != nil {
				t.Skip(err)
			}
			return setup{env: map[string]string{"HOME": home, EnvDir: link}, check: home}
		}, true},
		{"a folder holding the user's files", func(t *testing.T, home string) setup {
			d := filepath.Join(home, "papers")
			os.Mkdir(d, 0o700)
			os.WriteFile(filepath.Join(d, "thesis.pdf"), bytes.Repeat([]byte("%PDF"), 1000), 0o600)
			return setup{env: map[string]string{"HOME": home, EnvDir: d}, check: d}
		}, true},
		{"a file of the user's named as a table", func(t *testing.T, home string) setup {
			d := filepath.Join(home, "notes")
			os.Mkdir(d, 0o700)
			os.WriteFile(filepath.Join(d, "stories"), []byte("my stories"), 0o600)
			return setup{env: map[string]string{"HOME": home, EnvDir: d}, check: d}
		}, true},
		{"another program's cache", func(t *testing.T, home string) setup {
			d := filepath.Join(home, "other")
			os.Mkdir(d, 0o700)
			os.WriteFile(filepath.Join(d, markerName), []byte("Signature: 8a477f597d28d172789f06886806bc55\n# other\n"), 0o600)
			return setup{env: map[string]string{"HOME": home, EnvDir: d}, check: d}
		}, true},
		{"a key others can read", func(t *testing.T, home string) setup {
			k := filepath.Join(home, ".config", "orchestrate")
			os.MkdirAll(k, 0o700)
			os.WriteFile(filepath.Join(k, keyFileName), bytes.Repeat([]byte{7}, keySize), 0o644)
			return setup{env: map[string]string{"HOME": home}, check: home}
		}, true},
		{"a key that is a symlink", func(t *testing.T, home string) setup {
			k := filepath.Join(home, ".config", "orchestrate")
			os.MkdirAll(k, 0o700)
			real := filepath.Join(t.TempDir(), "k")
			os.WriteFile(real, bytes.Repeat([]byte{7}, keySize), 0o600)
			if err := os.Symlink(real, filepath.Join(k, keyFileName)); err != nil {
				t.Skip(err)
			}
			return setup{env: map[string]string{"HOME": home}, check: home}
		}, true},
		{"a key of another size", func(t *testing.T, home string) setup {
			k := filepath.Join(home, ".config", "orchestrate")
			os.MkdirAll(k, 0o700)
			os.WriteFile(filepath.Join(k, keyFileName), []byte("short"), 0o600)
			return setup{env: map[string]string{"HOME": home}, check: home}
		}, true},
		{"a home that cannot be written", func(t *testing.T, home string) setup {
			if os.Geteuid() == 0 {
				t.Skip("root writes anywhere")
			}
			must(t, os.Chmod(home, 0o500))
			t.Cleanup(func() { os.Chmod(home, 0o700) })
			return setup{env: map[string]string{"HOME": home}, check: home}
		}, false},
		{"a missing home", func(t *testing.T, home string) setup {
			return setup{env: map[string]string{"HOME": filepath.Join(home, "nonexistent")}, check: home}
		}, false},
		{"a missing home with a cache folder set", func(t *testing.T, home string) setup {
			return setup{env: map[string]string{"HOME": filepath.Join(home, "nonexistent"), EnvDir: filepath.Join(home, "c")}, check: home}
		}, false},
		{"a missing XDG folder's parent", func(t *testing.T, home string) setup {
			return setup{env: map[string]string{"XDG_CACHE_HOME": filepath.Join(home, "no", "cache"), "XDG_CONFIG_HOME": filepath.Join(home, "no", "config")}, check: home}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "home")
			if err := os.Mkdir(home, 0o700); err != nil {
				t.Fatal(err)
			}
			s := tt.make(t, home)
			before := listing(t, s.check)
			c, err := ForUser(env(s.env), nil)
			if c != nil {
				t.Fatalf("a cache in %s", c.Dir())
			}
			if (err != nil) != tt.warn {
				t.Fatalf("warning %v, want one: %v", err, tt.warn)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Fatalf("a warning of more than one line: %q", err)
			}
			if after := listing(t, s.check); after != before {
				t.Fatalf("%s changed:\n%s\nwas\n%s", s.check, after, before)
			}
		})
	}
}

// listing lists every file under dir with its size ("" for no dir).
func listing(t *testing.T, dir string) string {
	if dir == "" {
		return ""
	}
	var b strings.Builder
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			fmt.Fprintf(&b, "%s %v %d\n", p, fi.Mode(), fi.Size())
		}
		return nil
	})
	return b.String()
}

func TestForUserClaimsAnEmptyFolderOrOneOfOurs(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string][]byte
	}{
		{"empty", nil},
		{"an earlier version's tables", map[string][]byte{
			"stories": []byte("orchestrate-cache 1\nold"),
			"git-commits-0123456789abcdef0123456789abcdef": []byte("orchestrate-cache 1\nold"),
			".stories.tmp-12-abc":                          nil,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			d := filepath.Join(t.TempDir(), "c")
			os.Mkdir(d, 0o700)
			for n, data := range tt.files {
				os.WriteFile(filepath.Join(d, n), data, 0o600)
			}
			c, err := ForUser(env(map[string]string{"HOME": home, EnvDir: d}), nil)
			if err != nil || c == nil {
				t.Fatalf("%v %v", c, err)
			}
			if !hasMarker(d) {
				t.Fatal("not marked")
			}
			writeOne(t, c, "t")
		})
	}
}

func TestForUserRefuseCallback(t *testing.T) {
	home := t.TempDir()
	e := env(map[string]string{"HOME": home})
	refused := map[string]bool{}
	c, err := ForUser(e, func(p string) bool { refused[p] = true; return strings.HasSuffix(p, keyFileName) })
	if c != nil || err != nil {
		t.Fatalf("%v %v", c, err)
	}
	if !refused[Dir(e)] || !refused[KeyFile(e)] {
		t.Fatalf("not both asked: %v", refused)
	}
	if _, err := os.Stat(KeyFile(e)); err == nil {
		t.Fatal("a refused key file was made")
	}
}

func TestWriteNeverTouchesAFolderOfTheUsers(t *testing.T) {
	d := t.TempDir()
	pdf := filepath.Join(d, "report.pdf")
	big := bytes.Repeat([]byte("x"), 1<<20)
	os.WriteFile(pdf, big, 0o600)
	old := time.Now().Add(-365 * 24 * time.Hour)
	os.Chtimes(pdf, old, old)
	c := New(d)
	b := NewBuilder(20)
	b.Add(key("a"), bytes.Repeat([]byte("v"), 1000))
	if err := c.Write("t", nil, b); err == nil {
		t.Fatal("a table was written in a folder of the user's")
	}
	c.prune("t", 0)
	if got, err := os.ReadFile(pdf); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("the user's file was changed: %v", err)
	}
	if _, err := os.Stat(c.Path("t")); err == nil {
		t.Fatal("a table was written")
	}
	if hasMarker(d) {
		t.Fatal("the folder was marked")
	}
}

func TestPruneKeepsFilesNamedAsTablesThatAreNot(t *testing.T) {
	c := New(filepath.Join(t.TempDir(), "cache"))
	writeOne(t, c, "t")
	// a file the user put in the folder afterwards, oldest and biggest
	notes := c.Path("notes")
	os.WriteFile(notes, bytes.Repeat([]byte("n"), 1<<20), 0o600)
	old := time.Now().Add(-365 * 24 * time.Hour)
	os.Chtimes(notes, old, old)
	writeOne(t, c, "u")
	c.prune("u", 0)
	if _, err := os.Stat(notes); err != nil {
		t.Fatal("a file that is not a table was pruned")
	}
	if _, err := os.Stat(c.Path("t")); err == nil {
		t.Fatal("a table over the limit was kept")
	}
}

func TestIsTemp(t *testing.T) {
	for n, want := range map[string]bool{
		".stories.tmp-12-abc":      true,
		".CACHEDIR.TAG.tmp-1-z":    true,
		".stories.tmp-12-":         false,
		".Thesis.tmp-1-2":          false,
		"stories.tmp-1-2":          false,
		".stories.tmp-x-2":         false,
		".my notes.tmp-1-2":        false,
		".git-paths-ab.tmp-99-1a2": true,
	} {
		if got := isTemp(n); got != want {
			t.Errorf("isTemp(%q) = %v, want %v", n, got, want)
		}
	}
}
