package config

import (
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/internal/trust"
)

// RepoFileName is the repository's own configuration file, at its root.
const RepoFileName = ".orchestrate.yaml"

// maxFileSize caps every configuration file read.
const maxFileSize = 1 << 20

// EnvTrustRepoConfig set to 1 trusts the repository's configuration file for
// one run (CI that runs the repository's code anyway).
const EnvTrustRepoConfig = "ORCHESTRATE_TRUST_REPO_CONFIG"

// Privilege says why a configuration key is privileged.
type Privilege int

const (
	// RunsProgram names a program orchestrate runs.
	RunsProgram Privilege = iota
	// SteersProgram decides whether a configured program runs, or what of its
	// output is written back into a state file.
	SteersProgram
	// PathSetting is a path orchestrate reads or writes; from the repository's
	// file it must also stay inside the repository, trusted or not.
	PathSetting
	// WritesRemote makes orchestrate push to a git remote (the shared
	// lifecycle's refs, naming this runner's user and host).
	WritesRemote
)

// privilegedKey is one setting honoured from the repository's own
// .orchestrate.yaml only once the user trusts that exact file (see
// docs/SECURITY.md). The user's config, the environment and flags are
// always honoured.
type privilegedKey struct {
	Key  string
	Kind Privilege
}

// privilegedKeys is the one list of privileged settings: a new key that runs
// or writes something is one line here.
var privilegedKeys = []privilegedKey{
	{"handoff.command", RunsProgram},
	{"handoff.fallback_command", RunsProgram},
	{"handoff.agent", RunsProgram},
	{"handoff.find_session", SteersProgram},
	{"handoff.session_gone_exit_codes", SteersProgram},
	{"handoff.session_gone_pattern", SteersProgram},
	{"handoff.session_id_pattern", SteersProgram},
	{"log_path", PathSetting},
	{"templates_dir", PathSetting},
	{"lifecycle.remote", WritesRemote},
}

// privileged returns the entry of privilegedKeys that flat key k is, or is
// under.
func privileged(k string) (privilegedKey, bool) {
	for _, p := range privilegedKeys {
		if k == p.Key || strings.HasPrefix(k, p.Key+".") {
			return p, true
		}
	}
	return privilegedKey{}, false
}

// KeyValue is one privileged setting of the repository's file, as text.
type KeyValue struct {
	Key, Value string
	// Refused is why the value is ignored even from a trusted file ("" when
	// it is not).
	Refused string
	// Overridden: the user's config or the environment sets the key, so the
	// file's value would not apply anyway.
	Overridden bool
}

// RepoFile is the repository's own .orchestrate.yaml and its trust.
type RepoFile struct {
	Path string // absolute
	Rel  string // as shown: ".orchestrate.yaml"
	Data []byte // the exact bytes read, what trust is recorded for
	// State is what the trust store says (Untrusted when it could not be read).
	State trust.State
	// ByEnv: ORCHESTRATE_TRUST_REPO_CONFIG=1 trusts it for this run.
	ByEnv bool
	// Values are the privileged settings the file makes, in table order.
	Values []KeyValue
	// Withheld are the privileged keys not applied because the file is not
	// trusted (keys the user's config or the environment override are not
	// withheld: the file's value would not apply anyway).
	Withheld []string
	// Loosened are the file's limits and thresholds looser than the default
	// (limitKeys), ignored while it is not trusted.
	Loosened []Loosened
	// withheld holds the values of Withheld and Loosened, flat, for when the
	// user trusts the file.
	withheld map[string]any
}

// Trusted reports whether the file's privileged settings apply.
func (rc *RepoFile) Trusted() bool { return rc.State == trust.Trusted || rc.ByEnv }

// HasPrivileged reports whether the file sets any privileged key.
func (rc *RepoFile) HasPrivileged() bool { return rc != nil && len(rc.Values) > 0 }

// PrivilegeOf is the kind of privileged key k.
func PrivilegeOf(k string) Privilege {
	p, _ := privileged(k)
	return p.Kind
}

// runsWithheld reports whether a program named by the file is withheld.
func (rc *RepoFile) runsWithheld() bool {
	if rc == nil {
		return false
	}
	for _, k := range rc.Withheld {
		if PrivilegeOf(k) == RunsProgram {
			return true
		}
	}
	return false
}

// Waiting are the withheld keys a resume would need: the programs and,
// with them, the settings that steer them.
func (rc *RepoFile) Waiting() []string {
	out := []string{}
	if !rc.runsWithheld() {
		return out
	}
	for _, k := range rc.Withheld {
		if p := PrivilegeOf(k); p != PathSetting && p != WritesRemote {
			out = append(out, k)
		}
	}
	return out
}

// Ignored are the withheld keys nothing will ask about: paths, and the
// steering keys when no program of the file is withheld.
func (rc *RepoFile) Ignored() []string {
	var out []string
	runs := rc.runsWithheld()
	for _, k := range rc.Withheld {
		switch PrivilegeOf(k) {
		case PathSetting, WritesRemote:
			out = append(out, k)
		case SteersProgram:
			if !runs {
				out = append(out, k)
			}
		}
	}
	return out
}

// NeedsTrust reports whether a resume would run a program named by the
// untrusted file.
func (rc *RepoFile) NeedsTrust() bool { return rc.runsWithheld() }

// trustWords says how far the file is trusted, for --log-level debug.
func (rc *RepoFile) trustWords() string {
	switch {
	case !rc.HasPrivileged():
		return "no privileged settings"
	case rc.ByEnv:
		return "trusted by " + EnvTrustRepoConfig
	case rc.State == trust.Trusted:
		return "trusted"
	case rc.State == trust.Changed:
		return "changed since trusted: privileged settings withheld"
	}
	return "untrusted: privileged settings withheld"
}

// StateWords describes the file's trust for a message.
func (rc *RepoFile) StateWords() string {
	if rc.State == trust.Changed {
		return "has changed since it was trusted"
	}
	return "is not trusted"
}

// repoSettings sorts the repository file's settings: what applies now
// (safe), and the privileged values withheld until the file is trusted.
func (cl *Loaded) repoSettings(path string, data []byte, userFlat map[string]any, getenv func(string) string) (*RepoFile, map[string]any, error) {
	flat, lines, err := parseYAML(RepoFileName, data)
	if err != nil {
		return nil, nil, err
	}
	rc := &RepoFile{Path: path, Rel: RepoFileName, Data: data, withheld: map[string]any{}}
	if err := cl.check(configSource{Name: rc.Rel, Lines: lines}, flat); err != nil {
		return nil, nil, err
	}
	keys := slices.Sorted(maps.Keys(flat))
	var priv []string
	for _, p := range privilegedKeys {
		for _, k := range keys {
			if q, ok := privileged(k); ok && q.Key == p.Key {
				priv = append(priv, k)
			}
		}
	}
	var limits []string
	for _, l := range limitKeys {
		if _, ok := flat[l.Key]; ok {
			limits = append(limits, l.Key)
		}
	}
	// The trust store is read for every repository file: trust also decides
	// its templates folder (Loaded.unmarshal) and its limits. A store that
	// cannot be read is worth a warning only when the file sets something
	// trust unlocks.
	rc.ByEnv = envTrue(getenv(EnvTrustRepoConfig))
	warnStore := func(err error) {
		if len(priv) > 0 || len(limits) > 0 {
			cl.Warnings = append(cl.Warnings, fmt.Sprintf("cannot check whether %s is trusted: %v", rc.Rel, err))
		}
	}
	if store, err := trust.Open(getenv); err != nil {
		warnStore(err)
	} else if st, err := store.Check(path, data); err != nil {
		warnStore(err)
	} else {
		rc.State = st
	}
	rc.tighten(flat, userFlat, getenv)
	if len(priv) == 0 {
		return rc, flat, nil
	}
	for _, k := range priv {
		p, _ := privileged(k)
		kv := KeyValue{Key: k, Value: valueText(flat[k]), Overridden: overridden(p.Key, userFlat, getenv)}
		if p.Kind == PathSetting && !inRepo(flat[k]) {
			kv.Refused = "not a path inside the repository"
			cl.Warnings = append(cl.Warnings, fmt.Sprintf("%s: ignoring %s %s: it must be a relative path inside the repository", rc.Rel, k, QuoteValue(kv.Value)))
			delete(flat, k)
		}
		rc.Values = append(rc.Values, kv)
		if kv.Refused != "" || rc.Trusted() {
			continue
		}
		if val, ok := flat[k]; ok {
			delete(flat, k)
			if !kv.Overridden {
				rc.withheld[k] = val
				rc.Withheld = appendOnce(rc.Withheld, p.Key)
			}
		}
	}
	return rc, flat, nil
}

// overridden reports whether the user's config or the environment sets key.
// (No privileged key has a flag; one that gets one must be checked here.)
func overridden(key string, userFlat map[string]any, getenv func(string) string) bool {
	for k := range userFlat {
		if k == key || strings.HasPrefix(k, key+".") {
			return true
		}
	}
	return getenv("ORCHESTRATE_"+strings.ToUpper(strings.ReplaceAll(key, ".", "_"))) != ""
}

// inRepo reports whether a path setting stays inside the repository: empty
// (the default), or relative without "..".
func inRepo(val any) bool {
	s, ok := val.(string)
	if !ok {
		return false
	}
	if s == "" {
		return true
	}
	if strings.ContainsAny(s, "\x00\r\n") || strings.HasPrefix(s, `\`) {
		return false
	}
	return filepath.IsLocal(filepath.FromSlash(s))
}

// valueText is a setting's value as text.
func valueText(val any) string {
	switch t := val.(type) {
	case string:
		return t
	case nil:
		return ""
	}
	return fmt.Sprint(val)
}

// QuoteValue shows a value from a file safely on a terminal: as it is when
// it is printable, else Go-quoted (control characters escaped).
func QuoteValue(s string) string {
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return "'" + s + "'"
}

// envTrue reports whether an environment value means yes.
func envTrue(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes":
		return true
	}
	return false
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// ReadFile reads a configuration file bounded (maxFileSize) and
// without blocking: a FIFO, a device or a folder fails at once. When root is
// not "", the file belongs to that repository: a symlink may point elsewhere
// inside it, never out of it. A missing file gives an error matching
// fs.ErrNotExist.
func ReadFile(path, root string) ([]byte, error) {
	open := path
	if root != "" {
		fi, err := os.Lstat(path)
		if err != nil {
			return nil, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(path)
			if err != nil {
				return nil, fmt.Errorf("symlink: %w", err)
			}
			r, err := filepath.Rel(root, target)
			if err != nil || !filepath.IsLocal(r) {
				return nil, fmt.Errorf("a symlink to %s, outside the repository: refused", target)
			}
			open = target
		}
	}
	flag := 0
	if root != "" {
		flag = syscall.O_NOFOLLOW
	}
	f, fi, err := safefile.OpenNonBlocking(open, flag)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	if fi.Size() > maxFileSize {
		return nil, fmt.Errorf("larger than %d bytes", maxFileSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("larger than %d bytes", maxFileSize)
	}
	return data, nil
}
