package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/viper"

	"github.com/orchestrate-dev/orchestrate/internal/config"
)

// newViper returns the one viper instance of an invocation, with every key
// of config.Default registered so ORCHESTRATE_* variables reach them.
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
		"handoff.command":                 d.Handoff.Command,
		"handoff.session_gone_exit_codes": d.Handoff.SessionGoneExitCodes,
		"handoff.session_gone_pattern":    d.Handoff.SessionGonePattern,
		"handoff.fallback_command":        d.Handoff.FallbackCommand,
		"handoff.session_id_pattern":      d.Handoff.SessionIDPattern,
		"log_path":                        d.LogPath,
		"templates_dir":                   d.TemplatesDir,
		"max_file_size":                   d.MaxFileSize,
		"max_ref_files":                   d.MaxRefFiles,
	}
	for k, val := range defaults {
		v.SetDefault(k, val)
	}
	v.SetEnvPrefix("ORCHESTRATE")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	return v
}

// loadConfig reads the configuration files into v — the user's
// ($XDG_CONFIG_HOME/orchestrate/config.yaml), then the repository's
// (.orchestrate.yaml at root), or only explicit when --config is given — and
// returns the merged Config. Flags must already be bound to v.
func loadConfig(v *viper.Viper, root, explicit string, getenv func(string) string) (config.Config, error) {
	v.SetConfigType("yaml")
	var files []string
	if explicit != "" {
		files = []string{explicit}
	} else {
		xdg := getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			if home := getenv("HOME"); home != "" {
				xdg = filepath.Join(home, ".config")
			}
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "orchestrate", "config.yaml"))
		}
		files = append(files, filepath.Join(root, ".orchestrate.yaml"))
	}
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			if explicit != "" {
				return config.Config{}, usagef("--config %s: %v", f, err)
			}
			continue
		}
		if fi.Size() > 1<<20 {
			return config.Config{}, fmt.Errorf("config %s: larger than 1 MiB", f)
		}
		fh, err := os.Open(f)
		if err != nil {
			return config.Config{}, fmt.Errorf("read config %s: %w", f, err)
		}
		err = v.MergeConfig(fh)
		fh.Close()
		if err != nil {
			return config.Config{}, fmt.Errorf("config %s: %w", f, err)
		}
	}
	cfg := config.Default()
	if err := v.Unmarshal(&cfg); err != nil {
		var pe *viper.ConfigParseError
		if errors.As(err, &pe) {
			return cfg, fmt.Errorf("config: %w", err)
		}
		return cfg, fmt.Errorf("config: %w", err)
	}
	if cfg.MaxFileSize <= 0 {
		cfg.MaxFileSize = config.Default().MaxFileSize
	}
	if cfg.MaxRefFiles <= 0 {
		cfg.MaxRefFiles = config.Default().MaxRefFiles
	}
	return cfg, nil
}
