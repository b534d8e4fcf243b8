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

// maxLine bounds one inbound line (the SDK's own bound on a frame).
const maxLine = 16 << 20

// guardedTransport is the transport of `orchestrate mcp` over in and out
// with a line guard in front of the SDK: MCP's stdio transport is
// newline-delimited JSON-RPC (a message never holds a newline), and the
// SDK ends the session at the first line it cannot decode. The guard
// passes on each line that is a JSON-RPC message or a batch of them, and
// answers any other one itself — a parse error (-32700) for a line that is
// not JSON or is too long, an invalid request (-32600) for JSON that is not
// a message — with id null, as JSON-RPC 2.0 says, so one bad line costs
// the client one error, not its session. Its answers and the SDK's are
// whole lines written under one lock.
func guardedTransport(in io.Reader, out io.Writer) Transport {
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go guardLines(in, pw, w)
	return &sdkIOTransport{Reader: pr, Writer: nopWriteCloser{w}}
}

// lockedWriter makes each Write whole against the others (the SDK writes a
// message and its newline in one call).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// guardLines copies the JSON-RPC lines of in to pw, answering the others on
// w, until in ends (then pw ends too: the session's end).
func guardLines(in io.Reader, pw *io.PipeWriter, w io.Writer) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r, maxLine)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			switch code, why := judgeLine(line, tooLong); code {
			case 0:
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
		return jsonrpc.CodeParseError, "Parse error: a line over 16 MiB"
	case !json.Valid(line):
		return jsonrpc.CodeParseError, "Parse error: the line is not JSON"
	}
	var batch []json.RawMessage
	if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '[' {
		if json.Unmarshal(t, &batch) != nil || len(batch) == 0 {
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
