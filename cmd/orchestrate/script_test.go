package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/orchestrate-dev/orchestrate/app/cli"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

var update = flag.Bool("update", false, "rewrite the golden files of the testscript scripts")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"orchestrate": func() {
			// ORCHESTRATE_TEST_LEASE: a script's shared locks take leases
			// shorter than a configuration may set (sharedlife.MinLease),
			// so that a renewal, a third of the lease apart on the real
			// clock, comes within a second (lifecycle_remote_lease_lost)
			if v := os.Getenv("ORCHESTRATE_TEST_LEASE"); v != "" {
				d, err := time.ParseDuration(v)
				if err != nil || d <= 0 {
					fmt.Fprintf(os.Stderr, "ORCHESTRATE_TEST_LEASE=%q: not a positive duration\n", v)
					os.Exit(2)
				}
				cli.SetLeaseForTests(d)
			}
			setup() // as the binary's main does
			os.Exit(cli.Main(os.Args[1:], cli.OSSystem()))
		},
	})
}

// TestScripts runs the end-to-end scripts in testdata/script, one folder
// per topic (security, lifecycle, status, …; run one with
// -run 'TestScripts/<folder>/<name>'): each builds a repository (files from
// the archive, commits through gitfixture so no git binary is needed) and
// runs orchestrate, comparing output with goldens. The clock is pinned with
// ORCHESTRATE_NOW=2026-11-20T12:00:00Z unless a script sets it. orchestrate
// is run only through an explicit `exec`, and an archive may not name a
// file twice.
func TestScripts(t *testing.T) {
	dirs, err := os.ReadDir("../../testdata/script")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if !d.IsDir() {
			t.Errorf("testdata/script/%s: scripts live in a topic folder", d.Name())
			continue
		}
		n++
		dir := "../../testdata/script/" + d.Name()
		// the folders run in parallel, so that their scripts share the
		// -parallel slots: one after the other, each folder's slowest
		// script left the other slots idle before the next folder began
		t.Run(d.Name(), func(t *testing.T) {
			t.Parallel()
			runScripts(t, dir)
		})
	}
	if n == 0 {
		t.Fatal("no script folders in testdata/script")
	}
}

// runScripts runs the scripts of one folder.
func runScripts(t *testing.T, dir string) {
	testscript.Run(t, testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		// [root]: running as root (security_git_owner.txtar gives a
		// repository to another user)
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("ORCHESTRATE_NOW", "2026-11-20T12:00:00Z")
			env.Setenv("NO_COLOR", "1")
			env.Setenv("HOME", env.WorkDir)
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
			// under -race, each orchestrate the scripts run would otherwise
			// pause a second on exit
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"gitinit":   cmdGitInit,
			"gitcommit": cmdGitCommit,
			"gitrm":     cmdGitRm,
			"gitclone":  cmdGitClone,
			"mtime":     cmdMtime,
			"lockfile":  cmdLockfile,
			"sleep":     cmdSleep,
			"waitfile":  cmdWaitFile,
			"mkfifo":    cmdMkfifo,
			// printf-file and gitcommit-esc write control bytes (security_terminal.txtar)
			"printf-file":   cmdPrintfFile,
			"gitcommit-esc": cmdGitCommitEsc,
		},
	})
}

// gitinit [DIR] — create an empty repository (default: the current folder).
func cmdGitInit(ts *testscript.TestScript, neg bool, args []string) {
	dir := "."
	if len(args) > 0 {
		dir = args[0]
	}
	err := gitfixture.Init(ts.MkAbs(dir))
	if neg != (err != nil) {
		ts.Fatalf("gitinit: %v", err)
	}
}

// gitcommit [-C DIR] [-author "Name <email>"] [-date RFC3339] MESSAGE [PATH...]
// — commit PATHs (default: every change) with author and committer at DATE.
func cmdGitCommit(ts *testscript.TestScript, neg bool, args []string) {
	dir, author, email := ".", "Dev Agent", "dev@example.com"
	when := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-C":
			dir = args[1]
		case "-author":
			author = args[1]
			if i := strings.Index(author, "<"); i > 0 {
				email = strings.Trim(author[i:], "<> ")
				author = strings.TrimSpace(author[:i])
			}
		case "-date":
			t, err := time.Parse(time.RFC3339, args[1])
			if err != nil {
				ts.Fatalf("gitcommit -date: %v", err)
			}
			when = t
		default:
			ts.Fatalf("gitcommit: unknown flag %s", args[0])
		}
		args = args[2:]
	}
	if len(args) == 0 {
		ts.Fatalf("usage: gitcommit [-C DIR] [-author NAME] [-date RFC3339] MESSAGE [PATH...]")
	}
	paths := args[1:]
	if len(paths) == 0 {
		paths = committable(ts.MkAbs(dir))
	}
	_, err := gitfixture.Commit(ts.MkAbs(dir), args[0], author, email, when, paths...)
	if neg != (err != nil) {
		ts.Fatalf("gitcommit: %v", err)
	}
}

// committable lists the top-level entries of dir a script's repository is
// made of: everything but .git and the golden files (want*), whose content
// -update rewrites and which must not change the commit hashes they record.
func committable(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.Name() == ".git" || strings.HasPrefix(e.Name(), "want") || e.Name() == ".config" {
			continue
		}
		out = append(out, e.Name())
	}
	if len(out) == 0 {
		out = []string{"."}
	}
	return out
}

// gitrm PATH... — delete files from the work tree (commit with gitcommit).
func cmdGitRm(ts *testscript.TestScript, neg bool, args []string) {
	for _, a := range args {
		if err := os.Remove(ts.MkAbs(a)); err != nil && !neg {
			ts.Fatalf("gitrm: %v", err)
		}
	}
}

// mtime RFC3339 PATH... — set the modification time of files.
func cmdMtime(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: mtime RFC3339 PATH...")
	}
	t, err := time.Parse(time.RFC3339, args[0])
	if err != nil {
		ts.Fatalf("mtime: %v", err)
	}
	for _, p := range args[1:] {
		if err := os.Chtimes(ts.MkAbs(p), t, t); err != nil {
			ts.Fatalf("mtime: %v", err)
		}
	}
}

// lockfile ID dead|live — write the resume lock of workflow ID as a process
// on this host would: "dead" names a pid that does not exist (a stale lock),
// "live" names this test process.
func cmdLockfile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: lockfile ID dead|live")
	}
	host, _ := os.Hostname()
	info := handoff.LockInfo{PID: os.Getpid(), Host: host, User: "tester", StartedAt: time.Now().UTC(), Command: "orchestrate resume"}
	if args[1] == "dead" {
		info.PID = 4194000 // above the default pid_max range: never a live process
	}
	lk, err := handoff.Acquire(ts.Getenv("WORK"), args[0], info, false)
	if err != nil {
		ts.Fatalf("lockfile: %v", err)
	}
	_ = lk // left in place on purpose
}

// sleep DURATION — pause the script (for the background resume to take its lock).
func cmdSleep(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: sleep DURATION")
	}
	d, err := time.ParseDuration(args[0])
	if err != nil {
		ts.Fatalf("sleep: %v", err)
	}
	time.Sleep(d)
}

// waitfile PATH — wait (up to 30 s) until PATH exists: a background
// command has reached a step, whatever the machine's load (a fixed sleep is
// not enough on a busy CI runner).
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitfile PATH")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Lstat(ts.MkAbs(args[0])); err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfile: %s did not appear within 30s", args[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// mkfifo PATH... — make named pipes (FIFOs), as a hostile repository could.
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: mkfifo PATH...")
	}
	for _, p := range args {
		if err := syscall.Mkfifo(ts.MkAbs(p), 0o644); err != nil && !neg {
			ts.Fatalf("mkfifo: %v", err)
		}
	}
}

// unescapeArg interprets Go escapes (\x1b, \a, \r, \u202e, …) in a script
// argument, so a script can carry control bytes.
func unescapeArg(ts *testscript.TestScript, s string) string {
	out, err := strconv.Unquote(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`)
	if err != nil {
		ts.Fatalf("unescape %q: %v", s, err)
	}
	return out
}

// printf-file PATH TEXT — write TEXT, with its Go escapes interpreted, to PATH.
func cmdPrintfFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: printf-file PATH TEXT")
	}
	if err := os.WriteFile(ts.MkAbs(args[0]), []byte(unescapeArg(ts, args[1])), 0o644); err != nil {
		ts.Fatalf("printf-file: %v", err)
	}
}

// gitcommit-esc ARGS... — gitcommit with Go escapes interpreted in every
// argument (a commit subject or an author name carrying control bytes).
func cmdGitCommitEsc(ts *testscript.TestScript, neg bool, args []string) {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = unescapeArg(ts, a)
	}
	cmdGitCommit(ts, neg, out)
}

// gitclone clone|worktree|shallow SRC DST [DEPTH] — a fresh clone of SRC at
// DST (new modification times), a linked worktree of SRC at DST, or a clone
// cut to DEPTH commits (.git/shallow, older objects pruned).
func cmdGitClone(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 {
		ts.Fatalf("usage: gitclone clone|worktree|shallow SRC DST [DEPTH]")
	}
	src, dst := ts.MkAbs(args[1]), ts.MkAbs(args[2])
	var err error
	switch args[0] {
	case "clone":
		err = gitfixture.Clone(src, dst)
	case "worktree":
		err = gitfixture.AddWorktree(src, dst, filepath.Base(dst))
	case "shallow":
		depth := 1
		if len(args) > 3 {
			if depth, err = strconv.Atoi(args[3]); err != nil {
				ts.Fatalf("gitclone shallow: depth %q", args[3])
			}
		}
		if err = gitfixture.Clone(src, dst); err == nil {
			err = gitfixture.Shallow(dst, depth)
		}
	default:
		ts.Fatalf("gitclone: unknown kind %s", args[0])
	}
	if neg != (err != nil) {
		ts.Fatalf("gitclone: %v", err)
	}
}
