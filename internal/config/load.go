package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/viper"

	"github.com/orchestrate-dev/orchestrate/internal/trust"
)

// LoadOptions say where an invocation's configuration comes from.
type LoadOptions struct {
	// Root is the repository's root: its .orchestrate.yaml is read there
	// (unless Explicit is set).
	Root string
	// Explicit is --config: the one file read, trusted as the user's own.
	Explicit string
	// Getenv is the injected environment (ORCHESTRATE_* settings, HOME,
	// XDG_CONFIG_HOME, the trust store); the process environment is never
	// read. Nil reads nothing.
	Getenv func(string) string
	// Overrides are flat keys set by flags (--mode sets resume.mode): they
	// win over every other layer and are not type-checked here.
	Overrides map[string]any
}

// UsageError is a configuration problem the user must fix (a wrongly typed
// value, a file that is not YAML, a --config file that cannot be read): a
// usage-class error, exit 2 in the command layer.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *UsageError) Unwrap() error { return e.Err }

// usageErrorf returns a UsageError with a formatted message.
func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// Load reads the configuration of an invocation: the precedence is flag
// (Overrides) > environment > the user's config > the repository's
// .orchestrate.yaml > default, the repository's privileged settings applying
// only once the user trusts that exact file (docs/SECURITY.md). Unknown keys
// become Warnings; a wrongly typed value is a *UsageError; a file that
// cannot be read is a plain error.
func Load(opts LoadOptions) (*Loaded, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	v := newViper()
	keys := make([]string, 0, len(opts.Overrides))
	for k := range opts.Overrides {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v.Set(k, opts.Overrides[k])
	}
	return load(v, opts.Root, opts.Explicit, getenv)
}

// newViper returns the one viper instance of an invocation, with every key
// of config.Default registered so ORCHESTRATE_* variables of the injected
// environment reach them (load, mergeEnv).
func newViper() *viper.Viper {
	v := viper.New()
	d := Default()
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
		"handoff.agent":                   d.Handoff.Agent,
		"handoff.find_session":            d.Handoff.FindSession,
		"handoff.session_gone_exit_codes": d.Handoff.SessionGoneExitCodes,
		"handoff.session_gone_pattern":    d.Handoff.SessionGonePattern,
		"handoff.fallback_command":        d.Handoff.FallbackCommand,
		"handoff.session_id_pattern":      d.Handoff.SessionIDPattern,
		"handoff.timeout":                 d.Handoff.Timeout,
		"log_path":                        d.LogPath,
		"templates_dir":                   d.TemplatesDir,
		"max_file_size":                   d.MaxFileSize,
		"max_ref_files":                   d.MaxRefFiles,
		"lifecycle.remote":                d.Lifecycle.Remote,
		"lifecycle.lease":                 d.Lifecycle.Lease,
	}
	for k, val := range defaults {
		v.SetDefault(k, val)
	}
	return v
}

// envNames are the environment variables of registered key k, the first
// set one winning: ORCHESTRATE_<KEY> with dots as underscores, and the
// short ORCHESTRATE_MODE for resume.mode and ORCHESTRATE_REMOTE for
// lifecycle.remote.
func envNames(k string) []string {
	name := "ORCHESTRATE_" + strings.ToUpper(strings.ReplaceAll(k, ".", "_"))
	switch k {
	case "resume.mode":
		return []string{"ORCHESTRATE_MODE", name}
	case "lifecycle.remote":
		return []string{"ORCHESTRATE_REMOTE", name}
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
// read so far (Overrides set on v still win over it).
func (cl *Loaded) mergeEnv(getenv func(string) string) error {
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
func (cl *Loaded) check(src configSource, flat map[string]any) error {
	warnings, err := checkLayer(src, flat)
	cl.Warnings = append(cl.Warnings, warnings...)
	return err
}

// merged records that src set the keys of flat, for the messages that say
// where a value came from (Source).
func (cl *Loaded) merged(src configSource, flat map[string]any) {
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

// Loaded is the configuration of an invocation: the merged Config, the
// repository's file and its trust, and warnings for stderr.
type Loaded struct {
	Config   Config
	Repo     *RepoFile // nil when no repository file was read
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

// Get is the merged value of flat key k as text ("" when nothing sets it),
// flags included: Get("resume.mode").
func (cl *Loaded) Get(k string) string { return cl.v.GetString(k) }

// Source names where flat key k was set last, as a message names it
// ("resume.mode in .orchestrate.yaml", "ORCHESTRATE_MODE"); false when only
// a flag or the default sets it.
func (cl *Loaded) Source(k string) (string, bool) {
	o, ok := cl.origins[k]
	return o, ok
}

// load reads the configuration into v (Load). With --config (explicit)
// only that file is read, and trusted as the user's own. Otherwise the
// precedence is flag > environment > the user's config
// ($XDG_CONFIG_HOME/orchestrate/config.yaml) > the repository's
// .orchestrate.yaml > default, and the repository's privileged settings
// (privilegedKeys) apply only when the trust store trusts that exact file or
// ORCHESTRATE_TRUST_REPO_CONFIG=1; its paths must stay inside the
// repository in every case. Every file is read bounded and non-blocking.
func load(v *viper.Viper, root, explicit string, getenv func(string) string) (*Loaded, error) {
	v.SetConfigType("yaml")
	cl := &Loaded{v: v, origins: map[string]string{}}
	if explicit != "" {
		data, err := ReadFile(explicit, "")
		if err != nil {
			return nil, usageErrorf("--config %s: %v", explicit, err)
		}
		flat, lines, err := parseYAML(explicit, data)
		if err != nil {
			return nil, err
		}
		src := configSource{Name: explicit, Lines: lines}
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
		cl.templatesNote(root, "only --config "+explicit+" is read (set templates_dir there to use them)")
		return cl, cl.unmarshal()
	}

	// The user's own file: read first, merged last (it wins).
	var userData []byte
	userPath := ""
	if xdg := userConfigDir(getenv); xdg != "" {
		userPath = filepath.Join(xdg, "orchestrate", "config.yaml")
		data, err := ReadFile(userPath, "")
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
		m, lines, err := parseYAML(userSrc.Name, userData)
		if err != nil {
			return nil, err
		}
		userSrc.Lines = lines
		if err := cl.check(userSrc, m); err != nil {
			return nil, err
		}
		userFlat = m
	}

	repoPath := filepath.Join(root, RepoFileName)
	data, err := ReadFile(repoPath, root)
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
			cl.Warnings = append(cl.Warnings, fmt.Sprintf("%s %s: ignoring %s (review it with 'orchestrate trust --show', trust it with 'orchestrate trust')", rc.Rel, rc.StateWords(), strings.Join(ign, ", ")))
		}
		if w := rc.loosenedWarning(); w != "" {
			cl.Warnings = append(cl.Warnings, w)
		}
	}
	why := "there is no " + RepoFileName + " to trust (set templates_dir in your own config to use them)"
	if rc := cl.Repo; rc != nil {
		why = fmt.Sprintf("%s %s (run 'orchestrate trust' to use them)", rc.Rel, rc.StateWords())
	}
	cl.templatesNote(root, why)
	return cl, cl.unmarshal()
}

// templatesTrusted reports whether templates_dir may be used as it is
// merged: set by a trusted layer (the user's config, --config, the
// environment, or the repository's file once trusted, since an untrusted
// file's value is withheld), or left at its default inside a repository
// whose .orchestrate.yaml is trusted. The repository's own templates folder
// is never used on the strength of nothing: without a trusted repository
// file (none at all included) the default folder is not read.
func (cl *Loaded) templatesTrusted() bool {
	if _, set := cl.origins["templates_dir"]; set {
		return true
	}
	return cl.Repo != nil && cl.Repo.Trusted()
}

// templatesNote warns when the repository has a templates folder at the
// default place that is not used because nothing trusts it (why says so).
func (cl *Loaded) templatesNote(root, why string) {
	if cl.templatesTrusted() || root == "" {
		return
	}
	def := Default().TemplatesDir
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(def)))
	if err != nil || !fi.IsDir() {
		return
	}
	cl.Warnings = append(cl.Warnings, fmt.Sprintf("%s: the repository's templates are not used: %s", def, why))
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

// ApplyTrusted applies the repository file's withheld settings, once the
// user has trusted it, and returns the new Config.
func (cl *Loaded) ApplyTrusted() (Config, error) {
	rc := cl.Repo
	if rc == nil {
		return cl.Config, nil
	}
	if len(rc.withheld) == 0 {
		// nothing held back, but trust still opens the templates folder
		rc.State = trust.Trusted
		return cl.Config, cl.unmarshal()
	}
	if err := cl.v.MergeConfigMap(nest(rc.withheld)); err != nil {
		return cl.Config, fmt.Errorf("config %s: %w", rc.Path, err)
	}
	cl.merged(configSource{Name: rc.Rel}, rc.withheld)
	rc.withheld, rc.Withheld = map[string]any{}, nil
	rc.State = trust.Trusted
	if err := cl.unmarshal(); err != nil {
		return cl.Config, err
	}
	return cl.Config, nil
}

// unmarshal decodes v into cl.Config over the defaults.
func (cl *Loaded) unmarshal() error {
	cfg := Default()
	if err := cl.v.Unmarshal(&cfg); err != nil {
		return &UsageError{Err: fmt.Errorf("config: %w", err)}
	}
	if cfg.MaxFileSize <= 0 {
		cfg.MaxFileSize = Default().MaxFileSize
	}
	if cfg.MaxRefFiles <= 0 {
		cfg.MaxRefFiles = Default().MaxRefFiles
	}
	if !cl.templatesTrusted() {
		cfg.TemplatesDir = "" // the built-in templates only
	}
	if err := cl.checkHandoffAgent(cfg.Handoff); err != nil {
		return err
	}
	cl.Config = cfg
	return nil
}

// parseYAML parses a configuration file (path as messages show it) into
// flat, lower-case, dotted keys,
// as viper itself sees them (so "handoff.command" written as one key and
// handoff: {command} are the same key), with the line of each key; a file
// that is not a YAML map is a *UsageError in plain words (yamlerr.go).
func parseYAML(path string, data []byte) (map[string]any, map[string]int, error) {
	lines, err := keyLines(path, data)
	if err != nil {
		return nil, nil, err
	}
	pv := viper.New()
	pv.SetConfigType("yaml")
	if err := pv.ReadConfig(bytes.NewReader(data)); err != nil {
		return nil, nil, &UsageError{Err: fmt.Errorf("%s: the YAML is malformed: %w", path, errNotMap)}
	}
	flat := map[string]any{}
	flatten("", pv.AllSettings(), flat)
	return flat, lines, nil
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
