package templates

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"text/template"
	"text/template/parse"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
)

// Limits on template overrides, which come from the repository and are
// therefore attacker-controlled (docs/SECURITY.md). An override is read
// bounded and confined; rendering any template is bounded in output, in
// steps and in time.
const (
	// MaxOverrideSize is the largest override file read.
	MaxOverrideSize = 64 << 10
	// MaxOutput is the most a template may render.
	MaxOutput = 1 << 20
	// MaxSteps bounds the range iterations and template calls of one
	// rendering.
	MaxSteps = 200_000
	// MaxRangeConst is the largest integer constant a template may range
	// over ({{range 10}}); a larger one is refused when parsing.
	MaxRangeConst = 10_000
	// MaxPad is the widest the pad function pads.
	MaxPad = 1000
)

// RenderTimeout is how long one rendering of an override may take before
// it is given up.
var RenderTimeout = 2 * time.Second

// The built-in templates are orchestrate's own: their output and steps
// follow the data (a row per workflow, a line per finding), which the
// discovery bounds already bound (tolerant.ScanBudget). `status --all`
// over 20,000 stories renders 2–3 MiB in 100,000s of steps, which the
// override limits above refused ("template output exceeds the limit").
// They are still rendered within these limits — a net against a bug,
// never met by data a scan can give — and only an override is held to the
// tight ones (and replaced by the built-in template when over them).
const (
	// MaxBuiltinOutput is the most a built-in template may render.
	MaxBuiltinOutput = 256 << 20
	// MaxBuiltinSteps bounds a built-in template's range iterations and
	// template calls.
	MaxBuiltinSteps = 50_000_000
)

// BuiltinRenderTimeout is how long a built-in template's rendering may
// take before it is given up.
var BuiltinRenderTimeout = 60 * time.Second

// renderLimits are the bounds of one rendering.
type renderLimits struct {
	output  int
	steps   int64
	timeout time.Duration
}

// limitsFor gives the bounds of a rendering of a template from src:
// "embedded" (the built-in templates) or an override's path.
func limitsFor(src string) renderLimits {
	if src == "embedded" {
		return renderLimits{output: MaxBuiltinOutput, steps: MaxBuiltinSteps, timeout: BuiltinRenderTimeout}
	}
	return renderLimits{output: MaxOutput, steps: MaxSteps, timeout: RenderTimeout}
}

// Errors of a bounded rendering, matched with errors.Is.
var (
	ErrOutputTooLarge = errors.New("template output exceeds the limit")
	ErrTooManySteps   = errors.New("template runs too many steps")
	ErrTimeout        = errors.New("template rendering timed out")
	ErrRangeTooLarge  = errors.New("template ranges over too large a number")
)

// tickName is the function the step counter is called by; it is inserted at
// the start of every template body and range body.
const tickName = "orchestrateStep"

// cappedWriter collects output and fails past max bytes.
type cappedWriter struct {
	buf bytes.Buffer
	max int
}

func (w *cappedWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > w.max {
		return 0, fmt.Errorf("%w (%d bytes)", ErrOutputTooLarge, w.max)
	}
	return w.buf.Write(p)
}

// readOverride reads the override file name from the renderer's folder:
// confined below Root when Dir is inside it (no symlink followed anywhere),
// else with the folder trusted and the file itself not followed. Either way
// it must be a regular file (opened non-blocking) of at most
// MaxOverrideSize bytes. found is false when there is no such file.
func (r Renderer) readOverride(file string) (text, src string, found bool, err error) {
	p := filepath.Join(r.Dir, file)
	var data []byte
	if rel, ok := inside(r.Root, p); ok {
		data, err = safefile.ReadConfined(r.Root, rel, MaxOverrideSize)
	} else {
		var d *safefile.Dir
		d, err = safefile.OpenDir(r.Dir, ".", false)
		if err == nil {
			data, err = d.ReadFile(file, MaxOverrideSize)
			d.Close()
		}
	}
	if errors.Is(err, os.ErrNotExist) {
		return "", "", false, nil
	}
	if err != nil {
		return "", p, true, fmt.Errorf("template override %s not used: %w", p, err)
	}
	return string(data), p, true, nil
}

// inside returns p relative to root (slash-separated) when it lies inside.
func inside(root, p string) (string, bool) {
	if root == "" {
		return "", false
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// renderBounded parses text as template name (src names it in errors) and
// executes it with data, within the limits of its source (limitsFor:
// MaxOutput, MaxSteps and RenderTimeout for an override). An error
// matching ErrRangeTooLarge, ErrOutputTooLarge, ErrTooManySteps or
// ErrTimeout is a limit; any other is the template's own error.
func (r Renderer) renderBounded(name, text, src string, data any) (string, error) {
	lim := limitsFor(src)
	var steps atomic.Int64
	var stop atomic.Bool
	tick := func() (string, error) {
		if stop.Load() {
			return "", ErrTimeout
		}
		if steps.Add(1) > lim.steps {
			return "", fmt.Errorf("%w (%d)", ErrTooManySteps, lim.steps)
		}
		return "", nil
	}
	fm := r.funcs()
	fm[tickName] = tick
	fm["pad"] = boundedPad
	t, err := template.New(name).Funcs(fm).Parse(text)
	if err != nil {
		return "", fmt.Errorf("template %s (%s): %w", name, src, err)
	}
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Tree.Root == nil {
			continue
		}
		if err := instrument(tt.Tree.Root); err != nil {
			return "", fmt.Errorf("template %s (%s): %w", name, src, err)
		}
	}
	w := &cappedWriter{max: lim.output}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("template panicked: %v", p)
			}
		}()
		done <- t.Execute(w, data)
	}()
	timer := time.NewTimer(lim.timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			return "", fmt.Errorf("template %s (%s): %w", name, src, err)
		}
		return w.buf.String(), nil
	case <-timer.C:
		stop.Store(true) // the next step of the abandoned rendering fails
		return "", fmt.Errorf("template %s (%s): %w after %v", name, src, ErrTimeout, lim.timeout)
	}
}

// isLimit tells whether err is a rendering limit (rather than a mistake in
// the template).
func isLimit(err error) bool {
	for _, e := range []error{ErrRangeTooLarge, ErrOutputTooLarge, ErrTooManySteps, ErrTimeout} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// instrument refuses a range over an integer constant above MaxRangeConst
// and puts a step tick at the start of the template and of every range
// body, so loops and template calls are counted and can be stopped.
func instrument(root *parse.ListNode) error {
	var walk func(n parse.Node) error
	walkList := func(l *parse.ListNode) error {
		if l == nil {
			return nil
		}
		for _, n := range l.Nodes {
			if err := walk(n); err != nil {
				return err
			}
		}
		return nil
	}
	walk = func(n parse.Node) error {
		switch n := n.(type) {
		case *parse.RangeNode:
			if err := checkRangePipe(n.Pipe); err != nil {
				return err
			}
			if err := walkList(n.List); err != nil {
				return err
			}
			if err := walkList(n.ElseList); err != nil {
				return err
			}
			if n.List != nil {
				n.List.Nodes = append([]parse.Node{tickNode(n.Position())}, n.List.Nodes...)
			}
		case *parse.IfNode:
			return errors.Join(walkList(n.List), walkList(n.ElseList))
		case *parse.WithNode:
			return errors.Join(walkList(n.List), walkList(n.ElseList))
		case *parse.ListNode:
			return walkList(n)
		}
		return nil
	}
	if err := walkList(root); err != nil {
		return err
	}
	root.Nodes = append([]parse.Node{tickNode(root.Position())}, root.Nodes...)
	return nil
}

// checkRangePipe refuses {{range N}} with a constant N above MaxRangeConst.
func checkRangePipe(p *parse.PipeNode) error {
	if p == nil {
		return nil
	}
	for _, c := range p.Cmds {
		for _, a := range c.Args {
			if num, ok := a.(*parse.NumberNode); ok {
				if (num.IsInt && (num.Int64 > MaxRangeConst || num.Int64 < -MaxRangeConst)) ||
					(num.IsUint && num.Uint64 > MaxRangeConst) ||
					(!num.IsInt && !num.IsUint) {
					return fmt.Errorf("%w: range %s (at most %d)", ErrRangeTooLarge, num.Text, MaxRangeConst)
				}
			}
		}
	}
	return nil
}

// tickNode is the action {{orchestrateStep}}, which renders nothing.
func tickNode(pos parse.Pos) parse.Node {
	id := parse.NewIdentifier(tickName).SetPos(pos)
	return &parse.ActionNode{
		NodeType: parse.NodeAction,
		Pos:      pos,
		Pipe: &parse.PipeNode{
			NodeType: parse.NodePipe,
			Pos:      pos,
			Cmds:     []*parse.CommandNode{{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{id}}},
		},
	}
}

// boundedPad is the pad function, refusing widths over MaxPad.
func boundedPad(n int, s string) (string, error) {
	if n > MaxPad {
		return "", fmt.Errorf("pad %d: at most %d", n, MaxPad)
	}
	if w := termsafe.Width(s); w < n {
		return s + strings.Repeat(" ", n-w), nil
	}
	return s, nil
}
