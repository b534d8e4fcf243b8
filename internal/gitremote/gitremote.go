// Package gitremote is the one place orchestrate runs the user's own git
// binary: it fetches and compare-and-swap pushes the refs of the shared
// lifecycle (refs/orchestrate/*) on one remote, and writes the small
// commit objects those refs point at. Going through git itself means the
// user's credential helpers, SSH configuration, proxies and the token a CI
// checkout leaves configured all apply. Every call has a bounded time, runs
// without a shell and without a terminal prompt, and only refs under
// Namespace are ever written, never a branch or a tag (docs/drafts/remote.md).
package gitremote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/redact"
)

// Namespace is the only ref namespace this package writes on a remote.
const Namespace = "refs/orchestrate/"

// DefaultTimeout bounds one git call (a fetch or a push).
const DefaultTimeout = 60 * time.Second

// MaxOutput bounds what is read from one git call's standard output.
const MaxOutput = 16 << 20

// emptyTree is git's empty tree: the tree of every record commit.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// ErrRejected is a compare-and-swap push that lost: the ref on the remote
// was not the value expected (someone else updated it first).
var ErrRejected = errors.New("the remote's ref changed since it was read")

// Error is a git call that failed for a reason other than a lost
// compare-and-swap: git missing, no such remote, the remote unreachable,
// authentication, a refused update. The shared lifecycle cannot be used.
type Error struct {
	Op     string // what was tried ("fetch from origin")
	Err    error
	Stderr string // git's own message, redacted and trimmed
}

func (e *Error) Error() string {
	msg := e.Op + ": " + e.Err.Error()
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Remote is one remote of a repository, reached through git.
type Remote struct {
	// Dir is the repository (any folder of its work tree).
	Dir string
	// Name is the remote's name ("origin").
	Name string
	// Timeout bounds each git call; 0 is DefaultTimeout.
	Timeout time.Duration
	git     string
	env     []string
	// treeWritten is set once the empty tree is in the object store.
	treeWritten atomic.Bool
}

// remoteName is what a remote name may look like here: it is passed to git
// as an argument and used in a local ref name. Compiled on first use
// (lazyre): its {0,99} cost every run of every command a millisecond.
var remoteName = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// Open checks that git is on the PATH of env (the injected environment)
// and that the repository at dir has a remote called name, and returns it.
// Each problem is an *Error naming the cause.
func Open(dir, name string, env []string, timeout time.Duration) (*Remote, error) {
	if !remoteName().MatchString(name) || strings.Contains(name, "..") || strings.HasSuffix(name, ".lock") {
		return nil, &Error{Op: "lifecycle.remote", Err: fmt.Errorf("%q is not a remote name", name)}
	}
	git, err := lookGit(env)
	if err != nil {
		return nil, &Error{Op: "lifecycle.remote " + name, Err: err}
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	r := &Remote{Dir: dir, Name: name, Timeout: timeout, git: git, env: gitEnv(env)}
	if _, err := r.run("find the remote "+name, nil, "config", "--get", "remote."+name+".url"); err != nil {
		var ge *Error
		if errors.As(err, &ge) && ge.Stderr == "" {
			ge.Err = fmt.Errorf("the repository has no remote named %q (git remote -v lists them)", name)
		}
		return nil, err
	}
	return r, nil
}

// lookGit finds git on the PATH of env (never the process's own).
func lookGit(env []string) (string, error) {
	path := ""
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			path = kv[len("PATH="):]
		}
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, "git")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New("no git on PATH: the shared lifecycle runs through the git binary")
}

// gitEnv is env for git: no terminal prompt (a credential question fails
// instead of hanging), no pager, no locale surprises in messages, and a
// fixed identity for the record commits (whose content says who).
func gitEnv(env []string) []string {
	out := make([]string, 0, len(env)+10)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_TERMINAL_PROMPT", "GIT_PAGER", "GIT_ASKPASS", "SSH_ASKPASS", "LC_ALL", "LANGUAGE",
			"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
			"GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "LC_ALL=C", "SSH_ASKPASS=",
		"GIT_AUTHOR_NAME=orchestrate", "GIT_AUTHOR_EMAIL=orchestrate@localhost",
		"GIT_COMMITTER_NAME=orchestrate", "GIT_COMMITTER_EMAIL=orchestrate@localhost")
}

// run runs git with args in r.Dir, stdin as its input, bounded by
// r.Timeout; it returns git's standard output (at most MaxOutput bytes).
func (r *Remote) run(op string, stdin []byte, args ...string) ([]byte, error) {
	return r.runEnv(op, nil, stdin, args...)
}

// runEnv is run with extra variables added to the environment.
func (r *Remote) runEnv(op string, extra []string, stdin []byte, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), r.Timeout)
	defer cancel()
	// no hook of the repository runs (reference-transaction on a fetch,
	// pre-push), no fsmonitor, no ext:: transport whatever its
	// .git/config says
	full := append([]string{"-C", r.Dir, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "protocol.ext.allow=never"}, args...)
	cmd := exec.CommandContext(ctx, r.git, full...)
	cmd.Env = append(r.env[:len(r.env):len(r.env)], extra...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	stdout := &capped{max: MaxOutput}
	stderr := &capped{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = 5 * time.Second
	detach(cmd) // no controlling terminal: nothing can prompt; the timeout ends its children too
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return nil, &Error{Op: op, Err: fmt.Errorf("git did not answer within %s", r.Timeout), Stderr: clean(stderr.String())}
	}
	if err != nil {
		return stdout.Bytes(), &Error{Op: op, Err: err, Stderr: clean(stderr.String())}
	}
	if stdout.over {
		return nil, &Error{Op: op, Err: fmt.Errorf("git's output is larger than %d bytes", MaxOutput)}
	}
	return stdout.Bytes(), nil
}

// clean is git's message for ours: redacted (a URL may carry a token),
// control characters dropped, on one line, bounded.
func clean(s string) string {
	s = redact.String(s)
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		default:
			b.WriteRune(r)
		}
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	if len(out) > 600 {
		out = out[:600] + "…"
	}
	return out
}

// capped is a buffer that keeps at most max bytes and remembers it was
// over.
type capped struct {
	bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); len(p) > room {
		c.over = true
		if room > 0 {
			c.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return c.Buffer.Write(p)
}

// TrackingPrefix is where Fetch keeps the remote's refs/orchestrate/* in
// the local repository: refs/orchestrate-remote/<remote>/.
func (r *Remote) TrackingPrefix() string { return "refs/orchestrate-remote/" + r.Name + "/" }

// Fetch fetches every ref under refs/orchestrate/ of the remote into
// TrackingPrefix (pruning the ones the remote no longer has): one fetch.
func (r *Remote) Fetch() error {
	_, err := r.run("fetch the shared lifecycle from "+r.Name, nil,
		"-c", "fetch.recurseSubmodules=false", "-c", "fetch.writeCommitGraph=false",
		"fetch", "--quiet", "--no-tags", "--prune", "--no-auto-gc",
		r.Name, "+"+Namespace+"*:"+r.TrackingPrefix()+"*")
	return err
}

// FetchRef fetches one ref of refs/orchestrate/ (name relative to it) into
// TrackingPrefix; a ref the remote does not have is removed locally.
func (r *Remote) FetchRef(name string) error {
	_, err := r.run("fetch "+Namespace+name+" from "+r.Name, nil,
		"-c", "fetch.recurseSubmodules=false", "-c", "fetch.writeCommitGraph=false",
		"fetch", "--quiet", "--no-tags", "--prune", "--no-auto-gc",
		r.Name, "+"+Namespace+name+":"+r.TrackingPrefix()+name)
	return err
}

// Ref is one fetched ref: its name under refs/orchestrate/, the commit it
// points at and that commit's message.
type Ref struct {
	Name    string // "locks/sdc_3a4.2"
	Commit  string
	Message string
}

// Refs lists the fetched refs under TrackingPrefix()+sub (e.g. "locks/"),
// with the message of the commit each points at. Refs that do not point at
// a commit are left out.
func (r *Remote) Refs(sub string) ([]Ref, error) {
	out, err := r.run("read the fetched shared lifecycle", nil, "for-each-ref",
		"--format=%(refname)%00%(objecttype)%00%(objectname)%00%(contents)%00%00",
		r.TrackingPrefix()+sub)
	if err != nil {
		return nil, err
	}
	var refs []Ref
	for _, rec := range bytes.Split(out, []byte("\x00\x00\n")) {
		parts := bytes.SplitN(rec, []byte{0}, 4)
		if len(parts) != 4 || string(parts[1]) != "commit" {
			continue
		}
		name := strings.TrimPrefix(string(parts[0]), r.TrackingPrefix())
		refs = append(refs, Ref{Name: name, Commit: string(parts[2]), Message: string(parts[3])})
	}
	return refs, nil
}

// Log returns the messages of up to max commits of the first-parent chain
// from commit (newest first).
func (r *Remote) Log(commit string, max int) ([]string, error) {
	if !isHex(commit) {
		return nil, fmt.Errorf("not a commit id: %q", commit)
	}
	out, err := r.run("read the shared records", nil, "log", "--first-parent", "--no-show-signature",
		fmt.Sprintf("--max-count=%d", max), "--format=%B%x00%x00", commit, "--")
	if err != nil {
		return nil, err
	}
	var msgs []string
	for _, m := range bytes.Split(out, []byte("\x00\x00\n")) {
		if len(bytes.TrimSpace(m)) > 0 {
			msgs = append(msgs, string(m))
		}
	}
	return msgs, nil
}

// Commit writes a commit object (the empty tree, parent when not "",
// message, dated at) to the local object store without putting it on any
// branch, and returns its id.
func (r *Remote) Commit(parent, message string, at time.Time) (string, error) {
	if !r.treeWritten.Load() {
		if _, err := r.run("write the empty tree", nil, "hash-object", "-t", "tree", "-w", "--stdin"); err != nil {
			return "", err
		}
		r.treeWritten.Store(true)
	}
	args := []string{"commit-tree", "--no-gpg-sign", emptyTree, "-F", "-"}
	if parent != "" {
		if !isHex(parent) {
			return "", fmt.Errorf("not a commit id: %q", parent)
		}
		args = append(args, "-p", parent)
	}
	date := fmt.Sprintf("@%d +0000", at.Unix())
	out, err := r.runEnv("write a record commit", []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, []byte(message), args...)
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(out))
	if !isHex(id) {
		return "", &Error{Op: "write a record commit", Err: fmt.Errorf("git answered %q", clean(id))}
	}
	return id, nil
}

// Update is one compare-and-swap of a ref under refs/orchestrate/.
type Update struct {
	Name string // relative to refs/orchestrate/ ("locks/x")
	// Old is the value the ref must have on the remote: "" means it must
	// not exist.
	Old string
	// New is the commit to point it at: "" deletes it.
	New string
}

// Push applies u on the remote as one compare-and-swap: git push
// --force-with-lease=<ref>:<old>, which the server applies only when the
// ref still has the old value (receive-pack checks it under the ref's
// lock). A lost swap is ErrRejected; every other failure an *Error.
func (r *Remote) Push(u Update) error {
	if err := checkName(u.Name); err != nil {
		return err
	}
	ref := Namespace + u.Name
	if (u.Old != "" && !isHex(u.Old)) || (u.New != "" && !isHex(u.New)) {
		return fmt.Errorf("push %s: not a commit id", ref)
	}
	src := u.New + ":" + ref
	if u.New == "" {
		if u.Old == "" {
			return nil
		}
		src = ":" + ref
	}
	op := "update " + ref + " on " + r.Name
	var err error
	for attempt := 0; attempt < pushAttempts; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
		}
		var out []byte
		out, err = r.run(op, nil, "-c", "push.recurseSubmodules=no", "-c", "push.gpgSign=false",
			"push", "--porcelain", "--no-verify", "--quiet",
			"--force-with-lease="+ref+":"+u.Old, r.Name, src)
		if err == nil {
			return nil
		}
		if !rejectedLine(out, ref) {
			return err
		}
		// Rejected: lost the swap, or refused for another reason (a
		// read-only remote, a hook, permissions). The ref's value now tells.
		now, lerr := r.RemoteValue(u.Name)
		if lerr != nil {
			return err
		}
		if now != u.Old {
			return ErrRejected
		}
		// The value is the expected one again: another runner held the
		// ref's lock while it updated it, or took and released it between
		// the push and the read (an A-B-A). Try the swap again; a refusal
		// that stays (a read-only remote) is the error after the last try.
	}
	return err
}

// pushAttempts bounds the swaps Push tries while the ref keeps its
// expected value (a concurrent update held it, then put it back).
const pushAttempts = 4

// rejectedLine reports whether git push --porcelain's output says ref was
// rejected ("!" line).
func rejectedLine(out []byte, ref string) bool {
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "!\t") && strings.Contains(line, ":"+ref+"\t") {
			return true
		}
	}
	return false
}

// RemoteValue asks the remote (git ls-remote) for the current value of
// ref name under refs/orchestrate/; "" when it does not exist.
func (r *Remote) RemoteValue(name string) (string, error) {
	if err := checkName(name); err != nil {
		return "", err
	}
	ref := Namespace + name
	out, err := r.run("read "+ref+" on "+r.Name, nil, "ls-remote", "--refs", r.Name, ref)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(out), "\n") {
		id, n, ok := strings.Cut(line, "\t")
		if ok && n == ref && isHex(id) {
			return id, nil
		}
	}
	return "", nil
}

// checkName refuses a ref name that is not a plain path of safe
// components under refs/orchestrate/ (see RefComponent).
func checkName(name string) error {
	parts := strings.Split(name, "/")
	if len(parts) < 2 {
		return fmt.Errorf("ref name %q: want <kind>/<component>", name)
	}
	for _, p := range parts {
		if !validComponent(p) {
			return fmt.Errorf("ref name %q: %q is not a safe component", name, p)
		}
	}
	return nil
}

// isHex reports whether s is a full object id (SHA-1 or SHA-256).
func isHex(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// HasRemote reports whether the repository at dir has any remote (git
// remote), with env's git; false when git is missing or fails.
func HasRemote(dir string, env []string) bool {
	git, err := lookGit(env)
	if err != nil {
		return false
	}
	r := &Remote{Dir: dir, Timeout: 10 * time.Second, git: git, env: gitEnv(env)}
	out, err := r.run("list the remotes", nil, "remote")
	return err == nil && len(bytes.TrimSpace(out)) > 0
}
