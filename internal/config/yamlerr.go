package config

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Configuration files in plain words: a file that is not valid YAML is
// said as "FILE line N: the YAML is malformed: <what, in plain words>", and
// a wrongly typed value names its line (keyLines), never the YAML
// library's own words. Both are *UsageError (exit 2).

// yamlLineRe is the "yaml: line N: " the YAML library starts its errors with.
var yamlLineRe = regexp.MustCompile(`^yaml: (?:line (\d+): )?`)

// yamlProblems words the YAML library's errors, matched by their text.
var yamlProblems = []struct{ lib, plain string }{
	{"found character that cannot start any token", "a value starts with a character YAML reserves (such as @ or `): quote the value"},
	{"found a tab character", tabPlain},
	{"mapping values are not allowed in this context", "a ':' where no key was expected: quote a value that holds ': ', and check that the key above ends with ':'"},
	{"did not find expected key", "a line is indented differently from the keys around it"},
	{"could not find expected ':'", "a key is missing its ':'"},
	{"found unexpected end of stream", "a quoted value is never closed"},
	{"did not find expected ',' or ']'", "a [ list ] is never closed"},
	{"did not find expected ',' or '}'", "a { map } is never closed"},
	{"did not find expected '-' indicator", "list items (- ...) and keys are mixed at the same indentation"},
	{"did not find expected node content", "a value is missing after '-' or ':' (or is indented wrongly)"},
	{"found unknown escape character", "a double-quoted value holds an unknown backslash escape: use single quotes"},
	{"unknown anchor", "a value starts with '*' (an alias to nothing): quote the value"},
	{"found undefined tag handle", "a value starts with '!' (a YAML tag): quote the value"},
	{"invalid leading UTF-8 octet", "the file is not UTF-8 text"},
	{"control characters are not allowed", "the file holds control characters"},
}

const tabPlain = "a tab character is not allowed for indentation"

// plainYAMLError is the error of a configuration file (name as messages show
// it) that data does not parse as: the line and the problem in plain words.
func plainYAMLError(name string, data []byte, err error) error {
	msg := err.Error()
	line := 0
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		if m[1] != "" {
			line, _ = strconv.Atoi(m[1])
		}
		msg = msg[len(m[0]):]
	}
	plain := "it cannot be read as YAML (check the indentation and the quoting)"
	for _, p := range yamlProblems {
		if strings.Contains(msg, p.lib) {
			plain = p.plain
			break
		}
	}
	// a tab in the indentation is the usual cause of "cannot start any
	// token": name the first such line, wherever the library stopped
	if strings.Contains(msg, "cannot start any token") || strings.Contains(msg, "tab character") {
		if n := tabIndentedLine(data); n > 0 {
			line, plain = n, tabPlain
		}
	}
	return &UsageError{Err: fmt.Errorf("%s: the YAML is malformed: %s", atLine(name, line), plain)}
}

// atLine is "NAME line N", or NAME when the line is not known.
func atLine(name string, line int) string {
	if line <= 0 {
		return name
	}
	return fmt.Sprintf("%s line %d", name, line)
}

// tabIndentedLine is the first line (1-based) whose indentation holds a
// tab, 0 when none does.
func tabIndentedLine(data []byte) int {
	for i, l := range strings.Split(string(data), "\n") {
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if strings.Contains(indent, "\t") && strings.TrimSpace(l) != "" {
			return i + 1
		}
	}
	return 0
}

// keyLines parses data as a configuration file (name as messages show it):
// the line of each key, flat, lower-case and dotted as parseYAML's keys
// (sections included), or the plain-words error of a file that is not a
// YAML map of settings or writes a key twice.
func keyLines(name string, data []byte) (map[string]int, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, plainYAMLError(name, data, err)
	}
	lines := map[string]int{}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return lines, nil // empty
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return lines, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, &UsageError{Err: fmt.Errorf("%s: the YAML is malformed: the file must be a map of settings (key: value lines), not %s", atLine(name, root.Line), nodeWords(root))}
	}
	if err := walkKeys(name, "", root, lines, 0); err != nil {
		return nil, err
	}
	return lines, nil
}

// maxKeyDepth bounds the walk of nested maps (a hostile file cannot
// recurse without end).
const maxKeyDepth = 32

// walkKeys records the line of every key of mapping m under prefix.
func walkKeys(name, prefix string, m *yaml.Node, lines map[string]int, depth int) error {
	if depth > maxKeyDepth {
		return nil
	}
	first := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := strings.ToLower(k.Value)
		if at, dup := first[key]; dup {
			return &UsageError{Err: fmt.Errorf("%s: the YAML is malformed: the key %q is written twice (first at line %d)", atLine(name, k.Line), k.Value, at)}
		}
		first[key] = k.Line
		if prefix != "" {
			key = prefix + "." + key
		}
		if _, seen := lines[key]; !seen {
			lines[key] = k.Line
		}
		if v.Kind == yaml.MappingNode {
			if err := walkKeys(name, key, v, lines, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// nodeWords names what a YAML node is, for a message.
func nodeWords(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a single value"
	case yaml.AliasNode:
		return "an alias"
	}
	return "a document of another kind"
}

// errNotMap is the parse error of viper on a file keyLines accepted (it
// should not happen; worded all the same).
var errNotMap = errors.New("it cannot be read as a map of settings")
