package workflow

import (
	"crypto/sha256"
	"encoding/json"
	"reflect"
	"testing"
)

func TestSectionsSetGet(t *testing.T) {
	h := func(s string) SectionHash { return sha256.Sum256([]byte(s)) }
	tests := []struct {
		name  string
		set   []Section
		order []string // the names, sorted
		get   string
		want  Section
		found bool
	}{
		{"empty", nil, nil, SectionScope, Section{}, false},
		{"one", []Section{{Name: SectionScope, Hash: h("a"), Line: 3}}, []string{SectionScope}, SectionScope, Section{Name: SectionScope, Hash: h("a"), Line: 3}, true},
		{"sorted whatever the order", []Section{{Name: SectionTasks}, {Name: SectionAcceptance}, {Name: SectionDevNotes}, {Name: SectionChangeLog}},
			[]string{SectionAcceptance, SectionChangeLog, SectionDevNotes, SectionTasks}, SectionDevNotes, Section{Name: SectionDevNotes}, true},
		{"a name set twice keeps the last", []Section{{Name: SectionScope, Raw: "x"}, {Name: SectionTasks}, {Name: SectionScope, Raw: "y"}},
			[]string{SectionScope, SectionTasks}, SectionScope, Section{Name: SectionScope, Raw: "y"}, true},
		{"missing", []Section{{Name: SectionScope}}, []string{SectionScope}, SectionFileList, Section{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ss Sections
			for _, s := range tt.set {
				ss.Set(s)
			}
			var names []string
			for _, s := range ss {
				names = append(names, s.Name)
			}
			if !reflect.DeepEqual(names, tt.order) {
				t.Errorf("names = %v, want %v", names, tt.order)
			}
			got, ok := ss.Get(tt.get)
			if ok != tt.found || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Get(%q) = %+v, %v; want %+v, %v", tt.get, got, ok, tt.want, tt.found)
			}
		})
	}
}

func TestSectionHashText(t *testing.T) {
	h := SectionHash(sha256.Sum256([]byte("a")))
	const hexA = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
	if h.String() != hexA {
		t.Errorf("String() = %s", h)
	}
	b, err := json.Marshal(Section{Name: SectionScope, Raw: "a", Hash: h, Line: 2})
	if err != nil || string(b) != `{"name":"scope","hash":"`+hexA+`","line":2}` {
		t.Errorf("JSON = %s, %v", b, err)
	}
}
