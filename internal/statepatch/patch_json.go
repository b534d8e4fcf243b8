package statepatch

import (
	"encoding/json"
	"fmt"
	"strings"
)

// locateJSON finds the object holding the fields (the top level, or a
// wrapper member holding an object) and the fields in it and in the top
// level.
func locateJSON(data []byte, wrappers []string) (inner, outer *mapInfo, err error) {
	top, err := ScanTop(data)
	if err != nil {
		return nil, nil, err
	}
	topInfo := jsonMapInfo(data, top)
	for _, w := range wrappers {
		var found *JSONObject
		for i := range top.Members {
			if m := top.Members[i]; m.Key == w && m.Obj != nil {
				found = m.Obj
			}
		}
		if found != nil {
			return jsonMapInfo(data, found), topInfo, nil
		}
	}
	return topInfo, nil, nil
}

// jsonMapInfo describes an object for the patch.
func jsonMapInfo(data []byte, o *JSONObject) *mapInfo {
	m := &mapInfo{found: map[string]*foundValue{}}
	for _, mem := range o.Members {
		m.keys = append(m.keys, mem.Key)
		if !isFieldKey(mem.Key) {
			continue
		}
		f := &foundValue{key: mem.Key, start: mem.ValStart, end: mem.ValEnd, style: styleOther}
		raw := data[mem.ValStart:mem.ValEnd]
		if mem.Kind == '"' {
			f.style = styleString
			_ = json.Unmarshal(raw, &f.text)
		} else {
			f.text = string(raw)
		}
		m.found[mem.Key] = f // the last one wins, as decoders do
	}
	m.render = func(field string, old *foundValue, value string) string {
		if field == "resume_count" && (old == nil || old.style != styleString) {
			return value
		}
		b, _ := json.Marshal(value)
		return string(b)
	}
	m.insert = func(kvs [][2]string) (Edit, error) {
		if len(o.Members) == 0 {
			var parts []string
			for _, kv := range kvs {
				parts = append(parts, fmt.Sprintf("%q: %s", kv[0], kv[1]))
			}
			return Edit{Start: o.Open + 1, End: o.Open + 1, Text: strings.Join(parts, ", ")}, nil
		}
		first := o.Members[0]
		lead := string(data[o.Open+1 : first.KeyStart])
		sep := string(data[first.KeyEnd:first.ValStart])
		gap := lead
		if !strings.Contains(lead, "\n") {
			gap = ""
			if strings.Contains(sep, " ") {
				gap = " "
			}
		}
		var b strings.Builder
		for _, kv := range kvs {
			key, _ := json.Marshal(kv[0])
			b.WriteString(string(key) + sep + kv[1] + "," + gap)
		}
		return Edit{Start: first.KeyStart, End: first.KeyStart, Text: b.String()}, nil
	}
	return m
}
