package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/viper"

	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/trust"
)

// repoConfigName is the repository's own configuration file, at its root.
const repoConfigName = ".orchestrate.yaml"

// maxConfigSize caps every configuration file read.
const maxConfigSize = 1 << 20

// EnvTrustRepoConfig set to 1 trusts the repository's configuration file for
// one run (CI that runs the repository's code anyway).
const EnvTrustRepoConfig = "ORCHESTRATE_TRUST_REPO_CONFIG"

// privilegedKind says why a configuration key is privileged.
type privilegedKind int

const (
	// keyRuns names a program orchestrate runs.
	keyRuns privilegedKind = iota
	// keySteers decides whether a configured program runs, or what of its
	// output is written back into a state file.
	keySteers
	// keyPath is a path orchestrate reads or writes; from the repository's
	// file it must also stay inside the repository, trusted or not.
	keyPath
)

// privilegedKey is one setting honoured from the repository's own
// .orchestrate.yaml only once the user trusts that exact file (see
// docs/SECURITY.md). The user's config, the environment and flags are
// always honoured.
type privilegedKey struct {
	Key  string
	Kind privilegedKind
}

// privilegedKeys is the one list of privileged settings: a new key that runs
// or writes something is one line here.
var privilegedKeys = []privilegedKey{
	{"handoff.command", keyRuns},
	{"handoff.fallback_command", keyRuns},
	{"handoff.session_gone_exit_codes", keySteers},
	{"handoff.session_gone_pattern", keySteers},
	{"handoff.session_id_pattern", keySteers},
	{"log_path", keyPath},
	{"templates_dir", keyPath},
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

// settings are the layered settings of an invocation (flags, the injected
// environment, config files, defaults). viper is imported in this file only.
type settings = viper.Viper

// newViper returns the one viper instance of an invocation, with every key
// of config.Default registered so ORCHESTRATE_* variables of the injected
// environment reach them (loadConfigFiles, mergeEnv).
func newViper() *viper.Viper {
	v := viper.New()
	d := config.Default()
	defaults := map[string]any{
		"sources.epic":                    d.Sources.Epic,
		"sources.qa_loop":                 d.Sources.QALoop,
		"sources.qa_loop_index":           d.Sources.QALoopIndex,
		"sources.workflow_state":          d.Sources.WorkflowState,
		"sources.progress":                d.Sources.Progress,
		"sources.work_session":            d.Sources.WorkSession,
		"sources.tasks":                   d.Sources.Tasks,
		"sources.stories":                 d.Sources.Stories,
		"sources.spec":                    d.Sources.Spec,
		"stories_dir":                     d.StoriesDir,
		"statuses":                        map[string][]string{},
		"age.fresh":                       d.Age.Fresh,
		"age.recent":                      d.Age.Recent,
		"age.stale":                       d.Age.Stale,
		"workflow_dirs":                   d.WorkflowDirs,
		"agent_dirs":                      d.AgentDirs,
		"agents":                          d.Agents,
		"resume.mode":                     d.Resume.Mode,
		"resume.rehandoff_after":          d.Resume.RehandoffAfter,
		"handoff.command":                 d.Handoff.Command,
		"handoff.session_gone_exit_codes": d.Handoff.SessionGoneExitCodes,
		"handoff.session_gone_pattern":    d.Handoff.SessionGonePattern,
		"handoff.fallback_command":        d.Handoff.FallbackCommand,
		"handoff.session_id_pattern":      d.Handoff.SessionIDPattern,
		"handoff.timeout":                 d.Handoff.Timeout,
		"log_path":                        d.LogPath,
		"templates_dir":                   d.TemplatesDir,
		"max_file_size":                   d.MaxFileSize,
		"max_ref_files":                   d.MaxRefFiles,
	}
	for k, val := range defaults {
		v.SetDefault(k, val)
	}
	return v
}

// envNames are the environment variables of registered key k, the first
// set one winning: ORCHESTRATE_<KEY> with dots as underscores, and the
// short ORCHESTRATE_MODE for resume.mode.
func envNames(k string) []string {
	name := "ORCHESTRATE_" + strings.ToUpper(strings.ReplaceAll(k, ".", "_"))
	if k == "resume.mode" {
		return []string{"ORCHESTRATE_MODE", name}
	}
	return []string{name}
}

// envLayer is the configuration the INJECTED environment sets: for every
// key registered in v (its defaults), the first of envNames(k) getenv
// returns non-empty, and the variable that set each key. viper never reads
// the process environment itself.
func envLayer(v *viper.Viper, getenv func(string) string) (map[string]any, map[string]string) {
	out, vars := map[string]any{}, map[string]string{}
	for _, k := range v.AllKeys() {
		for _, name := range envNames(k) {
			if val := getenv(name); val != "" {
				out[k] = val
				vars[k] = name
				break
			}
		}
	}
	return out, vars
}

// mergeEnv checks the injected environment and merges it over the files
// read so far (flags bound to v still win over it).
func (cl *configLoad) mergeEnv(getenv func(string) string) error {
	env, vars := envLayer(cl.v, getenv)
	if len(env) == 0 {
		return nil
	}
	if err := cl.check(configSource{Vars: vars}, env); err != nil {
		return err
	}
	if err := cl.v.MergeConfigMap(nest(env)); err != nil {
		return fmt.Errorf("config from the environment: %w", err)
	}
	for k, name := range vars {
		cl.origins[k] = name
	}
	return nil
}

// check checks one source's flat settings (checkLayer): its unknown keys
// become warnings, its wrongly typed values the error.
func (cl *configLoad) check(src configSource, flat map[string]any) error {
	warnings, err := checkLayer(src, flat)
	cl.Warnings = append(cl.Warnings, warnings...)
	return err
}

// merged records that src set the keys of flat, for the messages that say
// where a value came from (resumeMode).
func (cl *configLoad) merged(src configSource, flat map[string]any) {
	for k := range flat {
		cl.origins[k] = src.origin(k)
	}
}

// shownPath is a configuration file's path as the user knows it: under
// $HOME as ~/..., else as it is.
func shownPath(path string, getenv func(string) string) string {
	if home := getenv("HOME"); home != "" {
		if r, err := filepath.Rel(home, path); err == nil && filepath.IsLocal(r) {
			return "~/" + filepath.ToSlash(r)
		}
	}
	return path
}

// keyValue is one privileged setting of the repository's file, as text.
type keyValue struct {
	Key, Value string
	// Refused is why the value is ignored even from a trusted file ("" when
	// it is not).
	Refused string
	// Overridden: the user's config or the environment sets the key, so the
	// file's value would not apply anyway.
	Overridden bool
}

// repoConfig is the repository's own .orchestrate.yaml and its trust.
type repoConfig struct {
	Path string // absolute
	Rel  string // as shown: ".orchestrate.yaml"
	Data []byte // the exact bytes read, what trust is recorded for
	// State is what the trust store says (Untrusted when it could not be read).
	State trust.State
	// ByEnv: ORCHESTRATE_TRUST_REPO_CONFIG=1 trusts it for this run.
	ByEnv bool
	// Values are the privileged settings the file makes, in table order.
	Values []keyValue
	// Withheld are the privileged keys not applied because the file is not
	// trusted (keys the user's config or the environment override are not
	// withheld: the file's value would not apply anyway).
	Withheld []string
	// withheld holds their values, flat, for when the user trusts the file.
	withheld map[string]any
}

// Trusted reports whether the file's privileged settings apply.
func (rc *repoConfig) Trusted() bool { return rc.State == trust.Trusted || rc.ByEnv }

// HasPrivileged reports whether the file sets any privileged key.
func (rc *repoConfig) HasPrivileged() bool { return rc != nil && len(rc.Values) > 0 }

// kindOf is the kind of privileged key k.
func kindOf(k string) privilegedKind {
	p, _ := privileged(k)
	return p.Kind
}

// runsWithheld reports whether a program named by the file is withheld.
func (rc *repoConfig) runsWithheld() bool {
	if rc == nil {
		return false
	}
	for _, k := range rc.Withheld {
		if kindOf(k) == keyRuns {
			return true
		}
	}
	return false
}

// Waiting are the withheld keys a resume would need: the programs and,
// with them, the settings that steer them.
func (rc *repoConfig) Waiting() []string {
	out := []string{}
	if !rc.runsWithheld() {
		return out
	}
	for _, k := range rc.Withheld {
		if kindOf(k) != keyPath {
			out = append(out, k)
		}
	}
	return out
}

// Ignored are the withheld keys nothing will ask about: paths, and the
// steering keys when no program of the file is withheld.
func (rc *repoConfig) Ignored() []string {
	var out []string
	runs := rc.runsWithheld()
	for _, k := range rc.Withheld {
		switch kindOf(k) {
		case keyPath:
			out = append(out, k)
		case keySteers:
			if !runs {
				out = append(out, k)
			}
		}
	}
	return out
}

// NeedsTrust reports whether a resume would run a program named by the
// untrusted file.
func (rc *repoConfig) NeedsTrust() bool { return rc.runsWithheld() }

// trustWords says how far the file is trusted, for --log-level debug.
func (rc *repoConfig) trustWords() string {
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

// stateWords describes the file's trust for a message.
func (rc *repoConfig) stateWords() string {
	if rc.State == trust.Changed {
		return "has changed since it was trusted"
	}
	return "is not trusted"
}

// configLoad is the configuration of an invocation: the merged Config, the
// repository's file and its trust, and warnings for stderr.
type configLoad struct {
	Cfg      config.Config
	Repo     *repoConfig // nil when no repository file was read
	Warnings []string
	// Read are the configuration files read, each with its role and, for
	// the repository's, its trust ("/x/.orchestrate.yaml (repository,
	// untrusted)"), for --log-level debug.
	Read []string
	v    *viper.Viper
	// origins says where each flat key merged so far was set last, as a
	// message names it ("resume.mode in .orchestrate.yaml",
	// "ORCHESTRATE_MODE").
	origins map[string]string
}

// loadConfig reads the configuration files into v and returns the merged
// Config. Flags must already be bound to v.
func loadConfig(v *viper.Viper, root, explicit string, getenv func(string) string) (config.Config, error) {
	cl, err := loadConfigFiles(v, root, explicit, getenv)
	if err != nil {
		return config.Config{}, err
	}
	return cl.Cfg, nil
}

// loadConfigFiles reads the configuration into v. With --config (explicit)
// only that file is read, and trusted as the user's own. Otherwise the
// precedence is flag > environment > the user's config
// ($XDG_CONFIG_HOME/orchestrate/config.yaml) > the repository's
// .orchestrate.yaml > default, and the repository's privileged settings
// (privilegedKeys) apply only when the trust store trusts that exact file or
// ORCHESTRATE_TRUST_REPO_CONFIG=1; its paths must stay inside the
// repository in every case. Every file is read bounded and non-blocking.
func loadConfigFiles(v *viper.Viper, root, explicit string, getenv func(string) string) (*configLoad, error) {
	v.SetConfigType("yaml")
	cl := &configLoad{v: v, origins: map[string]string{}}
	if explicit != "" {
		data, err := readConfigFile(explicit, "")
		if err != nil {
			return nil, usagef("--config %s: %v", explicit, err)
		}
		flat, err := parseYAML(explicit, data)
		if err != nil {
			return nil, err
		}
		src := configSource{Name: explicit}
		if err := cl.check(src, flat); err != nil {
			return nil, err
		}
		if err := v.MergeConfigMap(nest(flat)); err != nil {
			return nil, fmt.Errorf("config %s: %w", explicit, err)
		}
		cl.merged(src, flat)
		cl.Read = append(cl.Read, explicit+" (--config, trusted)")
		if err := cl.mergeEnv(getenv); err != nil {
			return nil, err
		}
		return cl, cl.unmarshal()
	}

	// The user's own file: read first, merged last (it wins).
	var userData []byte
	userPath := ""
	if xdg := userConfigDir(getenv); xdg != "" {
		userPath = filepath.Join(xdg, "orchestrate", "config.yaml")
		data, err := readConfigFile(userPath, "")
		switch {
		case err == nil:
			userData = data
			cl.Read = append(cl.Read, userPath+" (user, trusted)")
		case errors.Is(err, fs.ErrNotExist):
		default:
			return nil, fmt.Errorf("config %s: %w", userPath, err)
		}
	}
	userFlat := map[string]any{}
	userSrc := configSource{Name: shownPath(userPath, getenv)}
	if userData != nil {
		m, err := parseYAML(userSrc.Name, userData)
		if err != nil {
			return nil, err
		}
		if err := cl.check(userSrc, m); err != nil {
			return nil, err
		}
		userFlat = m
	}

	repoPath := filepath.Join(root, repoConfigName)
	data, err := readConfigFile(repoPath, root)
	switch {
	case err == nil:
		rc, safe, err := cl.repoSettings(repoPath, data, userFlat, getenv)
		if err != nil {
			return nil, err
		}
		cl.Repo = rc
		cl.Read = append(cl.Read, fmt.Sprintf("%s (repository, %s)", repoPath, rc.trustWords()))
		if err := v.MergeConfigMap(nest(safe)); err != nil {
			return nil, fmt.Errorf("config %s: %w", repoPath, err)
		}
		cl.merged(configSource{Name: rc.Rel}, safe)
	case errors.Is(err, fs.ErrNotExist):
	default:
		return nil, fmt.Errorf("config %s: %w", repoPath, err)
	}
	if userData != nil {
		if err := v.MergeConfigMap(nest(userFlat)); err != nil {
			return nil, fmt.Errorf("config %s: %w", userPath, err)
		}
		cl.merged(userSrc, userFlat)
	}
	if err := cl.mergeEnv(getenv); err != nil {
		return nil, err
	}
	if rc := cl.Repo; rc != nil {
		if ign := rc.Ignored(); len(ign) > 0 {
			cl.Warnings = append(cl.Warnings, fmt.Sprintf("%s %s: ignoring %s (review it with 'orchestrate trust --show', trust it with 'orchestrate trust')", rc.Rel, rc.stateWords(), strings.Join(ign, ", ")))
		}
	}
	return cl, cl.unmarshal()
}

// userConfigDir is $XDG_CONFIG_HOME, else $HOME/.config, else "".
func userConfigDir(getenv func(string) string) string {
	if xdg := getenv("XDG_CONFIG_HOME"); xdg != "" {
		return xdg
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".config")
	}
	return ""
}

// repoSettings sorts the repository file's settings: what applies now
// (safe), and the privileged values withheld until the file is trusted.
func (cl *configLoad) repoSettings(path string, data []byte, userFlat map[string]any, getenv func(string) string) (*repoConfig, map[string]any, error) {
	flat, err := parseYAML(repoConfigName, data)
	if err != nil {
		return nil, nil, err
	}
	rc := &repoConfig{Path: path, Rel: repoConfigName, Data: data, withheld: map[string]any{}}
	if err := cl.check(configSource{Name: rc.Rel}, flat); err != nil {
		return nil, nil, err
	}
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var priv []string
	for _, p := range privilegedKeys {
		for _, k := range keys {
			if q, ok := privileged(k); ok && q.Key == p.Key {
				priv = append(priv, k)
			}
		}
	}
	if len(priv) == 0 {
		return rc, flat, nil
	}
	rc.ByEnv = envTrue(getenv(EnvTrustRepoConfig))
	if store, err := trust.Open(getenv); err != nil {
		cl.Warnings = append(cl.Warnings, fmt.Sprintf("cannot check whether %s is trusted: %v", rc.Rel, err))
	} else if st, err := store.Check(path, data); err != nil {
		cl.Warnings = append(cl.Warnings, fmt.Sprintf("cannot check whether %s is trusted: %v", rc.Rel, err))
	} else {
		rc.State = st
	}
	for _, k := range priv {
		p, _ := privileged(k)
		kv := keyValue{Key: k, Value: valueText(flat[k]), Overridden: overridden(p.Key, userFlat, getenv)}
		if p.Kind == keyPath && !inRepo(flat[k]) {
			kv.Refused = "not a path inside the repository"
			cl.Warnings = append(cl.Warnings, fmt.Sprintf("%s: ignoring %s %s: it must be a relative path inside the repository", rc.Rel, k, quoteValue(kv.Value)))
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

// applyTrusted applies the repository file's withheld settings, once the
// user has trusted it, and returns the new Config.
func (cl *configLoad) applyTrusted() (config.Config, error) {
	rc := cl.Repo
	if rc == nil || len(rc.withheld) == 0 {
		return cl.Cfg, nil
	}
	if err := cl.v.MergeConfigMap(nest(rc.withheld)); err != nil {
		return cl.Cfg, fmt.Errorf("config %s: %w", rc.Path, err)
	}
	cl.merged(configSource{Name: rc.Rel}, rc.withheld)
	rc.withheld, rc.Withheld = map[string]any{}, nil
	rc.State = trust.Trusted
	if err := cl.unmarshal(); err != nil {
		return cl.Cfg, err
	}
	return cl.Cfg, nil
}

// unmarshal decodes v into cl.Cfg over the defaults.
func (cl *configLoad) unmarshal() error {
	cfg := config.Default()
	if err := cl.v.Unmarshal(&cfg); err != nil {
		return &ExitErr{Code: ExitUsage, Err: fmt.Errorf("config: %w", err)}
	}
	if cfg.MaxFileSize <= 0 {
		cfg.MaxFileSize = config.Default().MaxFileSize
	}
	if cfg.MaxRefFiles <= 0 {
		cfg.MaxRefFiles = config.Default().MaxRefFiles
	}
	cl.Cfg = cfg
	return nil
}

// parseYAML parses a configuration file (path as messages show it) into
// flat, lower-case, dotted keys,
// as viper itself sees them (so "handoff.command" written as one key and
// handoff: {command} are the same key).
func parseYAML(path string, data []byte) (map[string]any, error) {
	pv := viper.New()
	pv.SetConfigType("yaml")
	if err := pv.ReadConfig(bytes.NewReader(data)); err != nil {
		return nil, &ExitErr{Code: ExitUsage, Err: fmt.Errorf("%s: not valid YAML: %w", path, err)}
	}
	flat := map[string]any{}
	flatten("", pv.AllSettings(), flat)
	return flat, nil
}

// flatten writes the leaves of m into out under dotted keys.
func flatten(prefix string, m map[string]any, out map[string]any) {
	for k, val := range m {
		key := strings.ToLower(k)
		if prefix != "" {
			key = prefix + "." + key
		}
		if sub, ok := val.(map[string]any); ok && len(sub) > 0 {
			flatten(key, sub, out)
			continue
		}
		out[key] = val
	}
}

// nest turns dotted keys back into nested maps.
func nest(flat map[string]any) map[string]any {
	out := map[string]any{}
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic when a key is both a leaf and a parent
	for _, k := range keys {
		parts := strings.Split(k, ".")
		m := out
		for _, p := range parts[:len(parts)-1] {
			sub, ok := m[p].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[p] = sub
			}
			m = sub
		}
		m[parts[len(parts)-1]] = flat[k]
	}
	return out
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

// quoteValue shows a value from a file safely on a terminal: as it is when
// it is printable, else Go-quoted (control characters escaped).
func quoteValue(s string) string {
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

// readConfigFile reads a configuration file bounded (maxConfigSize) and
// without blocking: a FIFO, a device or a folder fails at once. When root is
// not "", the file belongs to that repository: a symlink may point elsewhere
// inside it, never out of it. A missing file gives an error matching
// fs.ErrNotExist.
func readConfigFile(path, root string) ([]byte, error) {
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
	flags := os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if root != "" {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(open, flags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	if fi.Size() > maxConfigSize {
		return nil, fmt.Errorf("larger than %d bytes", maxConfigSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxConfigSize {
		return nil, fmt.Errorf("larger than %d bytes", maxConfigSize)
	}
	return data, nil
}
