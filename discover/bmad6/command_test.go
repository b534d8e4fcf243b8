package bmad6

import "testing"

// TestSpelling: the installed IDE files decide how the framework's commands
// are typed, then the BMAD version, then the config's folder.
func TestSpelling(t *testing.T) {
	const lp = "_bmad-output/implementation-artifacts/sprint-status.yaml"
	base := func(extra map[string]string) map[string]string {
		m := map[string]string{lp: ledger("", "1-1-a: in-progress"), "_bmad-output/implementation-artifacts/1-1-a.md": storyMD("1.1", "in-progress", "")}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	cfg := func(dir, version string) map[string]string {
		return map[string]string{dir + "/bmm/config.yaml": "# Version: " + version + "\nproject_name: parcel\n"}
	}
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"skill installed", base(map[string]string{".claude/skills/bmad-dev-story/SKILL.md": "---\nname: bmad-dev-story\n---\n"}), "/bmad-dev-story "},
		{"6.0 command installed", base(map[string]string{".claude/commands/bmad-bmm-dev-story.md": "---\nname: 'dev-story'\n---\n"}), "/bmad-bmm-dev-story "},
		{"alpha command installed", base(map[string]string{".claude/commands/bmad/bmm/workflows/dev-story.md": "x\n"}), "/bmad:bmm:workflows:dev-story "},
		{"installed files beat the version", base(merge2(cfg("_bmad", "6.0.3"), map[string]string{".claude/skills/bmad-dev-story/SKILL.md": "x\n"})), "/bmad-dev-story "},
		{"version 6.0.3", base(cfg("_bmad", "6.0.3")), "/bmad-bmm-dev-story "},
		{"version 6.0.0-Beta.8", base(cfg("_bmad", "6.0.0-Beta.8")), "/bmad-bmm-dev-story "},
		{"version 6.0.0-alpha.12", base(cfg(".bmad", "6.0.0-alpha.12")), "/bmad:bmm:workflows:dev-story "},
		{"version 6.2.1", base(cfg("_bmad", "6.2.1")), "/bmad-dev-story "},
		{"alpha folder, no version", base(map[string]string{".bmad/bmm/config.yaml": "project_name: parcel\n"}), "/bmad:bmm:workflows:dev-story "},
		{"nothing: the current skill", base(nil), "/bmad-dev-story "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, _ := scan(repoWith(t, tt.files))
			if len(cs) != 1 || cs[0].Resume == nil {
				t.Fatalf("candidates %v", ids(cs))
			}
			want := tt.want + "_bmad-output/implementation-artifacts/1-1-a.md"
			if got := cs[0].Resume.FrameworkCommand; got != want {
				t.Errorf("command %q, want %q", got, want)
			}
		})
	}
}

func merge2(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
