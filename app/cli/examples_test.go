package cli

import (
	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/templates"
)

// exampleExits are the examples of the help that do not exit 0 in the
// fixture, each with the code it must exit with and why that is right.
// Every other example must exit 0: a new example that does not is caught
// here until it is fixed or listed with its reason.
var exampleExits = map[string]int{
	// interactive and pre-flight ask first, and the tests have no
	// terminal: exit 19, whose message names --approve (a dry run exits
	// with the code the real run would)
	"orchestrate resume":                                    cmdutil.ExitNoTTY,
	"orchestrate resume sdc:4.2":                            cmdutil.ExitNoTTY,
	"orchestrate resume sdc:4.2 --from-phase validate":      cmdutil.ExitNoTTY,
	"orchestrate resume --dry-run --mode preflight sdc:4.2": cmdutil.ExitNoTTY,
}

// exampleWSID is the cookie of the active work session of the fixture
// ($ORCHESTRATE_WSID in the breadcrumb and work examples).
const exampleWSID = "wsession-parent-abc123"

// TestHelpExamplesRun runs every command line of every command's Examples
// (templates.Examples) against a fixture repository where each applies (an
// SDC workflow for story 4.2, interrupted at implement; an active work
// session): none may fail with a usage error, and each exits with the code
// exampleExits gives it (0 by default). It is the guard for every future
// example: an example that stops working fails here.
func TestHelpExamplesRun(t *testing.T) {
	var paths []string
	for p := range templates.Examples {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	ran := 0
	for _, path := range paths {
		for _, line := range strings.Split(templates.Examples[path], "\n") {
			line = strings.TrimSpace(stripShellComment(line))
			if line == "" {
				continue
			}
			cmds := exampleCommands(t, line)
			if len(cmds) == 0 {
				t.Errorf("%s: example %q runs no orchestrate command", path, line)
				continue
			}
			ran++
			key := strings.Join(cmds[len(cmds)-1], " ")
			t.Run(path+"/"+line, func(t *testing.T) {
				dir := exampleRepo(t)
				t.Chdir(dir) // relative paths (plan.json) land in the fixture
				home := t.TempDir()
				env := map[string]string{"ORCHESTRATE_TRUST_REPO_CONFIG": "1", "ORCHESTRATE_WSID": exampleWSID,
					"HOME": home, "XDG_CONFIG_HOME": home + "/.config"}
				want, listed := exampleExits[key]
				for i, args := range cmds {
					r := run(t, dir, env, false, args[1:]...)
					if r.code == cmdutil.ExitUsage {
						t.Fatalf("%q: usage error (exit 2):\n%s%s", strings.Join(args, " "), r.out.String(), r.err.String())
					}
					last := i == len(cmds)-1
					if !last && r.code != cmdutil.ExitOK {
						t.Fatalf("%q (before && in %q): exit %d:\n%s%s", strings.Join(args, " "), line, r.code, r.out.String(), r.err.String())
					}
					if last && r.code != want {
						t.Fatalf("%q: exit %d, want %d (listed: %v):\n%s%s", line, r.code, want, listed, r.out.String(), r.err.String())
					}
				}
			})
		}
	}
	if ran < 20 {
		t.Fatalf("only %d examples ran", ran)
	}
}

// exampleRepo is the repository the examples run in: task example 1's
// story 4.2, in progress, with no state file of its own (so its id is
// sdc:4.2, the id the examples use), a configuration with a handoff
// command, and an active work session.
func exampleRepo(t *testing.T) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", "script", "status", "example1_clean.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "repo")
	if err := gitfixture.Init(dir); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		".orchestrate.yaml": "handoff:\n  command: 'true'\n",
		wsParentFile:        wsParent,
	}
	for _, f := range ar.Files {
		if !strings.HasPrefix(f.Name, "want") && !strings.HasPrefix(f.Name, ".orchestrate/") {
			files[f.Name] = string(f.Data)
		}
	}
	for name, data := range files {
		if err := gitfixture.WriteFile(dir, name, data); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := gitfixture.Commit(dir, "story 4.2 in progress", "Dev Agent", "dev@example.com", time.Date(2026, 11, 20, 11, 15, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// stripShellComment drops a trailing " # comment" outside quotes.
func stripShellComment(line string) string {
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || line[i-1] == ' '):
			return line[:i]
		}
	}
	return line
}

// exampleCommands are the orchestrate commands an example line runs, as
// argument lists: "a && b" is two; a pipe or a redirection ends a command
// (what follows is not orchestrate's); "source <(orchestrate …)" is the
// command inside. $ORCHESTRATE_WSID expands to the fixture's cookie.
func exampleCommands(t *testing.T, line string) [][]string {
	t.Helper()
	if inner, ok := strings.CutPrefix(line, "source <("); ok {
		line = strings.TrimSuffix(inner, ")")
	}
	var cmds [][]string
	var cur []string
	var word strings.Builder
	inWord, stop := false, false
	flush := func() {
		if inWord && !stop {
			cur = append(cur, word.String())
		}
		word.Reset()
		inWord = false
	}
	end := func() {
		flush()
		if len(cur) > 0 && cur[0] == "orchestrate" {
			cmds = append(cmds, cur)
		}
		cur, stop = nil, false
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			word.WriteString(string(rs[i+1 : j]))
			inWord, i = true, j
		case r == '"':
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				j++
			}
			word.WriteString(strings.ReplaceAll(string(rs[i+1:j]), "$ORCHESTRATE_WSID", exampleWSID))
			inWord, i = true, j
		case r == ' ':
			flush()
		case r == '&' && i+1 < len(rs) && rs[i+1] == '&':
			end()
			i++
		case r == '|' || r == '>':
			flush()
			stop = true
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	end()
	for _, c := range cmds {
		for _, a := range c {
			if strings.Contains(a, "$") {
				t.Fatalf("example %q: unexpanded %q", line, a)
			}
		}
	}
	return cmds
}
