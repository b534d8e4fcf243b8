package mcp

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
)

// judgeLine passes JSON-RPC messages and batches of them, and names the
// error of anything else.
func TestJudgeLine(t *testing.T) {
	for _, tc := range []struct {
		line    string
		tooLong bool
		code    int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, false, 0},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, false, 0},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, false, 0},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, false, 0},
		{`not json`, false, -32700},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, false, -32700},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, true, -32700},
		{`{"foo":1}`, false, -32600},
		{`42`, false, -32600},
		{`"x"`, false, -32600},
		{`[]`, false, -32600},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},7]`, false, -32600},
	} {
		if code, _ := judgeLine([]byte(tc.line), tc.tooLong); code != tc.code {
			t.Errorf("judgeLine(%q, %v) = %d, want %d", tc.line, tc.tooLong, code, tc.code)
		}
	}
}

// guardLines passes the good lines in order (without a CR, blank lines
// dropped), answers each bad one with one error line, and ends its output
// where its input ends; a line over the bound is dropped whole.
func TestGuardLines(t *testing.T) {
	good1 := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	good2 := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	long := `{"x":"` + strings.Repeat("a", 300) + `"}`
	in := good1 + "\r\n\n" + "nope\n" + long + "\n" + good2 // no final newline
	pr, pw := io.Pipe()
	var answers bytes.Buffer
	go func() {
		r := bufio.NewReaderSize(strings.NewReader(in), 16)
		for {
			line, tooLong, err := readLine(r, 100)
			if len(bytes.TrimSpace(line)) > 0 || tooLong {
				if code, why := judgeLine(line, tooLong); code == 0 {
					_, _ = pw.Write(append(line, '\n'))
				} else {
					answers.Write(errorLine(code, why))
				}
			}
			if err != nil {
				pw.Close()
				return
			}
		}
	}()
	got, err := io.ReadAll(pr)
	if err != nil {
		t.Fatal(err)
	}
	if want := good1 + "\n" + good2 + "\n"; string(got) != want {
		t.Errorf("passed %q, want %q", got, want)
	}
	lines := strings.Split(strings.TrimSuffix(answers.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"code":-32700`) || !strings.Contains(lines[0], `"id":null`) ||
		!strings.Contains(lines[1], "over 1 MiB") {
		t.Errorf("answers %q", lines)
	}
	// the guard itself, over a reader that ends: its output ends too
	var out bytes.Buffer
	pr2, pw2 := io.Pipe()
	go guardLines(strings.NewReader(good1+"\nbad\n"), pw2, &lockedWriter{w: &out}, nil)
	got, err = io.ReadAll(pr2)
	if err != nil || string(got) != good1+"\n" {
		t.Errorf("guardLines passed %q, %v", got, err)
	}
	if !strings.Contains(out.String(), `"code":-32700`) {
		t.Errorf("guardLines answered %q", out.String())
	}
}

// protocol learns the session's version from the answer to the client's
// initialize request, whatever the id's spelling, and from nothing else.
func TestProtocolVersionSeen(t *testing.T) {
	initReq := func(id string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	}
	answer := func(id, version string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"` + version + `","capabilities":{}}}` + "\n")
	}
	for _, tc := range []struct {
		name string
		req  []byte
		outs [][]byte
		want bool // batches gone
	}{
		{"answered 2025-06-18", initReq("1"), [][]byte{answer("1", "2025-06-18")}, true},
		{"answered later", initReq(`"a"`), [][]byte{answer(` "a" `, "2025-11-25")}, true},
		{"answered 2025-03-26", initReq("1"), [][]byte{answer("1", "2025-03-26")}, false},
		{"another id's answer", initReq("1"), [][]byte{answer("2", "2025-06-18")}, false},
		{"unanswered", initReq("1"), nil, false},
		{"an error answer", initReq("1"), [][]byte{[]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}`), answer("1", "2025-06-18")}, false},
		{"no initialize", []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), [][]byte{answer("1", "2025-06-18")}, false},
		{"the word in a value", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"initialize"}}`), [][]byte{answer("1", "2025-06-18")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &protocol{}
			p.sawRequest(tc.req)
			for _, o := range tc.outs {
				p.sawAnswer(o)
			}
			if got := p.noBatches(); got != tc.want {
				t.Errorf("noBatches = %v, want %v", got, tc.want)
			}
		})
	}
	var none *protocol
	none.sawRequest(initReq("1"))
	none.sawAnswer(answer("1", "2025-06-18"))
	if none.noBatches() {
		t.Error("a nil protocol knows a version")
	}
}
