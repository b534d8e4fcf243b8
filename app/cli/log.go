package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/cli/jsondoc"
	"github.com/orchestrate-dev/orchestrate/app/cli/views"
	"github.com/orchestrate-dev/orchestrate/internal/logging"
	"github.com/orchestrate-dev/orchestrate/templates"
)

// maxLogTail is how much of the end of the log `orchestrate log` reads at
// most: the log is read from its end, so a huge (or endless) log costs no
// more than this.
const maxLogTail = 4 << 20

// LogOptions are the dependencies and flags of `orchestrate log`.
type LogOptions struct {
	Deps Deps
	N    int
	JSON bool
}

func (a *app) newLogCmd() *cobra.Command {
	opts := &LogOptions{}
	cmd := a.newCmd(cmdSpec{Use: "log", Short: "Show the orchestration log, newest last"},
		&opts.Deps, func(a *app, _ []string) error { return a.runLog(opts) })
	cmd.Flags().IntVarP(&opts.N, "lines", "n", 20, "show the last N events (0: all)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the events as one JSON document ({schema, command, events})")
	return cmd
}

func (a *app) runLog(opts *LogOptions) error {
	if opts.N < 0 {
		return cmdutil.Usagef("-n %d: want 0 or more", opts.N)
	}
	s, err := a.load()
	if err != nil {
		return err
	}
	path := s.LogPath()
	data, truncated, err := logging.ReadLogTail(s.Root, path, maxLogTail)
	if errors.Is(err, fs.ErrNotExist) {
		if opts.JSON {
			return jsondoc.Write(a.sys.IO.Out, jsondoc.Log{Schema: jsondoc.Schema, Command: "log", Events: []map[string]any{}})
		}
		fmt.Fprintf(a.sys.IO.Out, "The orchestration log is empty (%s does not exist yet).\n", templates.Safe(rel(s.Root, path)))
		return nil
	}
	if err != nil {
		return fmt.Errorf("read orchestration log: %w", err)
	}
	var events []map[string]any
	bad := 0
	for _, raw := range bytes.Split(data, []byte("\n")) {
		line := bytes.TrimSpace(raw)
		if len(line) == 0 {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal(line, &ev); err != nil {
			bad++
			continue
		}
		events = append(events, ev)
	}
	if truncated && (opts.N == 0 || len(events) < opts.N) {
		fmt.Fprintf(a.sys.IO.ErrOut, "note: %s is larger than %d MiB; only the events in its last %d MiB are shown\n", rel(s.Root, path), maxLogTail>>20, maxLogTail>>20)
	}
	if bad > 0 {
		fmt.Fprintf(a.sys.IO.ErrOut, "warning: %d lines of %s are not JSON and were skipped\n", bad, templates.Safe(rel(s.Root, path)))
	}
	if opts.N > 0 && len(events) > opts.N {
		events = events[len(events)-opts.N:]
	}
	if opts.JSON {
		if events == nil {
			events = []map[string]any{}
		}
		return jsondoc.Write(a.sys.IO.Out, jsondoc.Log{Schema: jsondoc.Schema, Command: "log", Events: events, Skipped: bad, Truncated: truncated})
	}
	for _, ev := range events {
		fmt.Fprintln(a.sys.IO.Out, templates.Safe(views.LogLine(ev)))
	}
	return nil
}
