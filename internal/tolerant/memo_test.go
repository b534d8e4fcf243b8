package tolerant

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// bigYAML is a state file above memoMinSize with anchors, aliases, a merge
// key and unquoted float-like story ids.
func bigYAML(n int) []byte {
	var b strings.Builder
	b.WriteString("status: interrupted\nstory: 1.10\nbase: &base {agent: dev, ratio: 0.50}\nphase:\n  <<: *base\n  name: impl\nfiles:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - path: src/pkg%03d/file%05d.go\n    story: %d.%d0\n", i%100, i, i%9, i%7)
	}
	b.WriteString("again: *base\n")
	return []byte(b.String())
}

// nodesOf lists every node below root.
func nodesOf(root *yaml.Node) map[*yaml.Node]bool {
	seen := map[*yaml.Node]bool{}
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		seen[n] = true
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	return seen
}

// TestDecodeYAMLMemo: a large document decoded again gives the same
// values, from a tree of its own (no node shared with an earlier answer or
// with the memo), aliases included.
func TestDecodeYAMLMemo(t *testing.T) {
	data := bigYAML(2000)
	if len(data) < memoMinSize {
		t.Fatalf("fixture of %d bytes is below the memo's %d", len(data), memoMinSize)
	}
	fresh, err := decodeYAMLNode(data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := DecodeYAMLMapNode(fresh)
	if err != nil {
		t.Fatal(err)
	}
	first, err := DecodeYAMLNode(data) // parses and keeps it
	if err != nil {
		t.Fatal(err)
	}
	second, err := DecodeYAMLNode(data) // a copy of the kept tree
	if err != nil {
		t.Fatal(err)
	}
	one, two := nodesOf(first), nodesOf(second)
	for n := range one {
		if two[n] {
			t.Fatal("two answers share a node")
		}
	}
	for n := range two {
		if n.Alias != nil && !two[n.Alias] {
			t.Fatal("an alias of the copy points outside it")
		}
	}
	m1, err := DecodeYAMLMapNode(first) // rewrites first's float tags
	if err != nil {
		t.Fatal(err)
	}
	m2, err := DecodeYAMLMap(data) // from a copy the rewrite did not touch
	if err != nil {
		t.Fatal(err)
	}
	for i, got := range []map[string]any{m1, m2} {
		if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
			t.Errorf("decode %d differs from a fresh parse", i+1)
		}
	}
	if fmt.Sprint(m2["story"]) != "1.10" {
		t.Errorf("story = %v, want the text 1.10", m2["story"])
	}
	if third, _ := DecodeYAMLNode(data); third.Content[2].Value != "story" || third.Content[3].Tag != "!!float" {
		t.Errorf("a caller's change reached the kept tree: %s is %s", third.Content[2].Value, third.Content[3].Tag)
	}
}

// TestDecodeYAMLMemoBounds: small documents and failures are not kept, and
// no more than memoEntries documents are.
func TestDecodeYAMLMemoBounds(t *testing.T) {
	memo.Lock()
	memo.entries = nil
	memo.Unlock()
	if _, err := DecodeYAMLNode([]byte("a: 1\n")); err != nil {
		t.Fatal(err)
	}
	bad := append(bigYAML(2000), "\n  bad: [\n"...)
	if _, err := DecodeYAMLNode(bad); err == nil {
		t.Fatal("a broken document decoded")
	}
	if _, err := DecodeYAMLNode(bad); err == nil {
		t.Fatal("a broken document decoded the second time")
	}
	if _, err := DecodeYAMLNodeOnce(bigYAML(1999)); err != nil {
		t.Fatal(err)
	}
	memo.Lock()
	n := len(memo.entries)
	memo.Unlock()
	if n != 0 {
		t.Fatalf("%d entries kept for a small, a broken and a read-once document", n)
	}
	for i := 0; i < memoEntries+2; i++ {
		if _, err := DecodeYAMLNode(bigYAML(2000 + i)); err != nil {
			t.Fatal(err)
		}
	}
	memo.Lock()
	n = len(memo.entries)
	memo.Unlock()
	if n != memoEntries {
		t.Fatalf("%d entries kept, want %d", n, memoEntries)
	}
}

// FuzzCloneNode: a copied tree decodes to what the tree decodes to.
func FuzzCloneNode(f *testing.F) {
	for _, s := range []string{"a: 1\n", "a: &x {k: 1.5}\nb: *x\n<<: *x\n", "- [a, &y b]\n- *y\n", "k: !!binary aGk=\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		root, err := decodeYAMLNode([]byte(s))
		if err != nil {
			return
		}
		c := cloneNode(root)
		want, werr := DecodeYAMLMapNode(root)
		got, gerr := DecodeYAMLMapNode(c)
		if fmt.Sprintf("%#v %v", got, gerr) != fmt.Sprintf("%#v %v", want, werr) {
			t.Fatalf("copy decodes to %#v (%v), the tree to %#v (%v)", got, gerr, want, werr)
		}
	})
}

// BenchmarkDecodeStateTwice is a run's two reads of a large state file
// (discovery's values, then the patch's nodes), with the memo and without.
func BenchmarkDecodeStateTwice(b *testing.B) {
	data := bigYAML(5000)
	for _, tc := range []struct {
		name string
		node func([]byte) (*yaml.Node, error)
	}{{"memo", DecodeYAMLNode}, {"parse", decodeYAMLNode}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				memo.Lock()
				memo.entries = nil // a new run
				memo.Unlock()
				root, err := tc.node(data)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := DecodeYAMLMapNode(root); err != nil {
					b.Fatal(err)
				}
				if _, err := tc.node(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
