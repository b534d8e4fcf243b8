package source

import (
	"fmt"
	"strings"
	"testing"
)

// Asked records each distinct question once with its answer; AskedAgain
// accepts the record only while every answer holds, and refuses values
// that do not decode.
func TestAsked(t *testing.T) {
	fsys := map[string]bool{"src": true}
	exists := func(p string) bool { return fsys[p] }
	a := NewAsked(exists)
	ask := a.Func()
	for _, q := range []string{"src", "api", "src", "docs"} {
		if ask(q) != fsys[q] {
			t.Fatalf("%s: the answer is not exists's", q)
		}
	}
	if !a.Storable() {
		t.Fatal("three questions are not storable")
	}
	v := a.Append(nil)
	v = append(v, "rest"...)
	var asked []string
	count := func(p string) bool { asked = append(asked, p); return exists(p) }
	rest, ok := AskedAgain(v, count)
	if !ok || string(rest) != "rest" || strings.Join(asked, ",") != "src,api,docs" {
		t.Fatalf("again: %v %q, asked %v", ok, rest, asked)
	}
	fsys["api"] = true
	if _, ok := AskedAgain(v, exists); ok {
		t.Fatal("a changed answer is accepted")
	}
	if _, ok := AskedAgain(v, nil); ok {
		t.Fatal("questions with nothing to ask are accepted")
	}
	if rest, ok := AskedAgain(NewAsked(nil).Append([]byte(nil)), nil); !ok || len(rest) != 0 || NewAsked(nil).Func() != nil || !NewAsked(nil).Storable() {
		t.Fatal("a nil recorder")
	}
	for i := 0; i < len(v)-len("rest"); i++ {
		if _, ok := AskedAgain(v[:i], exists); ok && i != 0 {
			t.Errorf("cut at %d decodes", i)
		}
	}

	many := NewAsked(exists)
	for i := 0; i <= MaxAsked; i++ {
		many.Func()(fmt.Sprint("d", i))
	}
	if many.Storable() {
		t.Fatal("more than MaxAsked questions are storable")
	}
	long := NewAsked(exists)
	long.Func()(strings.Repeat("a", maxAskedPath+1))
	if long.Storable() {
		t.Fatal("a question too long to store is storable")
	}
	// a value claiming more questions than MaxAsked, or a path longer than
	// the value, is refused
	for _, bad := range [][]byte{{MaxAsked + 1}, {1, 20, 'a'}} {
		if _, ok := AskedAgain(bad, exists); ok {
			t.Errorf("%x decodes", bad)
		}
	}
}
