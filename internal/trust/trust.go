// Package trust records which repository configuration files the user has
// trusted, the way direnv and mise do: a file is identified by its absolute
// path and the SHA-256 of its exact bytes, so any edit makes it untrusted
// again. The record lives in the user's configuration folder
// ($XDG_CONFIG_HOME/orchestrate/trusted.json, else
// $HOME/.config/orchestrate/trusted.json), never in a repository. See
// docs/SECURITY.md for what trust unlocks.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/atomicfile"
)

// State is what the store says about one file.
type State int

const (
	// Untrusted: the file was never trusted (or its trust was revoked).
	Untrusted State = iota
	// Trusted: the file's exact bytes were trusted.
	Trusted
	// Changed: the file was trusted, but its bytes differ from what was trusted.
	Changed
)

// String is the state's word in messages and --json: trusted, untrusted or
// changed.
func (s State) String() string {
	switch s {
	case Trusted:
		return "trusted"
	case Changed:
		return "changed"
	}
	return "untrusted"
}

// MaxStoreSize caps the store file read: a bigger file is refused as corrupt
// rather than read into memory.
const MaxStoreSize = 4 << 20

// storeVersion is the format version written in the store.
const storeVersion = 1

// FileName is the store's name inside the orchestrate configuration folder.
const FileName = "trusted.json"

// ErrNoConfigDir is returned by DefaultPath when neither XDG_CONFIG_HOME
// (absolute) nor HOME is set.
var ErrNoConfigDir = errors.New("no user configuration folder: set HOME or XDG_CONFIG_HOME")

// Record is one trusted file.
type Record struct {
	SHA256    string `json:"sha256"`
	TrustedAt string `json:"trusted_at,omitempty"`
}

// document is the on-disk shape of the store.
type document struct {
	Version int               `json:"version"`
	Files   map[string]Record `json:"files"`
}

// Store is the trust record in one file. The zero value is not usable: set
// Path (DefaultPath gives the usual one).
type Store struct {
	// Path is the store file.
	Path string
	// Now stamps new records; nil means time.Now.
	Now func() time.Time
}

// DefaultPath returns the store's usual location from the environment
// (getenv, injected): $XDG_CONFIG_HOME/orchestrate/trusted.json when
// XDG_CONFIG_HOME is an absolute path, else $HOME/.config/orchestrate/trusted.json.
func DefaultPath(getenv func(string) string) (string, error) {
	if xdg := getenv("XDG_CONFIG_HOME"); xdg != "" && filepath.IsAbs(xdg) {
		return filepath.Join(xdg, "orchestrate", FileName), nil
	}
	if home := getenv("HOME"); home != "" && filepath.IsAbs(home) {
		return filepath.Join(home, ".config", "orchestrate", FileName), nil
	}
	return "", ErrNoConfigDir
}

// Open returns the store at its usual location (DefaultPath).
func Open(getenv func(string) string) (*Store, error) {
	p, err := DefaultPath(getenv)
	if err != nil {
		return nil, err
	}
	return &Store{Path: p}, nil
}

// Hash is the hex SHA-256 of data, as recorded.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// key is how a file is named in the store: its absolute, cleaned path.
func key(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("trust %s: %w", path, err)
	}
	return abs, nil
}

// Check reports whether path, whose current content is data, is trusted.
// A missing store means nothing is trusted. A store that cannot be read or
// parsed gives Untrusted and an error naming the store file.
func (s *Store) Check(path string, data []byte) (State, error) {
	k, err := key(path)
	if err != nil {
		return Untrusted, err
	}
	doc, err := s.read()
	if err != nil {
		return Untrusted, err
	}
	rec, ok := doc.Files[k]
	if !ok {
		return Untrusted, nil
	}
	if rec.SHA256 == Hash(data) {
		return Trusted, nil
	}
	return Changed, nil
}

// Trust records path with the hash of data, replacing any earlier record of
// path. A corrupt store is refused (its other records are not discarded
// silently): the error names the file to fix or remove.
func (s *Store) Trust(path string, data []byte) error {
	k, err := key(path)
	if err != nil {
		return err
	}
	return s.update(func(doc *document) bool {
		now := time.Now
		if s.Now != nil {
			now = s.Now
		}
		doc.Files[k] = Record{SHA256: Hash(data), TrustedAt: now().UTC().Format(time.RFC3339)}
		return true
	})
}

// Revoke removes the record of path and reports whether there was one.
func (s *Store) Revoke(path string) (bool, error) {
	k, err := key(path)
	if err != nil {
		return false, err
	}
	found := false
	err = s.update(func(doc *document) bool {
		if _, ok := doc.Files[k]; ok {
			delete(doc.Files, k)
			found = true
		}
		return found
	})
	return found, err
}

// Paths lists the trusted files, sorted.
func (s *Store) Paths() ([]string, error) {
	doc, err := s.read()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(doc.Files))
	for p := range doc.Files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// update applies change to the store under an exclusive lock (so that two
// concurrent `orchestrate trust` never lose a record) and writes it back
// atomically, mode 0600, when change reports a modification.
func (s *Store) update(change func(*document) bool) error {
	if s.Path == "" {
		return errors.New("trust store: no path")
	}
	dir := filepath.Dir(s.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("trust store %s: %w", s.Path, err)
	}
	unlock, err := lockFile(s.Path + ".lock")
	if err != nil {
		return fmt.Errorf("trust store %s: %w", s.Path, err)
	}
	defer unlock()
	doc, err := s.read()
	if err != nil {
		return err
	}
	if !change(doc) {
		return nil
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("trust store %s: %w", s.Path, err)
	}
	data = append(data, '\n')
	if len(data) > MaxStoreSize {
		return fmt.Errorf("trust store %s: would exceed %d bytes", s.Path, MaxStoreSize)
	}
	if err := atomicfile.Write(s.Path, data, 0o600); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	return nil
}

// read loads the store: bounded, non-blocking (a FIFO or device in its place
// fails at once), regular files only. A missing store is empty.
func (s *Store) read() (*document, error) {
	empty := &document{Version: storeVersion, Files: map[string]Record{}}
	if s.Path == "" {
		return empty, nil
	}
	f, err := os.OpenFile(s.Path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust store %s: %w", s.Path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("trust store %s: %w", s.Path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("trust store %s: not a regular file", s.Path)
	}
	if fi.Size() > MaxStoreSize {
		return nil, fmt.Errorf("trust store %s: larger than %d bytes: fix or remove it", s.Path, MaxStoreSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxStoreSize+1))
	if err != nil {
		return nil, fmt.Errorf("trust store %s: %w", s.Path, err)
	}
	if len(data) > MaxStoreSize {
		return nil, fmt.Errorf("trust store %s: larger than %d bytes: fix or remove it", s.Path, MaxStoreSize)
	}
	if len(data) == 0 {
		return empty, nil
	}
	var doc document
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("trust store %s is corrupt (%v): fix or remove it", s.Path, err)
	}
	if doc.Version != storeVersion && doc.Version != 0 {
		return nil, fmt.Errorf("trust store %s: unknown version %d (want %d): fix or remove it", s.Path, doc.Version, storeVersion)
	}
	if doc.Files == nil {
		doc.Files = map[string]Record{}
	}
	return &doc, nil
}

// lockFile takes an exclusive advisory lock on path (created 0600) and
// returns its release.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s: not a regular file", path)
		}
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
