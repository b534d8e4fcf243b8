package tolerant

import "testing"

func TestDecodeYAMLKeepsFloatText(t *testing.T) {
	m, err := DecodeYAMLMap([]byte("story: 1.10\nother: 4.2\nn: 5\nratio: .5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m["story"] != "1.10" || m["other"] != "4.2" {
		t.Errorf("story ids = %#v %#v, want text", m["story"], m["other"])
	}
	if m["n"] != 5 {
		t.Errorf("n = %#v, want int 5", m["n"])
	}
}

func TestDecodeRefusesAliasBombAndDepth(t *testing.T) {
	bomb := "a: &a [x,x,x,x,x,x,x,x,x]\n"
	prev := "a"
	for i := 0; i < 10; i++ {
		name := string(rune('b' + i))
		bomb += name + ": &" + name + " [*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + "]\n"
		prev = name
	}
	if _, err := DecodeYAMLMap([]byte(bomb)); err == nil {
		t.Error("alias bomb accepted")
	}
	deep := ""
	for i := 0; i < 200; i++ {
		deep += "["
	}
	if _, err := DecodeJSON([]byte(deep)); err == nil {
		t.Error("deep JSON accepted")
	}
	if _, err := DecodeYAMLMap([]byte("- a\n- b\n")); err == nil {
		t.Error("a list accepted as a mapping")
	}
	if _, err := DecodeJSONMap([]byte(`{"a": 1`)); err == nil {
		t.Error("truncated JSON accepted")
	}
}
