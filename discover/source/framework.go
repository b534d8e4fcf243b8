package source

import (
	"fmt"
	"path"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// BMADCoreConfig is where BMAD v4 keeps its project configuration.
const BMADCoreConfig = ".bmad-core/core-config.yaml"

// FrameworkStoryGlobs reads the frameworks' own configuration for where
// stories live: BMAD v4's core-config.yaml devStoryLocation (every story
// below it) and qa.qaLocation (story files at its top level; its gates/ and
// assessments/ folders are QA records, not stories). Missing files and keys,
// placeholders ("{root}/…", "${…}", "<…>") and paths that leave the
// repository are ignored; a config that does not decode is an info finding.
func FrameworkStoryGlobs(r *Repo) ([]string, []workflow.Finding) {
	if !r.Exists(BMADCoreConfig) {
		return nil, nil
	}
	data, err := r.Read(BMADCoreConfig)
	if err != nil {
		return nil, []workflow.Finding{frameworkInfo(fmt.Sprintf("cannot read %s: %v; stories are looked for in the default folders", BMADCoreConfig, err))}
	}
	m, err := tolerant.DecodeYAMLMap(data)
	if err != nil {
		return nil, []workflow.Finding{frameworkInfo(fmt.Sprintf("%s does not decode; stories are looked for in the default folders", BMADCoreConfig))}
	}
	f := &Fields{Path: BMADCoreConfig}
	var globs []string
	if dir, ok := configDir(f.Str(m, "devStoryLocation", "dev_story_location")); ok {
		globs = append(globs, dir+"/**/*.md")
	}
	if qa := f.Map(m, "qa"); qa != nil {
		if dir, ok := configDir(f.Str(qa, "qaLocation", "qa_location")); ok {
			globs = append(globs, dir+"/*.md")
		}
	}
	return globs, nil
}

func frameworkInfo(msg string) workflow.Finding {
	return workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Info, Code: "framework-config", Message: msg, Path: BMADCoreConfig}
}

// configDir cleans a folder named by a framework's configuration: relative
// to the repository root, slash-separated, without placeholders, glob
// characters or a way out of the repository.
func configDir(s string) (string, bool) {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\\", "/"))
	if s == "" || len(s) > 300 || strings.ContainsAny(s, "{}<>$%*?[]\x00\n\r\t") {
		return "", false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return "", false
		}
	}
	if strings.HasPrefix(s, "/") || (len(s) > 1 && s[1] == ':') {
		return "", false
	}
	clean := path.Clean(s)
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", false
	}
	return clean, true
}
