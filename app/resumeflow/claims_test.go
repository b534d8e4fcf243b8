package resumeflow

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestClaimsNamed(t *testing.T) {
	cs := NewClaims()
	for _, id := range []string{"workflow:sdc-1", "workflow:sdc-12", "sdc:4.2"} {
		cs.Add(&Claim{Workflow: id}, json.RawMessage(`{"id":"`+id+`"}`))
	}
	for name, want := range map[string]string{
		"workflow:sdc-1":  "workflow:sdc-1", // exact, although a prefix of another
		"workflow:sdc-12": "workflow:sdc-12",
		"sdc-12":          "workflow:sdc-12", // the key's prefix
		"sdc:":            "sdc:4.2",         // the id's prefix
		"4.2":             "sdc:4.2",
		"sdc-1":           "", // ambiguous: sdc-1 and sdc-12
		"workflow":        "", // ambiguous
		"":                "",
		" ":               "",
		"nope":            "",
	} {
		cl, env, ok := cs.Named(name)
		got := ""
		if ok {
			got = cl.Workflow
			if string(env) != `{"id":"`+got+`"}` {
				t.Errorf("%q: envelope %s", name, env)
			}
		}
		if got != want {
			t.Errorf("Named(%q) = %q, want %q", name, got, want)
		}
	}
	if got := cs.IDs(); !reflect.DeepEqual(got, []string{"sdc:4.2", "workflow:sdc-1", "workflow:sdc-12"}) {
		t.Errorf("IDs %v", got)
	}
	cs.Remove("workflow:sdc-12")
	if cl, _, ok := cs.Named("sdc-1"); !ok || cl.Workflow != "workflow:sdc-1" {
		t.Errorf("after a remove, sdc-1 names %v %v", cl, ok)
	}
	if _, env, ok := cs.Named("workflow:sdc-12"); ok || env != nil {
		t.Error("a removed claim is still named")
	}
}
