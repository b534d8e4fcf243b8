package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxLine bounds one inbound line. Every request this server answers is a
// few KiB at most (its string arguments are bounded: tooLong); a longer line
// is read and dropped, never held whole, and answered as one that is not
// JSON. (The SDK's own frame bound, 16 MiB, let a 12 MiB argument be
// decoded and checked against the tool's schema for seconds before
// tooLong refused it.)
const maxLine = 1 << 20

// guardedTransport is the transport of `orchestrate mcp` over in and out
// with a line guard in front of the SDK: MCP's stdio transport is
// newline-delimited JSON-RPC (a message never holds a newline), and the
// SDK ends the session at the first line it cannot decode. The guard
// passes on each line that is a JSON-RPC message or a batch of them, and
// answers any other one itself — a parse error (-32700) for a line that is
// not JSON or is too long, an invalid request (-32600) for JSON that is not
// a message — with id null, as JSON-RPC 2.0 says, so one bad line costs
// the client one error, not its session. A batch, once the session's
// protocol (2025-06-18 on) has none, is answered the same way (-32600): the
// SDK would end the session on it. Its answers and the SDK's are whole
// lines written under one lock.
func guardedTransport(in io.Reader, out io.Writer) Transport {
	p := &protocol{}
	w := &lockedWriter{w: out, p: p}
	pr, pw := io.Pipe()
	go guardLines(in, pw, w, p)
	return &sdkIOTransport{Reader: pr, Writer: nopWriteCloser{w}}
}

// lockedWriter makes each Write whole against the others (the SDK writes a
// message and its newline in one call), and shows each to p (nil: none).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
	p  *protocol
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.p.sawAnswer(b)
	return l.w.Write(b)
}

// batchesGone is the first MCP protocol version without JSON-RPC batches
// (the SDK's rule: a version that sorts at or after it).
const batchesGone = "2025-06-18"

// protocol is what the guard knows of the session's protocol version: the
// id of the client's initialize request while it is unanswered, then the
// version the server's answer gave. Safe for concurrent use; a nil
// *protocol knows nothing.
type protocol struct {
	mu      sync.Mutex
	initID  string // compact JSON of the initialize request's id, "" when none is in flight
	version string
}

// sawRequest notes the id of an initialize request line (not a batch).
func (p *protocol) sawRequest(line []byte) {
	if p == nil || !bytes.Contains(line, []byte(`"initialize"`)) {
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != "initialize" || len(m.ID) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.initID = compactJSON(m.ID)
}

// sawAnswer takes the protocol version from the server's answer to the
// initialize request in flight (b: one outbound message line).
func (p *protocol) sawAnswer(b []byte) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.initID == "" || !bytes.Contains(b, []byte(`"id"`)) {
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Result *struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &m) != nil || compactJSON(m.ID) != p.initID {
		return
	}
	if m.Result != nil {
		p.version = m.Result.ProtocolVersion
	}
	p.initID = "" // answered, with a result or an error
}

// noBatches reports whether the session's protocol has no batches.
func (p *protocol) noBatches() bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.version >= batchesGone
}

// compactJSON is raw without insignificant spaces ("" when it is not JSON).
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return ""
	}
	return b.String()
}

// isBatch reports whether a JSON line is an array (a batch).
func isBatch(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) > 0 && t[0] == '['
}

// guardLines copies the JSON-RPC lines of in to pw, answering the others on
// w, until in ends (then pw ends too: the session's end). p (nil: none)
// learns the session's protocol version.
func guardLines(in io.Reader, pw *io.PipeWriter, w io.Writer, p *protocol) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r, maxLine)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			code, why := judgeLine(line, tooLong)
			if code == 0 && isBatch(line) && p.noBatches() {
				code, why = jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not part of MCP "+batchesGone+" and later"
			}
			switch code {
			case 0:
				if !isBatch(line) {
					p.sawRequest(line)
				}
				if _, werr := pw.Write(append(line, '\n')); werr != nil {
					return // the session ended
				}
			default:
				if _, werr := w.Write(errorLine(code, why)); werr != nil {
					pw.CloseWithError(werr)
					return
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			pw.CloseWithError(err)
			return
		}
	}
}

// readLine reads one line of r without its newline, at most max bytes of
// it kept (tooLong: the rest was read and dropped).
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		part, err := r.ReadSlice('\n')
		if len(line)+len(part) > max+1 {
			tooLong = true
		} else {
			line = append(line, part...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if tooLong {
			line = nil
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// judgeLine is 0 for a line the SDK takes (a JSON-RPC message, or a
// non-empty batch of them), else the JSON-RPC error code and message to
// answer it with.
func judgeLine(line []byte, tooLong bool) (int, string) {
	switch {
	case tooLong:
		return jsonrpc.CodeParseError, "Parse error: a line over 1 MiB"
	case !json.Valid(line):
		return jsonrpc.CodeParseError, "Parse error: the line is not JSON"
	}
	var batch []json.RawMessage
	if isBatch(line) {
		if json.Unmarshal(line, &batch) != nil || len(batch) == 0 {
			return jsonrpc.CodeInvalidRequest, "Invalid Request: an empty batch"
		}
	} else {
		batch = []json.RawMessage{line}
	}
	for _, m := range batch {
		if _, err := jsonrpc.DecodeMessage(m); err != nil {
			return jsonrpc.CodeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message"
		}
	}
	return 0, ""
}

// errorLine is the JSON-RPC error response line of code and message, id
// null.
func errorLine(code int, message string) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	return append(b, '\n')
}
