package cli

import (
	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// readmeUsage is README.md's Usage section (up to the next "## " heading):
// its synopsis block (the first code block) and every command line of
// orchestrate in it, from code blocks and `code spans`.
func readmeUsage(t *testing.T) (synopsis []string, lines []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatalf("read README.md: %v", err)
	}
	s := string(b)
	start := strings.Index(s, "\n## Usage\n")
	if start < 0 {
		t.Fatal("README.md has no ## Usage section")
	}
	s = s[start+len("\n## Usage\n"):]
	if end := strings.Index(s, "\n## "); end >= 0 {
		s = s[:end]
	}
	inCode, first := false, true
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			if inCode {
				first = false
			}
			inCode = !inCode
			continue
		}
		if inCode && first {
			synopsis = append(synopsis, l)
			continue
		}
		if inCode {
			if c := strings.TrimSpace(l); strings.HasPrefix(c, "orchestrate ") {
				lines = append(lines, c)
			}
			continue
		}
		for _, m := range codeSpanRE.FindAllStringSubmatch(l, -1) {
			if strings.HasPrefix(m[1], "orchestrate ") {
				lines = append(lines, m[1])
			}
		}
	}
	if len(synopsis) == 0 {
		t.Fatal("the Usage section has no synopsis block")
	}
	return synopsis, lines
}

var codeSpanRE = regexp.MustCompile("`([^`]+)`")

// synopsisEntries are the synopsis's commands: "orchestrate PATH…" lines
// with their continuation lines (indented), descriptions (after two
// spaces) cut off, by command path.
func synopsisEntries(t *testing.T, root *cobra.Command, synopsis []string) (entries map[string]string, global string) {
	t.Helper()
	entries = map[string]string{}
	last := ""
	for _, l := range synopsis {
		switch {
		case strings.HasPrefix(l, "orchestrate "):
			text := l
			if i := strings.Index(l, "  "); i >= 0 {
				text = l[:i]
			}
			words := strings.Fields(text)[1:]
			var path []string
			for _, w := range words {
				if !regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(w) {
					break
				}
				path = append(path, w)
			}
			cmd, _, err := root.Find(path)
			if err != nil || cmd == root && len(path) > 0 {
				t.Errorf("README synopsis: %q: no command %q", l, strings.Join(path, " "))
				last = ""
				continue
			}
			last = cmd.CommandPath()
			entries[last] += " " + text
		case strings.HasPrefix(l, " ") && last != "":
			entries[last] += " " + strings.TrimSpace(l)
		case strings.HasPrefix(l, "Global flags:"):
			last = ""
			global += l
		default:
			last = ""
			global += " " + l // the global flags' continuation
		}
	}
	return entries, global
}

// Every command and flag is in README's synopsis, and every flag there is
// one of its command's.
func TestReadmeUsageComplete(t *testing.T) {
	a := &app{sys: System{}, v: newSettings()}
	root := a.newRootCmd()
	synopsis, _ := readmeUsage(t)
	entries, global := synopsisEntries(t, root, synopsis)
	flagRE := regexp.MustCompile(`(?:^|[\s\[|(])(--?[a-z][a-z-]*)`)
	cmdutil.Walk(root, func(c *cobra.Command) {
		if c.Hidden || c == root || (c.HasSubCommands() && !c.Runnable()) {
			return
		}
		entry, ok := entries[c.CommandPath()]
		if !ok {
			t.Errorf("README's Usage does not list %q", c.CommandPath())
			return
		}
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if f.Name == "help" || f.Hidden {
				return
			}
			if !strings.Contains(entry, "--"+f.Name) && (f.Shorthand == "" || !strings.Contains(entry, "-"+f.Shorthand+" ")) {
				t.Errorf("README's Usage: %q does not list --%s", c.CommandPath(), f.Name)
			}
		})
		for _, m := range flagRE.FindAllStringSubmatch(entry, -1) {
			name := m[1]
			var f *pflag.Flag
			if strings.HasPrefix(name, "--") {
				f = c.Flags().Lookup(name[2:])
				if f == nil {
					f = c.InheritedFlags().Lookup(name[2:])
				}
			} else {
				f = c.Flags().ShorthandLookup(name[1:])
			}
			if f == nil {
				t.Errorf("README's Usage: %q lists %s, which it does not have", c.CommandPath(), name)
			}
		}
	})
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if !strings.Contains(global, "--"+f.Name) {
			t.Errorf("README's Usage: the global flags do not list --%s", f.Name)
		}
	})
	if !strings.Contains(strings.Join(synopsis, "\n"), "--version") {
		t.Error("README's Usage does not list --version")
	}
}

// Every orchestrate command line of README's Usage section (the examples,
// the id table, the text) parses: cobra finds its command, its flags are
// that command's, its arguments are as many as it takes.
func TestReadmeUsageParses(t *testing.T) {
	_, lines := readmeUsage(t)
	if len(lines) < 10 {
		t.Fatalf("only %d command lines found in README's Usage", len(lines))
	}
	for _, l := range lines {
		args := strings.Fields(strings.TrimPrefix(l, "orchestrate "))
		a := &app{sys: System{}, v: newSettings()}
		root := a.newRootCmd()
		cmd, rest, err := root.Find(args)
		if err != nil {
			t.Errorf("README: %q: %v", l, err)
			continue
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("README: %q: %v", l, err)
			continue
		}
		if help, _ := cmd.Flags().GetBool("help"); help || len(rest) == 0 && cmd != root {
			continue // `orchestrate unlock` in prose names the command, no more
		}
		if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
			t.Errorf("README: %q: %v", l, err)
		}
	}
}

// The id forms of every framework are in README's Usage, and the
// examples use them.
func TestReadmeIDForms(t *testing.T) {
	_, lines := readmeUsage(t)
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	usage := string(b)[strings.Index(string(b), "\n## Usage\n"):]
	for _, form := range []string{"sdc:", "qa-review:", "qa-loop:", "epic:", "spec:", "workflow:", "work-session:", "feature:", "task:", "phase:", "quick-spec:"} {
		if !strings.Contains(usage, "`"+form) {
			t.Errorf("README's Usage does not name the id form %s", form)
		}
	}
	all := strings.Join(lines, "\n")
	for _, form := range []string{"feature:", "task:", "phase:", "quick-spec:", "work-session:", "sdc:", "qa-review:"} {
		if !strings.Contains(all, " "+form) {
			t.Errorf("README's Usage has no example with a %s id", form)
		}
	}
}
