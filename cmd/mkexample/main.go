// Command mkexample creates the example repository `make demo` runs
// orchestrate on: the files of examples/demo (".tmpl" files rendered with
// timestamps relative to now) committed in a scripted history by two
// authors, so that discovery, validation and git drift have real work to do.
// It needs no git binary (commits are made with go-git).
//
//	go run ./cmd/mkexample -dir .demo [-src examples/demo]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

// step is one commit of the example's history.
type step struct {
	ago     time.Duration
	author  string
	message string
	paths   []string // path prefixes (after .tmpl is dropped)
	edit    func(dir string) error
}

const (
	ana   = "Ana Lima <ana@example.com>"
	bruno = "Bruno Costa <bruno@example.com>"
)

func history() []step {
	h := time.Hour
	return []step{
		{ago: 144 * h, author: ana, message: "Initial project: login", paths: []string{"README.md", ".orchestrate.yaml", "docs/stories/1.1.", "src/auth/login.ts"}},
		{ago: 120 * h, author: ana, message: "Spec pipeline for notifications: requirements, assessment, draft", paths: []string{"docs/specs/"}},
		{ago: 96 * h, author: ana, message: "Billing stories and the epic 3 execution plan", paths: []string{"docs/stories/3.", "docs/stories/epics/", "src/billing/"}},
		{ago: 72 * h, author: ana, message: "Epic 3: wave 1 started", paths: []string{".aiox/"}},
		{ago: 60 * h, author: ana, message: "Story 2.1: audit log implemented", paths: []string{"docs/stories/2.1.", "src/audit/"}},
		{ago: 26 * h, author: ana, message: "QA loop 2.1: iteration 3 rejected; story 1.2 started", paths: []string{"qa/", "docs/stories/1.2.", "src/auth/"}},
		{ago: 50 * time.Minute, author: ana, message: "SDC 1.2: implementation in progress", paths: []string{".orchestrate/"}},
		openspecStep(),
		speckitStep(),
		{ago: 20 * time.Minute, author: bruno, message: "Audit: ISO-8601 timestamps in the formatter", edit: func(dir string) error {
			return gitfixture.WriteFile(dir, "src/audit/format.ts", "export const format = (e: object) => JSON.stringify({ ...e, at: new Date().toISOString() });\n")
		}, paths: []string{"src/audit/format.ts"}},
	}
}

func main() {
	dir := flag.String("dir", ".demo", "folder to create the example repository in (emptied first)")
	src := flag.String("src", "examples/demo", "the example's files")
	flag.Parse()
	if err := run(*dir, *src, time.Now().UTC().Truncate(time.Second)); err != nil {
		fmt.Fprintln(os.Stderr, "mkexample:", err)
		os.Exit(1)
	}
}

func run(dir, src string, now time.Time) error {
	if dir == "" || dir == "/" || dir == "." {
		return fmt.Errorf("refusing to empty %q", dir)
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	files := map[string]string{}
	funcs := template.FuncMap{"ago": func(s string) (string, error) {
		d, err := time.ParseDuration(s)
		if err != nil {
			return "", err
		}
		return now.Add(-d).Format(time.RFC3339), nil
	}}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(rel, ".tmpl") {
			t, err := template.New(rel).Funcs(funcs).Parse(string(data))
			if err != nil {
				return err
			}
			var b bytes.Buffer
			if err := t.Execute(&b, nil); err != nil {
				return err
			}
			rel = strings.TrimSuffix(rel, ".tmpl")
			data = b.Bytes()
		}
		files[rel] = string(data)
		return nil
	})
	if err != nil {
		return fmt.Errorf("read %s: %w", src, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := gitfixture.Init(dir); err != nil {
		return err
	}
	written := map[string]bool{}
	// the frameworks' examples commit their own files 3 hours ago: they go
	// in before the first later step, so commit dates follow the history
	frameworks := []struct {
		name  string
		write func(string, time.Time) error
	}{{"gsd", writeGSD}, {"taskmaster", writeTaskmaster}}
	for _, st := range history() {
		if st.ago < 3*time.Hour && frameworks != nil {
			for _, fw := range frameworks {
				if err := fw.write(dir, now); err != nil {
					return fmt.Errorf("%s: %w", fw.name, err)
				}
			}
			frameworks = nil
		}
		var paths []string
		for rel, content := range files {
			if written[rel] {
				continue
			}
			for _, pre := range st.paths {
				if strings.HasPrefix(rel, pre) {
					if err := gitfixture.WriteFile(dir, rel, content); err != nil {
						return err
					}
					written[rel] = true
					paths = append(paths, rel)
					break
				}
			}
		}
		if st.edit != nil {
			if err := st.edit(dir); err != nil {
				return err
			}
			paths = append(paths, st.paths...)
		}
		if err := commitPaths(dir, paths, st.message, st.author, now.Add(-st.ago)); err != nil {
			return err
		}
	}
	if err := bmad6Example(dir, now); err != nil {
		return fmt.Errorf("bmad v6 example: %w", err)
	}
	for rel := range files {
		if !written[rel] {
			return fmt.Errorf("%s is in no commit of the history", rel)
		}
	}
	fmt.Printf("example repository created in %s (%d files, %d commits)\n", dir, len(files), len(history()))
	return nil
}

// commitFiles writes files (by repository-relative path) into the
// repository dir and commits them as commitPaths does.
func commitFiles(dir string, files map[string]string, message, author string, when time.Time) error {
	var paths []string
	for rel, content := range files {
		if err := gitfixture.WriteFile(dir, rel, content); err != nil {
			return err
		}
		paths = append(paths, rel)
	}
	return commitPaths(dir, paths, message, author, when)
}

// commitPaths commits paths in the repository dir by author ("Name
// <email>") at when. The files keep the time of the commit that wrote them,
// as a checkout of that commit would have looked to the agent.
func commitPaths(dir string, paths []string, message, author string, when time.Time) error {
	name, email := splitAuthor(author)
	if _, err := gitfixture.Commit(dir, message, name, email, when, paths...); err != nil {
		return fmt.Errorf("commit %q: %w", message, err)
	}
	for _, p := range paths {
		_ = os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), when, when)
	}
	return nil
}

// splitAuthor splits "Name <email>" into the name and the email.
func splitAuthor(s string) (string, string) {
	i := strings.Index(s, "<")
	return strings.TrimSpace(s[:i]), strings.Trim(s[i:], "<> ")
}
