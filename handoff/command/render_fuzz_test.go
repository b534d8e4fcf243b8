package command

import (
	"strings"
	"testing"
)

// FuzzRenderCommand: rendering never panics, and the script it produces
// does not depend on the value (only on whether it is empty): a value can
// never become part of the shell text, so a value holding shell syntax
// never appears in it unless the template or the rendering of a plain
// value already holds those bytes.
func FuzzRenderCommand(f *testing.F) {
	for _, seed := range [][2]string{
		{"claude --resume {{.AISessionID}}", "$(touch x)"},
		{`run "{{.Agent}}" '{{.Phase}}'`, "`id`; echo '\""},
		{`x "$(printf %s {{.Agent}})" # it's`, "a b\nc"},
		{"{{if .AISessionID}}--resume {{unchecked .AISessionID}}{{end}}", "-x"},
		{"echo ${{.Agent}} \\{{.Agent}} $'{{.Agent}}'", ";"},
		{"{{range 9}}x{{end}}", "v"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, tmpl, value string) {
		if len(tmpl) > 4096 || len(value) > 4096 {
			return
		}
		data := func(v string) Data {
			return Data{EnvelopePath: "/r/e.json", AISessionID: v, Agent: v, WorkflowID: "w", Phase: v, Root: "/r"}
		}
		got, err := Render(tmpl, data(value))
		if err != nil {
			return
		}
		if value == "" {
			return
		}
		plain, err := Render(tmpl, data("plainvalue"))
		if err != nil {
			t.Fatalf("a plain value fails where %q passed: %v", value, err)
		}
		if got.Script != plain.Script {
			t.Fatalf("the script depends on the value:\n%q\n%q", got.Script, plain.Script)
		}
		if strings.ContainsAny(value, "$`;'\"\\|&<>(){}*?[] \t\n#~") && !strings.Contains(tmpl, value) && !strings.Contains(plain.Script, value) && strings.Contains(got.Script, value) {
			t.Fatalf("the value %q reached the script %q", value, got.Script)
		}
	})
}
