package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
)

// The raw file-system calls (internal/fastsys) are held off wherever
// orchestrate installs a signal handler: while a shared lock's handler is
// installed, and while the MCP server serves (its tools run status and
// resume in process, which Allow them).
func TestSignalHandlersHoldRawCalls(t *testing.T) {
	defer fastsys.Forbid()
	t.Run("shared lock", func(t *testing.T) {
		fastsys.Allow()
		sh := &sharedHandoff{}
		sh.catchSignals()
		fastsys.Allow()
		if fastsys.Allowed() {
			t.Fatal("raw calls allowed while the shared lock's signal handler is installed")
		}
		sh.stopSig()
		fastsys.Allow()
		if !fastsys.Allowed() {
			t.Fatal("raw calls still held once the handler is gone")
		}
	})
	t.Run("mcp server", func(t *testing.T) {
		fastsys.Allow()
		var allowedInside bool
		in := &probeReader{r: strings.NewReader(""), probe: func() {
			fastsys.Allow() // what an in-process status would do
			allowedInside = fastsys.Allowed()
		}}
		var stderr bytes.Buffer
		sys := mcpSystem(t.TempDir(), nil, &stderr)
		sys.IO.In = in
		if err := runMCP(context.Background(), &MCPOptions{Deps: Deps{System: sys}}); err != nil {
			t.Fatal(err)
		}
		if !in.probed {
			t.Fatal("the server never read its input")
		}
		if allowedInside {
			t.Error("raw calls allowed while the MCP server serves")
		}
	})
}

// probeReader calls probe at its first read (the server running).
type probeReader struct {
	r      *strings.Reader
	probe  func()
	probed bool
}

func (p *probeReader) Read(b []byte) (int, error) {
	if !p.probed {
		p.probed = true
		p.probe()
	}
	return p.r.Read(b)
}
