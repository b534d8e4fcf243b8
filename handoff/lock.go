package handoff

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// DefaultLease is how long a lock held on another host is trusted when the
// lock records no lease of its own: older than that, it is stale.
const DefaultLease = 2 * time.Hour

// maxLockSize is the largest lock file read; a bigger one is not ours.
const maxLockSize = 64 << 10

// Seams tests swap for determinism.
var (
	// processAlive reports whether a process with this pid exists on this
	// host: kill(pid, 0) succeeds or fails with EPERM (it exists, owned by
	// someone else); ESRCH means it is gone.
	processAlive = func(pid int) bool {
		if pid <= 0 {
			return false
		}
		err := syscall.Kill(pid, 0)
		return err == nil || errors.Is(err, syscall.EPERM)
	}
	// currentUID is the user id lock files must belong to.
	currentUID = os.Getuid
	// hostname is this host's name, for Inspect and Remove.
	hostname = os.Hostname
	// timeNow is the clock for lease checks when the caller gives none.
	timeNow = time.Now
)

// LockInfo describes the process holding a lock. It is written to the lock
// file as JSON with snake_case keys; the lease is a Go duration string.
type LockInfo struct {
	PID       int
	Host      string
	User      string
	StartedAt time.Time
	Command   string
	// Lease is how long the lock is trusted from another host; 0 means
	// DefaultLease.
	Lease time.Duration
}

type lockJSON struct {
	PID       int       `json:"pid"`
	Host      string    `json:"host"`
	User      string    `json:"user"`
	StartedAt time.Time `json:"started_at"`
	Command   string    `json:"command"`
	Lease     string    `json:"lease,omitempty"`
}

// MarshalJSON writes the lock record with snake_case keys.
func (l LockInfo) MarshalJSON() ([]byte, error) {
	j := lockJSON{PID: l.PID, Host: l.Host, User: l.User, StartedAt: l.StartedAt, Command: l.Command}
	if l.Lease > 0 {
		j.Lease = l.Lease.String()
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads a lock record; lease may be a duration text ("2h") or
// a number of nanoseconds (how encoding/json writes a time.Duration).
func (l *LockInfo) UnmarshalJSON(data []byte) error {
	var j struct {
		PID       int             `json:"pid"`
		Host      string          `json:"host"`
		User      string          `json:"user"`
		StartedAt time.Time       `json:"started_at"`
		Command   string          `json:"command"`
		Lease     json.RawMessage `json:"lease"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*l = LockInfo{PID: j.PID, Host: j.Host, User: j.User, StartedAt: j.StartedAt, Command: j.Command}
	if len(j.Lease) == 0 || string(j.Lease) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(j.Lease, &s); err == nil {
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("lease %q: %w", s, err)
		}
		l.Lease = d
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(j.Lease, &n); err != nil {
		return fmt.Errorf("lease: want a duration text or a number of nanoseconds")
	}
	if i, err := n.Int64(); err == nil {
		l.Lease = time.Duration(i)
		return nil
	}
	f, err := n.Float64()
	if err != nil || f > math.MaxInt64 || f < math.MinInt64 {
		return fmt.Errorf("lease %s: out of range", n)
	}
	l.Lease = time.Duration(f)
	return nil
}

// lease is the lock's lease, DefaultLease when unset.
func (l LockInfo) lease() time.Duration {
	if l.Lease > 0 {
		return l.Lease
	}
	return DefaultLease
}

// LockedError is returned when a workflow's lock is held by a live process,
// or when the lock file cannot be trusted (Reason says why: not JSON, owned by
// another user, permissions looser than 0600, a symlink). Such a lock is
// never removed automatically.
type LockedError struct {
	Owner  LockInfo
	Path   string
	Reason string // empty for a live owner
}

// Error implements error.
func (e *LockedError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("lock %s refused: %s (it is never removed automatically; check it and run orchestrate unlock --force)", e.Path, e.Reason)
	}
	return fmt.Sprintf("locked by a live process: pid %d on %s (user %s, since %s), lock %s",
		e.Owner.PID, e.Owner.Host, e.Owner.User, e.Owner.StartedAt.Format(time.RFC3339), e.Path)
}

// StaleLockError is returned when a workflow's lock belongs to a process that
// is gone (dead on this host, or past its lease on another host) and the
// caller did not ask to take it over.
type StaleLockError struct {
	Owner LockInfo
	Path  string
}

// Error implements error.
func (e *StaleLockError) Error() string {
	return fmt.Sprintf("stale lock %s: pid %d on %s (user %s, since %s) is gone; take it over (--force) or remove it (orchestrate unlock)",
		e.Path, e.Owner.PID, e.Owner.Host, e.Owner.User, e.Owner.StartedAt.Format(time.RFC3339))
}

// Lock is a lock this process holds.
type Lock struct {
	// Path is the lock file.
	Path string
	// Info is what the lock file says about this process.
	Info LockInfo
	// TookOver is the owner of the stale lock this one replaced, or nil.
	TookOver *LockInfo
	content  []byte
	root     string // the repository, and the lock's name in its locks folder
	name     string
}

// LockState is what Inspect finds about a workflow's lock.
type LockState struct {
	Exists bool
	// Live is set when the owner is alive, or when the lock file cannot be
	// trusted (Reason says why): either way a resume must not proceed.
	Live bool
	// Stale is set when the owner is gone: the lock may be taken over.
	Stale bool
	Owner LockInfo
	// Reason explains a lock that cannot be trusted; empty otherwise.
	Reason string
}

// SafeID turns a candidate id into a file name stem: every character outside
// [A-Za-z0-9._-] becomes "_"; a very long id is shortened with a hash so
// distinct ids keep distinct names.
func SafeID(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > 100 {
		sum := sha256.Sum256([]byte(id))
		s = s[:80] + "-" + hex.EncodeToString(sum[:8])
	}
	if strings.Trim(s, ".") == "" {
		s = strings.ReplaceAll(s, ".", "_")
	}
	return s
}

// LockPath is the lock file of workflow id under root:
// .orchestrate/locks/<safe id>.lock.
func LockPath(root, id string) string {
	return filepath.Join(root, ".orchestrate", "locks", SafeID(id)+".lock")
}

// locksRel is the locks folder, relative to the repository root.
const locksRel = ".orchestrate/locks"

// openLocksDir opens .orchestrate/locks under root without following a
// symlink anywhere (a symlinked .orchestrate or locks folder is refused with
// a *safefile.RefusedError), creating it when create is set. Every lock file
// operation then happens inside this folder's descriptor. See
// docs/SECURITY.md.
func openLocksDir(root string, create bool) (*safefile.Dir, error) {
	return safefile.OpenDir(root, locksRel, create)
}

// lockName is the lock file's name inside the locks folder.
func lockName(id string) string { return SafeID(id) + ".lock" }

// Acquire takes the lock of workflow id: .orchestrate/locks/<safe id>.lock,
// created exclusively (mode 0600) with info as JSON, and synced. When the
// lock exists: a live owner gives *LockedError; an owner dead on this host
// (info.Host) or past its lease on another host gives *StaleLockError unless
// takeOverStale, in which case the stale lock is removed and the exclusive
// create is tried once more (so two processes taking over the same stale
// lock cannot both win). A lock file that is not valid JSON, is owned by
// another user, has permissions looser than 0600, or is a symlink is refused
// as *LockedError with a reason and left in place.
func Acquire(root, id string, info LockInfo, takeOverStale bool) (*Lock, error) {
	if id == "" {
		return nil, errors.New("acquire lock: empty workflow id")
	}
	if _, err := safefile.CheckPath(root, locksRel); err != nil {
		return nil, fmt.Errorf("acquire lock of %s: %w", id, err) // a symlink leading out
	}
	path := LockPath(root, id)
	d, err := openLocksDir(root, true)
	if err != nil {
		return nil, fmt.Errorf("acquire lock of %s: the locks folder: %w", id, err)
	}
	defer d.Close()
	name := lockName(id)
	content, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("acquire lock of %s: %w", id, err)
	}
	content = append(content, '\n')
	now := info.StartedAt
	if now.IsZero() {
		now = timeNow()
	}

	for attempt := 0; attempt < 2; attempt++ {
		err := createExclusive(d, name, content)
		if err == nil {
			return &Lock{Path: path, Info: info, content: content, root: root, name: name}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("acquire lock of %s: %w", id, err)
		}
		st, raw := inspectFile(d, name, info.Host, now)
		switch {
		case !st.Exists:
			continue // released in between: try again
		case st.Reason != "":
			return nil, &LockedError{Owner: st.Owner, Path: path, Reason: st.Reason}
		case st.Live:
			return nil, &LockedError{Owner: st.Owner, Path: path}
		}
		// stale
		if !takeOverStale {
			return nil, &StaleLockError{Owner: st.Owner, Path: path}
		}
		return takeOver(d, root, name, path, id, info, content, now, raw)
	}
	st, _ := inspectFile(d, name, info.Host, now)
	return nil, &LockedError{Owner: st.Owner, Path: path, Reason: reasonIfAny(st, "the lock kept changing while it was being taken")}
}

// takeOver replaces the stale lock name, whose content was raw when it was
// judged stale, with this process's lock. Takeovers are serialised by an
// advisory lock on the locks folder (released by the kernel if the process
// dies), and the stale lock is removed only if it still holds raw: a lock
// another process created meanwhile is never removed, so at most one
// process ever holds the lock.
func takeOver(d *safefile.Dir, repoRoot, name, path, id string, info LockInfo, content []byte, now time.Time, raw []byte) (*Lock, error) {
	unlock, err := d.Lock()
	if err != nil {
		return nil, fmt.Errorf("acquire lock of %s: take over the stale lock: %w", id, err)
	}
	defer unlock()
	st, cur := inspectFile(d, name, info.Host, now)
	var took *LockInfo
	if st.Exists {
		if !bytes.Equal(cur, raw) {
			if st.Reason == "" && !st.Live {
				st.Reason = "another process took the stale lock over first"
			}
			return nil, &LockedError{Owner: st.Owner, Path: path, Reason: reasonIfAny(st, "the lock changed while it was being taken over")}
		}
		if err := d.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("acquire lock of %s: take over the stale lock: %w", id, err)
		}
		owner := st.Owner
		took = &owner
	}
	if err := createExclusive(d, name, content); err != nil {
		if errors.Is(err, fs.ErrExist) {
			st, _ := inspectFile(d, name, info.Host, now)
			return nil, &LockedError{Owner: st.Owner, Path: path, Reason: reasonIfAny(st, "another process took the stale lock over first")}
		}
		return nil, fmt.Errorf("acquire lock of %s: %w", id, err)
	}
	return &Lock{Path: path, Info: info, TookOver: took, content: content, root: repoRoot, name: name}, nil
}

func reasonIfAny(st LockState, dflt string) string {
	if st.Reason != "" {
		return st.Reason
	}
	if st.Live {
		return ""
	}
	return dflt
}

// createExclusive creates name in the locks folder d, mode 0600, with
// content, synced (file and folder).
func createExclusive(d *safefile.Dir, name string, content []byte) error {
	return linkNew(d, name, content, 0o600, "lock file")
}

// linkNew creates name in d with content and mode perm, all or nothing, and
// never replaces an existing file: the content is written to a temporary file
// first (created exclusively, never through a symlink), synced, then linked
// into place. The link fails with fs.ErrExist if name exists (as O_EXCL
// would), and a process killed half-way never leaves an empty or partial file
// behind — only a stray temporary file, which nothing reads. A failure to
// write the temporary file is wrapped as "write <what>: …" when what is not
// empty; other errors are returned as they are.
func linkNew(d *safefile.Dir, name string, content []byte, perm fs.FileMode, what string) error {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := name + ".tmp-" + hex.EncodeToString(rnd[:])
	f, err := d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, werr := f.Write(content)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = d.Remove(tmp)
		if what != "" {
			return fmt.Errorf("write %s: %w", what, werr)
		}
		return werr
	}
	err = d.Link(tmp, d, name)
	_ = d.Remove(tmp)
	if err != nil {
		return err // fs.ErrExist when the file exists (another process holds the lock)
	}
	_ = d.Sync()
	return nil
}

// inspectFile reads and judges the lock name in the locks folder d; host is
// this host's name and now the current time. raw is the file's content when
// it was read. The lock is opened without following a symlink and without
// blocking, so a symlinked lock, a FIFO or a device is refused at once.
func inspectFile(d *safefile.Dir, name, host string, now time.Time) (LockState, []byte) {
	st := LockState{Exists: true}
	refuse := func(reason string) (LockState, []byte) {
		st.Live, st.Stale, st.Reason = true, false, reason
		return st, nil
	}
	f, err := d.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		var refused *safefile.RefusedError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return LockState{}, nil
		case errors.Is(err, safefile.ErrSymlink):
			return refuse("the lock file is a symlink")
		case errors.As(err, &refused):
			return refuse("the lock file is not a regular file (it " + refused.What + ")")
		}
		return refuse(fmt.Sprintf("cannot read the lock file: %v", err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return refuse(fmt.Sprintf("cannot inspect the lock file: %v", err))
	}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != currentUID() {
		return refuse(fmt.Sprintf("the lock file is owned by another user (uid %d)", sys.Uid))
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return refuse(fmt.Sprintf("the lock file's permissions %04o are looser than 0600", perm))
	}
	if fi.Size() > maxLockSize {
		return refuse("the lock file is too large to be a lock")
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxLockSize+1))
	if err != nil {
		return refuse(fmt.Sprintf("cannot read the lock file: %v", err))
	}
	if len(raw) > maxLockSize {
		return refuse("the lock file is too large to be a lock")
	}
	var owner LockInfo
	if err := json.Unmarshal(raw, &owner); err != nil {
		return refuse(fmt.Sprintf("the lock file is not a valid lock (%v)", err))
	}
	st.Owner = owner
	if owner.PID <= 0 {
		return refuse("the lock file records no process id")
	}
	if owner.Host != "" && owner.Host == host {
		st.Live = processAlive(owner.PID)
	} else {
		st.Live = owner.StartedAt.IsZero() || now.Sub(owner.StartedAt) <= owner.lease()
	}
	st.Stale = !st.Live
	return st, raw
}

// Release removes the lock, only if the file still holds what this process
// wrote (a lock taken over by someone else is left alone, with an error).
// The lock is reached without following a symlink.
func (l *Lock) Release() error {
	if l == nil {
		return nil
	}
	root, name := l.root, l.name
	if name == "" { // a Lock built by hand: its path names the lock
		root, name = filepath.Dir(l.Path), filepath.Base(l.Path)
	}
	d, err := openLocksDirAt(root, l.name != "")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("release lock %s: it is gone (removed by someone else)", l.Path)
		}
		return fmt.Errorf("release lock %s: %w", l.Path, err)
	}
	defer d.Close()
	got, err := d.ReadFile(name, maxLockSize)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("release lock %s: it is gone (removed by someone else)", l.Path)
		}
		return fmt.Errorf("release lock %s: %w", l.Path, err)
	}
	if !bytes.Equal(got, l.content) {
		return fmt.Errorf("release lock %s: it is no longer ours (taken over by another process); left in place", l.Path)
	}
	if err := d.Remove(name); err != nil {
		return fmt.Errorf("release lock %s: %w", l.Path, err)
	}
	_ = d.Sync()
	return nil
}

// openLocksDirAt opens the locks folder of the repository root (inRepo), or
// the folder dir itself.
func openLocksDirAt(dir string, inRepo bool) (*safefile.Dir, error) {
	if inRepo {
		return openLocksDir(dir, false)
	}
	return safefile.OpenDir(dir, ".", false)
}

// ReadLock reads the lock of workflow id: its owner, and whether a lock file
// exists. A lock file that exists but is not a valid lock gives an error.
func ReadLock(root, id string) (LockInfo, bool, error) {
	path := LockPath(root, id)
	d, err := openLocksDir(root, false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return LockInfo{}, false, nil
		}
		return LockInfo{}, true, fmt.Errorf("read lock %s: %w", path, err)
	}
	defer d.Close()
	raw, err := d.ReadFile(lockName(id), maxLockSize)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return LockInfo{}, false, nil
		}
		if errors.Is(err, safefile.ErrTooLarge) {
			return LockInfo{}, true, fmt.Errorf("read lock %s: too large to be a lock", path)
		}
		return LockInfo{}, true, fmt.Errorf("read lock %s: %w", path, err)
	}
	var info LockInfo
	if err := json.Unmarshal(raw, &info); err != nil {
		return LockInfo{}, true, fmt.Errorf("read lock %s: not a valid lock: %w", path, err)
	}
	return info, true, nil
}

// Inspect reports the lock of workflow id as this host sees it now: whether
// it exists, whether its owner is live or stale, and why a lock that cannot
// be trusted is refused (such a lock counts as live).
func Inspect(root, id string) LockState {
	host, _ := hostname()
	d, err := openLocksDir(root, false)
	if err != nil {
		// no locks folder, or one that is refused (a symlink): no lock can
		// be held there, and Acquire reports the refusal
		return LockState{}
	}
	defer d.Close()
	st, _ := inspectFile(d, lockName(id), host, timeNow())
	return st
}

// Remove deletes the lock of workflow id (orchestrate unlock). A lock held by
// a live owner, or one that cannot be trusted, needs force; a missing lock is
// not an error. A symlinked lock is removed as a link, never followed.
func Remove(root, id string, force bool) error {
	path := LockPath(root, id)
	d, err := openLocksDir(root, false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("remove lock of %s: the locks folder: %w", id, err)
	}
	defer d.Close()
	host, _ := hostname()
	st, _ := inspectFile(d, lockName(id), host, timeNow())
	if !st.Exists {
		return nil
	}
	if st.Live && !force {
		return &LockedError{Owner: st.Owner, Path: path, Reason: st.Reason}
	}
	if err := d.Remove(lockName(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove lock %s: %w", path, err)
	}
	_ = d.Sync()
	return nil
}
