// Package planfile is the saved pre-flight plan: `orchestrate resume
// --dry-run --plan-out FILE` writes one, `orchestrate resume --plan FILE`
// applies it. A plan records what was decided (workflow, phase, mode,
// decision, approval) and a digest of everything the decision depends on
// (the state file, each referenced file, HEAD, the lock, the version); it is
// applied only when every one of those is unchanged. A plan travels between
// CI jobs, so it carries a signature over a canonical encoding: HMAC-SHA256
// with a key (ORCHESTRATE_PLAN_KEY), else a plain SHA-256 self-check that
// detects accidents, not attacks. See docs/SECURITY.md.
package planfile

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/atomicfile"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// Schema is the schema of a plan file.
const Schema = "orchestrate-plan/v1"

// MaxSize bounds a plan file: Load refuses a larger one.
const MaxSize = 1 << 20

// Signature algorithms.
const (
	// AlgHMAC is HMAC-SHA256 with ORCHESTRATE_PLAN_KEY: the plan cannot be
	// altered without the key.
	AlgHMAC = "hmac-sha256"
	// AlgSHA256 is a plain SHA-256 of the canonical encoding: it detects
	// an accidental edit or a truncated copy, not a deliberate forgery.
	AlgSHA256 = "sha256"
)

// Errors Load refuses a plan with, matched with errors.Is.
var (
	// ErrUnsigned: a key is set and the plan carries no HMAC signature.
	ErrUnsigned = errors.New("the plan is not signed (ORCHESTRATE_PLAN_KEY is set: only a plan signed with it is applied)")
	// ErrBadSignature: the signature or self-check does not match the
	// content: the plan file was altered.
	ErrBadSignature = errors.New("the plan file was altered (its signature does not match its content)")
	// ErrKeyNeeded: the plan is signed and no key is set to verify it.
	ErrKeyNeeded = errors.New("the plan is signed and ORCHESTRATE_PLAN_KEY is not set: it cannot be verified")
	// ErrSchema: the file is not an orchestrate plan of a schema this
	// version reads.
	ErrSchema = errors.New("not an orchestrate plan file (schema " + Schema + ")")
)

// Dep kinds: what a plan depends on.
const (
	KindVersion  = "version"  // Digest: "orchestrate <version>"
	KindWorkflow = "workflow" // Digest: the workflow (candidate) id
	KindState    = "state"    // Path: the state file; Digest: its bytes' digest
	KindFile     = "file"     // Path: a referenced file; Digest: its content digest
	KindHead     = "head"     // Digest: the HEAD commit hash, or "none"
	KindLock     = "lock"     // Digest: LockFree or "held by pid N on HOST"
	KindPhase    = "phase"    // Digest: the phase the resume starts from
	KindMode     = "mode"     // Digest: autopilot, interactive or preflight
	KindDecision = "decision" // Digest: resume, ask or halt, re-derived on apply
)

// Digest values that are not a hash.
const (
	Missing  = "missing"
	NoHead   = "none"
	LockFree = "free"
)

// Dep is one thing a plan depends on, with its digest when the plan was made.
type Dep struct {
	Kind   string `json:"kind"`
	Path   string `json:"path,omitempty"`
	Digest string `json:"digest"`
}

// File is a saved plan. The signature covers every other field (see
// Canonical); CreatedAt is informational and signed too.
type File struct {
	Schema     string    `json:"schema"`
	CreatedAt  time.Time `json:"created_at"`
	Version    string    `json:"orchestrate_version"`
	WorkflowID string    `json:"workflow_id"`
	Phase      string    `json:"phase"`
	Mode       string    `json:"mode"`
	Decision   string    `json:"decision"`
	Reason     string    `json:"reason,omitempty"`
	Approved   bool      `json:"approved"`
	Forced     bool      `json:"forced"`
	Restart    bool      `json:"restart,omitempty"`
	FromPhase  string    `json:"from_phase,omitempty"`
	// Summary fields, for a reviewer reading the file.
	StateFile string   `json:"state_file"`
	Agent     string   `json:"agent,omitempty"`
	Remaining []string `json:"remaining_phases,omitempty"`
	// Deps are what the plan depends on, sorted by kind then path.
	Deps []Dep `json:"deps"`
	// SignatureAlg is AlgHMAC or AlgSHA256; Signature is hex.
	SignatureAlg string `json:"signature_alg"`
	Signature    string `json:"signature"`
}

// Signed reports whether the plan carries an HMAC signature.
func (f File) Signed() bool { return f.SignatureAlg == AlgHMAC }

// DigestBytes is the digest of data: "sha256:<hex>".
func DigestBytes(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// FileDigest is the digest of the working-tree file root/rel, read through
// the repository's confined reader (no symlink followed, no FIFO opened,
// at most max bytes hashed; max <= 0 means no limit): DigestBytes of its
// content, Missing when it does not exist, or "unreadable: <why>" when it
// cannot be read (a symlink, a folder, too large), so that a file that
// becomes readable (or unreadable) counts as a change.
func FileDigest(root, rel string, max int64) string {
	f, err := safefile.OpenConfined(root, rel, os.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Missing
		}
		return "unreadable: " + shortReason(err)
	}
	defer f.Close()
	h := sha256.New()
	var r io.Reader = f
	if max > 0 {
		r = io.LimitReader(f, max+1)
	}
	n, err := io.Copy(h, r)
	if err != nil {
		return "unreadable: " + shortReason(err)
	}
	if max > 0 && n > max {
		return fmt.Sprintf("unreadable: larger than %d bytes", max)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// shortReason words why a file could not be read, without the path.
func shortReason(err error) string {
	var re *safefile.RefusedError
	if errors.As(err, &re) {
		return re.What
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// SortDeps orders deps by kind, then path, then digest, in place.
func SortDeps(deps []Dep) {
	sort.SliceStable(deps, func(i, j int) bool {
		a, b := deps[i], deps[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Digest < b.Digest
	})
}

// Canonical is the byte encoding the signature covers: one line per field
// in a fixed order, each value quoted with strconv.Quote (so any byte
// sequence encodes unambiguously), the deps sorted, the signature fields
// left out. It does not depend on the JSON layout of the file: reordering
// keys or whitespace does not change it, changing any value does.
func Canonical(f File) []byte {
	var b bytes.Buffer
	line := func(name, v string) {
		b.WriteString(name)
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(v))
		b.WriteByte('\n')
	}
	b.WriteString("orchestrate-plan canonical v1\n")
	line("schema", f.Schema)
	line("created_at", f.CreatedAt.UTC().Format(time.RFC3339Nano))
	line("orchestrate_version", f.Version)
	line("workflow_id", f.WorkflowID)
	line("phase", f.Phase)
	line("mode", f.Mode)
	line("decision", f.Decision)
	line("reason", f.Reason)
	line("approved", strconv.FormatBool(f.Approved))
	line("forced", strconv.FormatBool(f.Forced))
	line("restart", strconv.FormatBool(f.Restart))
	line("from_phase", f.FromPhase)
	line("state_file", f.StateFile)
	line("agent", f.Agent)
	line("remaining", strconv.Itoa(len(f.Remaining)))
	for _, r := range f.Remaining {
		line("-", r)
	}
	deps := append([]Dep(nil), f.Deps...)
	SortDeps(deps)
	line("deps", strconv.Itoa(len(deps)))
	for _, d := range deps {
		b.WriteString("dep ")
		b.WriteString(strconv.Quote(d.Kind))
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(d.Path))
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(d.Digest))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// sign computes the signature of f with key (HMAC-SHA256), or its SHA-256
// self-check without a key.
func sign(f File, key []byte) (alg, sig string) {
	data := Canonical(f)
	if len(key) == 0 {
		sum := sha256.Sum256(data)
		return AlgSHA256, hex.EncodeToString(sum[:])
	}
	m := hmac.New(sha256.New, key)
	m.Write(data)
	return AlgHMAC, hex.EncodeToString(m.Sum(nil))
}

// Seal fills f's schema (when empty), sorts its deps and signs it with key
// (HMAC-SHA256), or adds the SHA-256 self-check when key is empty.
func Seal(f File, key []byte) File {
	if f.Schema == "" {
		f.Schema = Schema
	}
	f.CreatedAt = f.CreatedAt.UTC()
	f.Deps = append([]Dep(nil), f.Deps...)
	SortDeps(f.Deps)
	f.SignatureAlg, f.Signature = sign(f, key)
	return f
}

// Verify checks f's signature: with a key, an HMAC signature made with it
// (ErrUnsigned for a plan without one, ErrBadSignature for a mismatch);
// without a key, the SHA-256 self-check (ErrBadSignature for a mismatch,
// ErrKeyNeeded for an HMAC-signed plan). Comparisons are constant-time.
func Verify(f File, key []byte) error {
	got, err := hex.DecodeString(f.Signature)
	if err != nil || f.Signature == "" {
		got = nil
	}
	switch {
	case len(key) > 0 && f.SignatureAlg != AlgHMAC:
		return ErrUnsigned
	case len(key) == 0 && f.SignatureAlg == AlgHMAC:
		return ErrKeyNeeded
	case len(key) == 0 && f.SignatureAlg != AlgSHA256:
		return ErrBadSignature
	}
	_, want := sign(f, key)
	wantBytes, _ := hex.DecodeString(want)
	if got == nil || !hmac.Equal(got, wantBytes) {
		return ErrBadSignature
	}
	return nil
}

// Encode is the file's bytes: indented JSON, for a reviewer to read.
func Encode(f File) ([]byte, error) {
	if f.Deps == nil {
		f.Deps = []Dep{}
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode plan: %w", err)
	}
	return append(data, '\n'), nil
}

// Decode parses a plan file's bytes and checks its schema and signature
// with key (see Verify). Unknown fields are refused: a plan carries
// nothing its signature does not cover.
func Decode(data []byte, key []byte) (File, error) {
	if len(data) > MaxSize {
		return File{}, fmt.Errorf("%w: %d bytes (limit %d)", ErrSchema, len(data), MaxSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return File{}, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	if dec.More() {
		return File{}, fmt.Errorf("%w: trailing data after the plan", ErrSchema)
	}
	if _, err := dec.Token(); err != io.EOF {
		return File{}, fmt.Errorf("%w: trailing data after the plan", ErrSchema)
	}
	if f.Schema != Schema {
		return File{}, fmt.Errorf("%w: schema %q", ErrSchema, truncate(f.Schema, 60))
	}
	if err := Verify(f, key); err != nil {
		return File{}, err
	}
	return f, nil
}

// Save seals f with key and writes it to path atomically (a temporary file
// in the same folder, synced, renamed over path), mode 0600 for a new
// file. An existing path that is not a regular file (a symlink, a FIFO, a
// device, a folder) is refused and nothing is written.
func Save(path string, f File, key []byte) (File, error) {
	f = Seal(f, key)
	data, err := Encode(f)
	if err != nil {
		return File{}, err
	}
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return File{}, fmt.Errorf("save plan: %w", err)
	}
	return f, nil
}

// Load reads the plan at path (a regular file, not a symlink or a FIFO, at
// most MaxSize bytes) and decodes and verifies it with key (see Decode).
func Load(path string, key []byte) (File, error) {
	dir, name := filepath.Split(path)
	if name == "" {
		return File{}, fmt.Errorf("load plan %q: no file name", path)
	}
	if dir == "" {
		dir = "."
	}
	d, err := safefile.OpenDir(dir, ".", false)
	if err != nil {
		return File{}, fmt.Errorf("load plan %s: %w", path, err)
	}
	defer d.Close()
	data, err := d.ReadFile(name, MaxSize)
	if err != nil {
		return File{}, fmt.Errorf("load plan %s: %w", path, err)
	}
	f, err := Decode(data, key)
	if err != nil {
		return File{}, fmt.Errorf("load plan %s: %w", path, err)
	}
	return f, nil
}

// truncate shortens s to at most n bytes for a message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
