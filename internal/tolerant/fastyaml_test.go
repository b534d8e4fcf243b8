package tolerant

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// checkFast decodes data both ways: when the fast path accepts it, yaml.v3
// must give no error and the same values. It reports whether the fast path
// accepted it.
func checkFast(t *testing.T, name string, data []byte) bool {
	t.Helper()
	fast, ok := fastDecodeYAMLMap(data)
	if !ok {
		return false
	}
	slow, err := decodeYAMLMapSlow(data)
	if err != nil {
		t.Errorf("%s: fast path accepted what yaml.v3 refuses (%v):\n%s", name, err, data)
		return true
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Errorf("%s: fast path gave\n%#v\nyaml.v3 gave\n%#v\nfor:\n%s", name, fast, slow, data)
	}
	return true
}

// fastCases are documents the fast path must decode (accept true) as
// yaml.v3 does, or leave to yaml.v3 (accept false).
var fastCases = []struct {
	doc    string
	accept bool
}{
	{"a: 1\n", true},
	{"a: b\nc: d", true},
	{"# c\na: 1 # c\n\n  # deeper comment\nb: 'x # y' # c\n", true},
	{"story: 1.10\nother: 4.2\nn: 5\nratio: .5\nneg: -3\nhex: 0x1F\noct: 0755\nu: 1_000\nbig: 18446744073709551615\nf: 1e3\ninf: -.inf\nnan: .NaN\n", true},
	{"t: true\nf: False\nn: null\ntilde: ~\nempty:\ny: yes\non: on\nno: n\n", true},
	{"at: 2026-11-08T05:44:14Z\nd: 2026-11-08\nsp: 2026-11-08 05:44:14\noff: 2026-11-08T05:44:14+02:00\nbad: 2026-13-45\n", true},
	{"q: \"a: b # c\"\ns: 'it''s'\ne: \"x\\ty\\n\\\"\\\\\"\nk: ''\n\"quoted key\": 1\n'single': 2\n", true},
	{"url: http://x.y/z?a=b\nlist: a, b]\nweird: a&b *c !d\n-x: -y\n", true},
	{"files:\n  - a\n  - b\nphases:\n- phase: create\n  agent: sm\n- phase: dev\n  out:\n    - x\n  n:\nctx:\n  req: \"r\"\n  deep:\n    deeper:\n      - - no\n", false},
	{"files:\n  - a\n  - b\nphases:\n- phase: create\n  agent: sm\n- phase: dev\n  out:\n    - x\n  n:\nctx:\n  req: \"r\"\n  deep:\n    deeper:\n      -\n        - yes\n", true},
	{"a:\n-\n- x\n-   y: 1\n    z: 2\n- # c\n  k: v\nb: 2\n", true},
	{"  a: 1\n  b:\n    - x\n", true},
	{"é: ü\nkey with spaces: value with spaces  \n", true},
	{"a: 1\na: 2\n", false},     // duplicate key
	{"a: 1\n'a': 2\n", false},   // duplicate key, quoted
	{"a: &x 1\nb: *x\n", false}, // anchor, alias
	{"a: !!str 1\n", false},     // tag
	{"a: [1, 2]\n", true},
	{"a: {b: 1}\n", true},
	{"a: []\nb: {}\nc: [ ]\nd: {  } # c\n- x\n", false},
	{"a: []\nb: {}\nc: [ ]\nd: {  } # c\n", true},
	{"p:\n  - {phase: create, agent: sm, output: docs/s/4.2.md}\n  - {n: 1.10, t: true, z: ~, at: 2026-11-08}\ns: [{id: \"3.1\", st: done}, [a, 'b c', \"d\"], {}]\n", true},
	{"a: [b, c,]\n", false},                 // trailing comma
	{"a: [b, , c]\n", false},                // empty entry
	{"a: [b: 1]\n", false},                  // single-pair mapping
	{"a: {b: 1, b: 2}\n", false},            // duplicate key
	{"a: {b}\n", false},                     // key without a value
	{"a: {b:1}\n", false},                   // no space after the colon
	{"a: [http://x]\n", false},              // colon in a flow plain scalar
	{"a: [b] c\n", false},                   // text after the collection
	{"a: [b]#c\n", false},                   // "#" not after a space
	{"a: [b] # c\n", true},                  // comment
	{"a: [b,\n  c]\n", false},               // multi-line flow
	{"a: {? b: 1}\n", false},                // complex key
	{"a: [&x b, *x]\n", false},              // anchor
	{"a: [!!str 1]\n", false},               // tag
	{"{a: 1}\n", false},                     // flow at the top
	{"a: [ b , c ]\nd: { e : 1 }\n", false}, // space before a flow key's colon
	{"a: [ b , c ]\nd: { e: 1 , f: [ ] }\n", true},
	{"a: |\n  text\n", false},         // block scalar
	{"a: >\n  text\n", false},         // folded
	{"a: one\n  two\n", false},        // multi-line plain
	{"a: 'one\n  two'\n", false},      // multi-line quoted
	{"a:\tb\n", false},                // tab
	{"a: b\r\nc: d\r\n", false},       // CR
	{"\ufeffa: 1\n", false},           // BOM
	{"a: x\u2028y\n", false},          // Unicode line separator
	{"a: x\u0085y\n", false},          // NEL
	{"a: x\x01y\n", false},            // control
	{"---\na: 1\n", false},            // document marker
	{"a: 1\n...\n", false},            // document end
	{"%YAML 1.2\n---\na: 1\n", false}, // directive
	{"? a\n: 1\n", false},             // complex key
	{"1: a\n", false},                 // int key
	{"true: a\n", false},              // bool key
	{"<<: {a: 1}\n", false},           // merge
	{"a: 1\n b: 2\n", false},          // odd indentation
	{"a:\n  b: 1\n c: 2\n", false},    // odd indentation
	{"- a\n- b\n", false},             // not a mapping
	{"a\n", false},                    // a scalar
	{"", false},                       // empty
	{"# only\n", false},               // empty
	{"a: b: c\n", false},              // error
	{"a: 'x' y\n", false},             // error
	{"a: 'x'#y\n", false},             // error
	{"a: \"\\u0041\"\n", false},       // escape left to yaml.v3
	{"a: \"\\/\"\n", false},           // refused by yaml.v3
	{"a: - b\n", false},               // error
	{"a: b\n- c\n", false},            // error
	{"a:\n  - b\n  c: 1\n", false},    // error
	{"a : 1\n", false},                // key with trailing space
	{"a: \"x\n", false},               // unclosed quote
	{"a: 0b101\n", true},              // binary int
	{"a: 0b1111111111111111111111111111111111111111111111111111111111111111111\n", false},
	{"a: @x\n", false},                         // reserved indicator
	{"a: `x\n", false},                         // reserved indicator
	{"a:b: c\n", true},                         // colon inside a plain key
	{"a: x:y\n", true},                         // colon inside a plain value
	{"a: b #c: d\n", true},                     // colon in a comment
	{"a: x\n  # deeper comment\nb: y\n", true}, // comment line after a plain value
}

func TestFastYAMLMatchesYAMLv3(t *testing.T) {
	for _, c := range fastCases {
		if got := checkFast(t, c.doc, []byte(c.doc)); got != c.accept {
			t.Errorf("fast path accepted = %v, want %v, for:\n%s", got, c.accept, c.doc)
		}
	}
}

// TestFastYAMLCorpus runs every YAML file of the repository's test data
// (files and txtar scripts) and the bench shapes' state files through both
// paths; the bench files must take the fast path.
func TestFastYAMLCorpus(t *testing.T) {
	corpus := fastCorpus(t)
	accepted := 0
	for name, data := range corpus {
		if checkFast(t, name, data) {
			accepted++
		}
	}
	for _, name := range []string{"bench-workflows-state.yaml", "bench-workflows1000-state.yaml"} {
		if _, ok := fastDecodeYAMLMap(corpus[filepath.Join("testdata", "fastyaml", name)]); !ok {
			t.Errorf("%s: fast path declined a bench state file", name)
		}
	}
	if len(corpus) < 50 || accepted < len(corpus)/4 {
		t.Errorf("fast path took %d of %d corpus files", accepted, len(corpus))
	}
	t.Logf("fast path took %d of %d corpus files", accepted, len(corpus))
}

// fastCorpus gathers the YAML test data: this package's testdata/fastyaml,
// the repository's .yaml/.yml files under testdata folders and the YAML
// files of its txtar scripts.
func fastCorpus(tb testing.TB) map[string][]byte {
	out := map[string][]byte{}
	isYAML := func(name string) bool { return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") }
	_ = filepath.WalkDir(filepath.Join("testdata", "fastyaml"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, err := os.ReadFile(p); err == nil {
				out[p] = data
			}
		}
		return nil
	})
	root := filepath.Join("..", "..")
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.Contains(p, "testdata") {
			return nil
		}
		switch {
		case isYAML(p):
			if data, err := os.ReadFile(p); err == nil {
				out[p] = data
			}
		case strings.HasSuffix(p, ".txtar"):
			a, err := txtar.ParseFile(p)
			if err != nil {
				return nil
			}
			for _, f := range a.Files {
				if isYAML(f.Name) {
					out[p+":"+f.Name] = f.Data
				}
			}
		}
		return nil
	})
	if len(out) == 0 {
		tb.Fatal("no YAML corpus found")
	}
	return out
}

// FuzzFastYAML is the differential check: on any bytes, the fast path
// declines or gives what yaml.v3 gives.
func FuzzFastYAML(f *testing.F) {
	for _, c := range fastCases {
		f.Add([]byte(c.doc))
	}
	for _, data := range fastCorpus(f) {
		if len(data) < 64<<10 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ok := fastDecodeYAMLMap(data)
		if !ok {
			return
		}
		slow, err := decodeYAMLMapSlow(data)
		if err != nil {
			t.Fatalf("fast path accepted what yaml.v3 refuses (%v): %q", err, data)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("fast path gave %#v, yaml.v3 %#v, for %q", fast, slow, data)
		}
	})
}

// TestFastYAMLLimits: a document yaml.v3's path refuses for its size or
// depth is declined, never decoded, and one within the fast path's own
// limits decodes the same.
func TestFastYAMLLimits(t *testing.T) {
	nested := func(depth int) string {
		var b strings.Builder
		for i := 0; i < depth; i++ {
			b.WriteString(strings.Repeat("  ", i) + "k:\n")
		}
		b.WriteString(strings.Repeat("  ", depth) + "k: v\n")
		return b.String()
	}
	defer func(n int) { fastMaxNodes = n }(fastMaxNodes)
	fastMaxNodes = 1000
	for _, c := range []struct {
		name   string
		doc    string
		accept bool
		slowOK bool
	}{
		{"dense bound", "a: " + strings.Repeat(",", maxYAMLBound/6+10) + "\n", false, false},
		{"shallow", nested(10), true, true},
		{"deeper than the fast path", nested(fastMaxDepth + 2), false, true},
		{"too deep", nested(MaxDepth + 2), false, false},
		{"many nodes", manyKeys(fastMaxNodes/2 + 10), false, true},
		{"fewer nodes", manyKeys(fastMaxNodes/2 - 20), true, true},
	} {
		_, err := decodeYAMLMapSlow([]byte(c.doc))
		if (err == nil) != c.slowOK {
			t.Errorf("%s: yaml.v3 error = %v, want ok %v", c.name, err, c.slowOK)
		}
		if got := checkFast(t, c.name, []byte(c.doc)); got != c.accept {
			t.Errorf("%s: fast path accepted = %v, want %v", c.name, got, c.accept)
		}
	}
}

// manyKeys is a mapping of about n keys, in mappings of 100 (yaml.v3's
// check for duplicate keys is quadratic in a mapping's size).
func manyKeys(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i%100 == 0 {
			fmt.Fprintf(&b, "m%d:\n", i)
		}
		fmt.Fprintf(&b, "  k%d: x\n", i%100)
	}
	return b.String()
}

// TestFastYAMLBlankLinesCheap: a document of blank lines is declined (or
// refused by the node bound) without room made for every line.
func TestFastYAMLBlankLinesCheap(t *testing.T) {
	for _, n := range []int{100_000, maxYAMLBound / 3} {
		data := []byte("a: 1\n" + strings.Repeat("\n", n))
		allocs := testing.AllocsPerRun(1, func() { fastDecodeYAMLMap(data) })
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		fastDecodeYAMLMap(data)
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(2*len(data)) {
			t.Errorf("%d blank lines: allocated %d bytes (%v allocations) for a %d-byte document", n, grew, allocs, len(data))
		}
	}
}
