// Package safedir refuses a repository another user owns, as git does
// (its ensure_valid_ownership), unless git's safe.directory settings allow
// it; see docs/SECURITY.md.
package safedir

import (
	"errors"
	"fmt"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A repository owned by another user is refused, as git refuses it (git's
// ensure_valid_ownership): its work tree, its .git file and its git folder
// must each belong to the effective user — root included, except that root
// run through sudo is the user SUDO_UID names — unless git's safe.directory
// settings allow the work tree. Those are read where git reads them and
// nowhere else (never from the repository's own config): the system file
// (/etc/gitconfig, or GIT_CONFIG_SYSTEM; skipped with GIT_CONFIG_NOSYSTEM),
// the global files (GIT_CONFIG_GLOBAL, else $XDG_CONFIG_HOME/git/config and
// ~/.gitconfig) and GIT_CONFIG_COUNT/GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n. A
// value is a path, "*" (every repository), a path ending in "/*" (every
// repository below it), or empty (forget the values before it). A file's
// include.path directives are followed where they stand, as git follows
// them (a relative path from the including file's folder, ~/ from HOME, at
// most maxIncludeDepth deep and maxIncludes in all); includeIf is not: the
// conditions git can test this early (gitdir:, onbranch:) need the
// repository, which is not read yet, so git does not take them either.

// maxConfigFile bounds a git config file read (as gitobj bounds config).
const maxConfigFile = 4 << 20

// ErrDubiousOwnership is a repository owned by another user and not allowed
// by safe.directory (see DubiousOwnershipError).
var ErrDubiousOwnership = errors.New("dubious ownership")

// DubiousOwnershipError is a repository refused because another user owns
// it: Path is the work tree git's advice names.
type DubiousOwnershipError struct {
	Path     string
	Owned    string // what another user owns (the work tree, .git or the git folder)
	Owner    int    // its owner's uid
	User     int    // the effective uid (SUDO_UID under sudo as root)
	NotFound bool   // the owner could not be read
}

// Error implements error, with git's advice.
func (e *DubiousOwnershipError) Error() string {
	who := fmt.Sprintf("owned by uid %d, not uid %d", e.Owner, e.User)
	if e.NotFound {
		who = "owner unknown"
	}
	return fmt.Sprintf("detected dubious ownership in repository at '%s' (%s %s): to trust it, run: git config --global --add safe.directory %s",
		e.Path, e.Owned, who, e.Path)
}

// Unwrap lets errors.Is match ErrDubiousOwnership.
func (e *DubiousOwnershipError) Unwrap() error { return ErrDubiousOwnership }

// ownerEnv is what the ownership check asks the system; tests replace it.
type ownerEnv struct {
	euid   func() int
	getenv func(string) string
	owner  func(path string) (uid int, err error)
}

// ownership is the ownership check's system.
var ownership = ownerEnv{euid: os.Geteuid, getenv: os.Getenv, owner: lstatOwner}

// lstatOwner returns the uid owning path (not following a final symlink,
// as git).
func lstatOwner(path string) (int, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, fmt.Errorf("%s: no owner", path)
	}
	return int(st.Uid), nil
}

// CheckOwnership refuses a repository another user owns unless git's
// safe.directory allows it (a *DubiousOwnershipError), as git does.
func CheckOwnership(d Repo) error { return checkOwnership(d, ownership) }

// Repo is what the check looks at: the work tree, the .git file ("" when
// .git is a folder) and the git folder.
type Repo struct {
	Root, GitFile, GitDir string
}

// checkOwnership refuses d (a *DubiousOwnershipError) when another user
// owns its work tree, .git file or git folder and safe.directory does not
// allow its work tree.
func checkOwnership(d Repo, env ownerEnv) error {
	user := env.euid()
	if user == 0 {
		if s := env.getenv("SUDO_UID"); s != "" {
			if u, err := strconv.Atoi(s); err == nil && u >= 0 {
				user = u
			}
		}
	}
	var bad *DubiousOwnershipError
	for _, p := range []struct{ path, what string }{{d.Root, "work tree"}, {d.GitFile, ".git file"}, {d.GitDir, "git folder"}} {
		if p.path == "" {
			continue
		}
		uid, err := env.owner(p.path)
		if err == nil && uid == user {
			continue
		}
		bad = &DubiousOwnershipError{Owned: p.what + " " + p.path, Owner: uid, User: user, NotFound: err != nil}
		break
	}
	if bad == nil {
		return nil
	}
	checked := d.Root
	if real, err := filepath.EvalSymlinks(checked); err == nil {
		checked = real
	}
	bad.Path = checked
	if safeDirectoryAllows(checked, env) {
		return nil
	}
	return bad
}

// safeDirectoryAllows reports whether git's safe.directory settings allow
// the repository at dir (a real path).
func safeDirectoryAllows(dir string, env ownerEnv) bool {
	safe := false
	visit := func(v string, isNull bool) {
		switch {
		case isNull || v == "":
			safe = false
		case v == "*":
			safe = true
		default:
			if safeDirectoryMatch(dir, v, env) {
				safe = true
			}
		}
	}
	budget := maxIncludes
	for _, f := range protectedConfigFiles(env) {
		visitSafeDirectories(f, 0, &budget, env, visit)
	}
	if n, err := strconv.Atoi(env.getenv("GIT_CONFIG_COUNT")); err == nil {
		for i := 0; i < n && i < 1<<16; i++ {
			switch key := env.getenv(fmt.Sprintf("GIT_CONFIG_KEY_%d", i)); {
			case strings.EqualFold(key, "safe.directory"):
				visit(env.getenv(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i)), false)
			case strings.EqualFold(key, "include.path"):
				// git refuses a relative include that comes from no file
				if p := includePath("", env.getenv(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i)), env); p != "" {
					visitSafeDirectories(p, 1, &budget, env, visit)
				}
			}
		}
	}
	return safe
}

// maxIncludeDepth is git's bound on nested include.path directives
// (config.c's MAX_INCLUDE_DEPTH); git stops with an error past it, and no
// file past it is read here.
const maxIncludeDepth = 10

// maxIncludes bounds the files one check reads through include.path, so
// that files that include each other many times cannot make it read
// without end (git has no such bound: it would read them all).
const maxIncludes = 64

// visitSafeDirectories calls visit for every safe.directory value of the
// config file name, reading the files it includes where their include.path
// stands (depth: how many includes led to name; budget: the files the check
// may still read through includes). A file that is missing or cannot be
// read gives nothing, as in git.
func visitSafeDirectories(name string, depth int, budget *int, env ownerEnv, visit func(string, bool)) {
	if depth > 0 {
		if *budget <= 0 {
			return
		}
		*budget--
	}
	data, err := gitobj.ReadGitFile(name, maxConfigFile)
	if err != nil {
		return // missing or unreadable: as git, nothing from it
	}
	parseGitConfig(string(data), func(section, key, value string, isNull bool) {
		switch {
		case section == "safe" && key == "directory":
			visit(value, isNull)
		case section == "include" && key == "path" && !isNull && depth < maxIncludeDepth:
			if p := includePath(name, value, env); p != "" {
				visitSafeDirectories(p, depth+1, budget, env, visit)
			}
		}
	})
}

// includePath is the file an include.path value v names in the config file
// from ("" when it comes from the environment): ~/ is HOME, a relative path
// is from from's folder. It is "" when v names nothing git would read (an
// empty value, ~user, a relative path with no file to start from, ~/ with
// no HOME).
func includePath(from, v string, env ownerEnv) string {
	switch {
	case v == "":
		return ""
	case v == "~" || strings.HasPrefix(v, "~/"):
		home := env.getenv("HOME")
		if home == "" {
			return ""
		}
		return filepath.Join(home, strings.TrimPrefix(v, "~"))
	case strings.HasPrefix(v, "~"):
		return "" // ~user: not followed
	case filepath.IsAbs(v):
		return v
	case from == "":
		return ""
	}
	return filepath.Join(filepath.Dir(from), v)
}

// safeDirectoryMatch reports whether the safe.directory value v allows dir.
func safeDirectoryMatch(dir, v string, env ownerEnv) bool {
	if rest, ok := strings.CutPrefix(v, "~/"); ok {
		home := env.getenv("HOME")
		if home == "" {
			return false
		}
		v = filepath.Join(home, rest)
	}
	if prefix, ok := strings.CutSuffix(v, "/*"); ok {
		return strings.HasPrefix(dir, prefix+"/")
	}
	if dir == v || dir == filepath.Clean(v) {
		return true
	}
	real, err := filepath.EvalSymlinks(v)
	return err == nil && real == dir
}

// protectedConfigFiles lists the config files git reads safe.directory
// from, in git's order: system, then global.
func protectedConfigFiles(env ownerEnv) []string {
	var out []string
	if !gitBool(env.getenv("GIT_CONFIG_NOSYSTEM")) {
		if s := env.getenv("GIT_CONFIG_SYSTEM"); s != "" {
			out = append(out, s)
		} else {
			out = append(out, "/etc/gitconfig")
		}
	}
	if g := env.getenv("GIT_CONFIG_GLOBAL"); g != "" {
		return append(out, g)
	}
	home := env.getenv("HOME")
	if x := env.getenv("XDG_CONFIG_HOME"); x != "" {
		out = append(out, filepath.Join(x, "git", "config"))
	} else if home != "" {
		out = append(out, filepath.Join(home, ".config", "git", "config"))
	}
	if home != "" {
		out = append(out, filepath.Join(home, ".gitconfig"))
	}
	return out
}

// gitBool is git's reading of a boolean environment variable.
func gitBool(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

// parseGitConfig calls fn for every variable of the git config text s:
// section lower-case (with ".subsection" when there is one), key
// lower-case, value unquoted and unescaped; isNull for a key without "=".
// What it cannot parse is skipped to the end of its line.
func parseGitConfig(s string, fn func(section, key, value string, isNull bool)) {
	section := ""
	i := 0
	skipLine := func() {
		for i < len(s) && s[i] != '\n' {
			i++
		}
	}
	for i < len(s) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
			i++
		}
		if i >= len(s) {
			break
		}
		switch c := s[i]; {
		case c == '#' || c == ';':
			skipLine()
		case c == '[':
			end := strings.IndexAny(s[i:], "]\n")
			if end < 0 || s[i+end] != ']' {
				section = ""
				skipLine()
				continue
			}
			section = configSection(s[i+1 : i+end])
			i += end + 1
		case isKeyChar(c):
			start := i
			for i < len(s) && (isKeyChar(s[i]) || s[i] == '-') {
				i++
			}
			key := strings.ToLower(s[start:i])
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			if i >= len(s) || s[i] == '\n' || s[i] == '\r' || s[i] == '#' || s[i] == ';' {
				fn(section, key, "", true)
				skipLine()
				continue
			}
			if s[i] != '=' {
				skipLine()
				continue
			}
			i++
			var v string
			v, i = configValue(s, i)
			fn(section, key, v, false)
		default:
			skipLine()
		}
	}
}

func isKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// configSection reads a section header's inside: `safe`, `safe "sub"` or
// the old `safe.sub`.
func configSection(h string) string {
	name, sub, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok {
		return strings.ToLower(name)
	}
	sub = strings.TrimSpace(sub)
	if len(sub) >= 2 && sub[0] == '"' && sub[len(sub)-1] == '"' {
		sub = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(sub[1 : len(sub)-1])
	}
	return strings.ToLower(name) + "." + sub
}

// configValue reads a value from s[i:] up to its end of line (lines joined
// by a final backslash), and returns it and where the next line starts.
func configValue(s string, i int) (string, int) {
	var b strings.Builder
	quoted := false
	pending := 0 // unquoted spaces, kept only when more follows
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\n' && !quoted:
			return b.String(), i + 1
		case c == '\n':
			return b.String(), i + 1 // an unclosed quote: git errors; keep what was read
		case (c == '#' || c == ';') && !quoted:
			for i < len(s) && s[i] != '\n' {
				i++
			}
			return b.String(), i
		case (c == ' ' || c == '\t' || c == '\r') && !quoted:
			if b.Len() > 0 {
				pending++
			}
			i++
			continue
		case c == '"':
			quoted = !quoted
			i++
			continue
		case c == '\\' && i+1 < len(s):
			i++
			switch e := s[i]; e {
			case '\n':
				i++
				continue // a continued line
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			default:
				c = e
			}
		}
		for ; pending > 0; pending-- {
			b.WriteByte(' ')
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), i
}
