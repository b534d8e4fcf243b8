package bmad6

import (
	"path"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
)

// configPaths are the module configs of every v6 layout generation, newest
// first.
var configPaths = []string{"_bmad/bmm/config.yaml", ".bmad/bmm/config.yaml", "bmad/bmm/config.yaml"}

// defaultLedgers are the ledger's default places, in search order.
var defaultLedgers = []string{
	"_bmad-output/implementation-artifacts/sprint-status.yaml",
	"docs/sprint-artifacts/sprint-status.yaml",
	".bmad-ephemeral/sprint-status.yaml",
	"docs/sprint-status.yaml",
	"_bmad-output/sprint-status.yaml",
}

// Config is what a v6 module config says about where things live.
type Config struct {
	Path    string            // the config file, "" when none
	Values  map[string]string // its scalar keys
	Ledger  string            // the ledger path it implies, "" when none
	Stories string            // the story folder it implies, "" when none
	Version string            // the BMAD version: the config's "# Version:" header, else the manifest's
}

// manifests hold installation.version when the config has no header.
var manifests = []string{"_bmad/_config/manifest.yaml", ".bmad/_cfg/manifest.yaml", "bmad/_cfg/manifest.yaml"}

// headerVersion reads a "# Version: 6.0.3" comment among the first lines.
func headerVersion(data []byte) string {
	lines := strings.SplitN(string(data), "\n", 12)
	for _, l := range lines[:min(len(lines), 11)] {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "#") {
			continue
		}
		l = strings.TrimSpace(strings.TrimPrefix(l, "#"))
		if len(l) > 8 && strings.EqualFold(l[:8], "version:") {
			return oneLine(strings.TrimSpace(l[8:]))
		}
	}
	return ""
}

// manifestVersion is installation.version of the first manifest present.
func manifestVersion(r *source.Repo) string {
	for _, p := range manifests {
		if _, m, readErr, yamlErr := readYAMLMap(r, p); readErr == nil && yamlErr == nil {
			if inst, ok := m["installation"].(map[string]any); ok {
				if v, ok := tolerant.ScalarString(inst["version"]); ok {
					return oneLine(v)
				}
			}
		}
	}
	return ""
}

// readYAMLMap reads p from r (readErr: it cannot) and decodes it as a YAML
// map (yamlErr: it is none).
func readYAMLMap(r *source.Repo, p string) (data []byte, m map[string]any, readErr, yamlErr error) {
	if data, readErr = r.Read(p); readErr != nil {
		return nil, nil, readErr, nil
	}
	m, yamlErr = tolerant.DecodeYAMLMap(data)
	return data, m, nil, yamlErr
}

// readConfig reads the first v6 module config present, and the version.
func readConfig(r *source.Repo) Config {
	c := readModuleConfig(r)
	if c.Version == "" {
		c.Version = manifestVersion(r)
	}
	return c
}

func readModuleConfig(r *source.Repo) Config {
	for _, p := range configPaths {
		data, m, readErr, yamlErr := readYAMLMap(r, p)
		if readErr != nil {
			continue
		}
		if yamlErr != nil {
			return Config{Path: p, Version: headerVersion(data)}
		}
		c := Config{Path: p, Values: map[string]string{}, Version: headerVersion(data)}
		for k, v := range m {
			if s, ok := tolerant.ScalarString(v); ok {
				c.Values[k] = s
			}
		}
		if c.Values["output_folder"] == "" {
			c.Values["output_folder"] = "docs"
			if p == configPaths[0] {
				c.Values["output_folder"] = "_bmad-output"
			}
		}
		if c.Values["bmad_folder"] == "" {
			c.Values["bmad_folder"] = strings.SplitN(p, "/", 2)[0]
		}
		folder := ""
		for _, k := range []string{"implementation_artifacts", "sprint_artifacts", "dev_ephemeral_location"} {
			if v := c.expand(c.Values[k]); v != "" {
				folder = v
				break
			}
		}
		switch {
		case folder != "":
			c.Ledger = path.Join(folder, "sprint-status.yaml")
			c.Stories = folder
		case c.Values["output_folder"] != "":
			c.Ledger = path.Join(c.expand(c.Values["output_folder"]), "sprint-status.yaml")
		}
		if v := c.expand(c.Values["dev_story_location"]); v != "" {
			c.Stories = v
		}
		return c
	}
	return Config{}
}

// expand resolves the placeholders of a config value: {project-root},
// {output_folder} and the other folder keys, {config_source}:key. What
// stays unresolved (a runtime-only {{story_key}}, an unknown name) or an
// absolute or escaping path gives "".
func (c Config) expand(v string) string {
	v = strings.TrimSpace(strings.Trim(strings.TrimSpace(v), `"'`))
	for i := 0; i < 4 && strings.Contains(v, "{"); i++ {
		v = strings.ReplaceAll(v, "{project-root}/", "")
		v = strings.ReplaceAll(v, "{project-root}", "")
		if strings.HasPrefix(v, "{config_source}:") {
			v = c.Values[strings.TrimPrefix(v, "{config_source}:")]
			continue
		}
		for _, k := range []string{"output_folder", "bmad_folder", "sprint_artifacts", "implementation_artifacts", "planning_artifacts"} {
			if strings.Contains(v, "{"+k+"}") {
				v = strings.ReplaceAll(v, "{"+k+"}", strings.Trim(c.Values[k], `"'`))
			}
		}
	}
	if strings.Contains(v, "{") {
		return ""
	}
	p, safe := refpath.Clean(v)
	if !safe {
		return ""
	}
	return p
}

// ledgerPaths lists the ledgers to read: the config's, then the defaults,
// each once and only when present.
func ledgerPaths(r *source.Repo, c Config) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range append([]string{c.Ledger}, defaultLedgers...) {
		if p == "" || seen[p] || !r.Exists(p) {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// declared reads a story_location header: quotes and {project-root}/
// stripped; usable is false for an absolute path (an author's machine).
func declared(v string, c Config) (p string, usable bool) {
	v = strings.TrimSpace(strings.Trim(strings.TrimSpace(v), `"'`))
	if v == "" {
		return "", false
	}
	raw := strings.ReplaceAll(v, `\`, "/")
	if strings.HasPrefix(raw, "/") || strings.HasPrefix(raw, "~") || (len(raw) >= 2 && raw[1] == ':') {
		return v, false
	}
	e := c.expand(v)
	return e, e != ""
}
