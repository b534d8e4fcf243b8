package main

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// importer feeds a `git fast-import` process. Writing 20,000 commits through
// go-git's object storage takes minutes; fast-import takes seconds.
type importer struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	w    *bufio.Writer
	out  *bufio.Reader
	mark int
	err  error
}

// change is one file of a commit: a blob mark at a slash path.
type change struct {
	path string
	mark int
}

func startImport(dir string) (*importer, error) {
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet", "--done")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start git fast-import: %w", err)
	}
	return &importer{cmd: cmd, in: in, w: bufio.NewWriterSize(in, 1<<20), out: bufio.NewReader(out)}, nil
}

func (im *importer) printf(format string, args ...any) {
	if im.err == nil {
		_, im.err = fmt.Fprintf(im.w, format, args...)
	}
}

func (im *importer) data(s string) {
	im.printf("data %d\n", len(s))
	if im.err == nil {
		_, im.err = im.w.WriteString(s)
	}
	im.printf("\n")
}

// blob writes content and returns its mark.
func (im *importer) blob(content string) int {
	im.mark++
	im.printf("blob\nmark :%d\n", im.mark)
	im.data(content)
	return im.mark
}

// commit writes a commit on ref and returns its mark. from (a commit mark,
// 0: the ref's current tip) and merges give the parents.
func (im *importer) commit(ref string, from int, merges []int, name, email string, when time.Time, msg string, changes []change) int {
	im.mark++
	im.printf("commit %s\nmark :%d\n", ref, im.mark)
	who := fmt.Sprintf("%s <%s> %d +0000", name, email, when.Unix())
	im.printf("author %s\ncommitter %s\n", who, who)
	im.data(msg)
	if from > 0 {
		im.printf("from :%d\n", from)
	}
	for _, m := range merges {
		im.printf("merge :%d\n", m)
	}
	for _, c := range changes {
		im.printf("M 100644 :%d %s\n", c.mark, c.path)
	}
	im.printf("\n")
	return im.mark
}

// hash returns the object name of a mark written earlier.
func (im *importer) hash(mark int) (string, error) {
	im.printf("get-mark :%d\n", mark)
	if im.err == nil {
		im.err = im.w.Flush()
	}
	if im.err != nil {
		return "", im.err
	}
	line, err := im.out.ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("git fast-import get-mark: %w", err)
	}
	return strings.TrimSpace(line), nil
}

func (im *importer) finish() error {
	im.printf("done\n")
	if im.err == nil {
		im.err = im.w.Flush()
	}
	_ = im.in.Close()
	werr := im.cmd.Wait()
	if im.err != nil {
		return fmt.Errorf("git fast-import: %w", im.err)
	}
	if werr != nil {
		return fmt.Errorf("git fast-import: %w: %s", werr, im.cmd.Stderr)
	}
	return nil
}

// gitRun runs git in dir.
func gitRun(dir string, args ...string) error {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// gitOutput runs git in dir and returns its output, trimmed.
func gitOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}
