package diskcache

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// The key that authenticates the tables is the user's secret: keySize
// random bytes in KeyFile (0600, in a folder of the user's that others
// cannot write), made on first use with crypto/rand. It is kept outside
// the cache folder, so that a cache folder copied from elsewhere (a CI
// cache restored between jobs, another user's or machine's cache) holds no
// table this user's runs read: such tables were made with another key or
// none. A key file that cannot be made or read safely turns the cache off.

// keySize is the size of the MAC key.
const keySize = 32

// keyFileName names the key file in the user's orchestrate config folder.
const keyFileName = "cache.key"

// place is where a folder of the cache's goes: the folder, and the
// existing folder it may be created under (anchor; never created).
type place struct {
	dir, anchor string
}

// cachePlace is the cache folder getenv's environment names (see Dir).
func cachePlace(getenv func(string) string) place {
	if v := getenv(EnvDir); v != "" {
		if v == Off || !filepath.IsAbs(v) {
			return place{}
		}
		d := filepath.Clean(v)
		return place{d, filepath.Dir(d)}
	}
	return xdgPlace(getenv, "XDG_CACHE_HOME", ".cache")
}

// keyPlace is the folder of the key file: $XDG_CONFIG_HOME/orchestrate,
// else $HOME/.config/orchestrate (absolute paths only).
func keyPlace(getenv func(string) string) place {
	return xdgPlace(getenv, "XDG_CONFIG_HOME", ".config")
}

// xdgPlace is the orchestrate folder of an XDG base directory: in the
// folder the variable xdg names, else in $HOME/<home>; absolute paths only
// (a relative value is ignored, as the XDG specification says). The anchor
// is the XDG folder's parent, or $HOME.
func xdgPlace(getenv func(string) string, xdg, home string) place {
	if x := getenv(xdg); x != "" && filepath.IsAbs(x) {
		x = filepath.Clean(x)
		return place{filepath.Join(x, "orchestrate"), filepath.Dir(x)}
	}
	if h := getenv("HOME"); h != "" && filepath.IsAbs(h) {
		h = filepath.Clean(h)
		return place{filepath.Join(h, home, "orchestrate"), h}
	}
	return place{}
}

// Dir returns the cache folder getenv's environment names, or "" when the
// cache is off: ORCHESTRATE_CACHE_DIR (an absolute path, or "off"), else
// $XDG_CACHE_HOME/orchestrate, else $HOME/.cache/orchestrate. A relative
// value is ignored, as the XDG specification says.
func Dir(getenv func(string) string) string { return cachePlace(getenv).dir }

// KeyFile returns where the key the cache's tables are authenticated with
// is kept ($XDG_CONFIG_HOME/orchestrate/cache.key, else
// $HOME/.config/orchestrate/cache.key), or "" when neither is set to an
// absolute path.
func KeyFile(getenv func(string) string) string {
	p := keyPlace(getenv)
	if p.dir == "" {
		return ""
	}
	return filepath.Join(p.dir, keyFileName)
}

// ForUser returns the user's cache as getenv's environment places it (Dir,
// KeyFile), or nil when it is off. refuse, when not nil, turns it off for a
// folder or key file it refuses (one inside the repository). Nothing is
// created where the environment points at a folder that is not there (a
// missing home). The error, only ever with a nil cache, says why a cache
// that was asked for is not used — a folder that is not orchestrate's, "/",
// the home folder, a key that cannot be read safely — for a warning: the
// run goes on without the cache.
func ForUser(getenv func(string) string, refuse func(path string) bool) (*Cache, error) {
	cp, kp := cachePlace(getenv), keyPlace(getenv)
	if cp.dir == "" || kp.dir == "" {
		return nil, nil
	}
	keyFile := filepath.Join(kp.dir, keyFileName)
	if refuse != nil && (refuse(cp.dir) || refuse(keyFile)) {
		return nil, nil
	}
	if cp.dir == "/" || sameFolder(cp.dir, getenv("HOME")) {
		return nil, fmt.Errorf("cache folder %s: the root or home folder itself is not used as a cache; point %s at a folder of its own, or set it to off", cp.dir, EnvDir)
	}
	if !exists(cp.dir) && !exists(cp.anchor) {
		return nil, nil // a missing home: nothing is created
	}
	if !exists(kp.dir) && !exists(kp.anchor) {
		return nil, nil
	}
	key, err := loadKey(kp)
	if errors.Is(err, errCannotMake) {
		return nil, nil // a home or config folder that cannot be written: off, silently
	}
	if err != nil {
		return nil, fmt.Errorf("cache key %s: %w; running without the cache", keyFile, err)
	}
	c := &Cache{dir: cp.dir, anchor: cp.anchor, key: key}
	if exists(cp.dir) {
		if err := c.checkDir(true); err != nil {
			return nil, fmt.Errorf("%w; running without the cache", err)
		}
	}
	return c, nil
}

// exists reports whether path is there (a symlink counts).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// sameFolder reports whether a and b name the same folder (b not empty),
// as given or through symbolic links.
func sameFolder(a, b string) bool {
	if b == "" || !filepath.IsAbs(b) {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// errCannotMake is loadKey's error when there is no key and none can be
// made: no anchor, or a folder that cannot be written (a read-only home).
var errCannotMake = errors.New("no key, and none can be made")

// loadKey reads the key in p.dir, making it (and p.dir, 0700, under its
// existing anchor) when there is none.
func loadKey(p place) ([]byte, error) {
	path := filepath.Join(p.dir, keyFileName)
	key, err := readKey(p.dir, path)
	if !errors.Is(err, os.ErrNotExist) {
		return key, err
	}
	if fi, err := os.Stat(p.anchor); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s is not there: %w", p.anchor, errCannotMake)
	}
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		if errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EROFS) {
			return nil, fmt.Errorf("%w: %w", errCannotMake, err)
		}
		return nil, err
	}
	if err := checkKeyDir(p.dir); err != nil {
		return nil, err
	}
	var fresh [keySize]byte
	_, _ = rand.Read(fresh[:]) // never fails (it ends the program when it cannot)
	tmp := filepath.Join(p.dir, "."+keyFileName+".tmp-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EROFS) {
			return nil, fmt.Errorf("%w: %w", errCannotMake, err)
		}
		return nil, err
	}
	_, werr := f.Write(fresh[:])
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		// a link, not a rename: a key another run made meanwhile stays
		if err := os.Link(tmp, path); err != nil && !errors.Is(err, os.ErrExist) {
			werr = err
		}
	}
	_ = os.Remove(tmp)
	if werr != nil {
		return nil, werr
	}
	return readKey(p.dir, path)
}

// checkKeyDir checks that the key's folder is a folder of the user's (not
// a symlink) that others cannot write.
func checkKeyDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a folder (a symlink is not followed)", dir)
	}
	if err := ownedPrivate(fi, true); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	return nil
}

// readKey reads the key file at path in dir: a regular file of the user's
// (no symlink followed) that nobody else can read or write, of exactly
// keySize bytes.
func readKey(dir, path string) ([]byte, error) {
	if err := checkKeyDir(dir); err != nil {
		return nil, err
	}
	f, fi, err := openPrivate(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, errors.New("readable by other users (chmod 600)")
	}
	if fi.Size() != keySize {
		return nil, fmt.Errorf("%d bytes, not %d", fi.Size(), keySize)
	}
	key := make([]byte, keySize)
	if _, err := io.ReadFull(f, key); err != nil {
		return nil, err
	}
	return key, nil
}

// processKey is New's key: random, made once per process.
var processKey = sync.OnceValue(func() []byte {
	k := make([]byte, keySize)
	_, _ = rand.Read(k) // never fails (it ends the program when it cannot)
	return k
})
