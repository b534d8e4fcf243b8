package redact

import "strings"

// Secret fields in text: name, separator, value — password: x, DB_PASS=x,
// "api_key": "x", \"token\": \"x\", export KEY='x', Password=x; in a
// connection string. A hand-written scan rather than a pattern: every
// "name:" in a document is a candidate, and the name decides (secretName),
// so each byte is looked at a bounded number of times however many
// candidates a text holds.

// nameKeywords are the words one of which every secret name holds (see
// IsSecretKey); a name without one is not looked at further.
var nameKeywords = []string{"pass", "pw", "secret", "token", "key", "auth", "cred", "sess"}

// secretFields rewrites the value of every field whose name is a secret's.
// Quotes are kept, so a quoted value stays a quoted value; an unquoted value
// after a double-quoted name (a JSON member) becomes a JSON string.
func secretFields(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !isNameByte(s[i]) {
			i++
			continue
		}
		start := i
		for i < len(s) && isNameByte(s[i]) {
			i++
		}
		name := s[start:i]
		j, keyQuote, ok := fieldSeparator(s, i)
		if !ok || !holdsKeyword(name) {
			continue
		}
		vs, ve, quote := fieldValue(s, j)
		if ve < 0 || (keyQuote == "" && quote == "" && proseName(s, start, name, s[i:j])) {
			continue
		}
		if !secretName(name, false) {
			continue // the value may hold a field of its own
		}
		v := s[vs+len(quote) : ve-len(quote)]
		if v == "" || v == Placeholder || (quote == "" && (plainWord(v) || reference(s, vs, ve) || code(s, vs, ve) ||
			strings.EqualFold(name, "pwd") && strings.HasPrefix(v, "/"))) {
			// empty, a flag, a placeholder, a reference to where the
			// secret is (${{ secrets.X }}, $DB_PASS), code that computes
			// it, or the shell's working directory (PWD=/home/x)
			i = ve
			continue
		}
		if quote == "" && keyQuote == `"` {
			quote = `"` // a JSON member: the value must stay a JSON value
		}
		b.WriteString(s[last:vs])
		b.WriteString(quote + Placeholder + quote)
		last, i = ve, ve
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// proseName reports whether a bare pass or auth before a colon and an
// unquoted value reads as prose or a verdict rather than a field: "All
// tests pass: 10/10". It is a field when it starts its line (after
// indentation or a list marker): "pass: x" in YAML.
func proseName(s string, start int, name, sep string) bool {
	if !strings.EqualFold(name, "pass") && !strings.EqualFold(name, "auth") {
		return false
	}
	if strings.Trim(sep, " \t") != ":" {
		return false
	}
	k := start
	for k > 0 && strings.IndexByte(" \t-*", s[k-1]) >= 0 {
		k--
	}
	return k > 0 && s[k-1] != '\n'
}

// holdsKeyword reports whether name holds one of nameKeywords, in any case.
func holdsKeyword(name string) bool {
	for i := 0; i+1 < len(name); i++ {
		c := lowerByte(name[i])
		if c != 'p' && c != 's' && c != 't' && c != 'k' && c != 'a' && c != 'c' {
			continue
		}
		for _, k := range nameKeywords {
			if len(name)-i >= len(k) && strings.EqualFold(name[i:i+len(k)], k) {
				return true
			}
		}
	}
	return false
}

func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// fieldSeparator reads what follows a name at s[i]: an optional closing
// quote (", ', \" or \'), blanks, a separator (:=, =>, :, =) and blanks. It
// returns where the value starts and the quote.
func fieldSeparator(s string, i int) (int, string, bool) {
	quote := ""
	switch {
	case i+1 < len(s) && s[i] == '\\' && (s[i+1] == '"' || s[i+1] == '\''):
		quote = s[i : i+2]
	case i < len(s) && (s[i] == '"' || s[i] == '\''):
		quote = s[i : i+1]
	}
	i += len(quote)
	i = skipBlanks(s, i)
	switch {
	case strings.HasPrefix(s[i:], ":="), strings.HasPrefix(s[i:], "=>"):
		i += 2
	case i < len(s) && (s[i] == ':' || s[i] == '='):
		i++
	default:
		return 0, "", false
	}
	return skipBlanks(s, i), quote, true
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// fieldValue reads a value at s[i]: "…" (JSON escapes kept), \"…\" (inside
// a JSON string), '…', or a bare word (no blank, quote, backquote — a
// Markdown code span ends there —, comma, semicolon or bracket). It returns the value's bounds
// (quotes included) and its quote; end is -1 when there is no value (a
// quote not closed on its line, a bracket, a line end).
func fieldValue(s string, i int) (start, end int, quote string) {
	if i >= len(s) {
		return i, -1, ""
	}
	switch c := s[i]; {
	case c == '"':
		for k := i + 1; k < len(s) && s[k] != '\n'; k++ {
			switch s[k] {
			case '\\':
				if k+1 < len(s) && s[k+1] == '\n' {
					return i, -1, ""
				}
				k++
			case '"':
				return i, k + 1, `"`
			}
		}
	case c == '\\' && i+1 < len(s) && s[i+1] == '"':
		for k := i + 2; k < len(s) && s[k] != '\n' && s[k] != '"'; k++ {
			if s[k] == '\\' {
				if k+1 < len(s) && s[k+1] == '"' {
					return i, k + 2, `\"`
				}
				if k+1 >= len(s) || s[k+1] == '\n' {
					break
				}
				k++
			}
		}
	case c == '\'':
		if k := strings.IndexAny(s[i+1:], "'\n"); k >= 0 && s[i+1+k] == '\'' {
			return i, i + k + 2, `'`
		}
	case strings.IndexByte(" \t\r\n\v\f\"'`\\,;<>{}[]=:", c) < 0:
		k := i + 1
		for k < len(s) && strings.IndexByte(" \t\r\n\v\f\"'`\\,;<>{}[]", s[k]) < 0 {
			k++
		}
		return i, k, ""
	}
	return i, -1, ""
}

// reference reports whether the bare value s[vs:ve] names where a secret is
// kept rather than holding one: ${VAR}, ${{ secrets.X }}, $(command), or an
// environment variable written in capitals ($DB_PASS).
func reference(s string, vs, ve int) bool {
	v := s[vs:ve]
	if v[0] != '$' {
		return false
	}
	if v == "$" {
		return ve < len(s) && (s[ve] == '{' || s[ve] == '(')
	}
	if v[1] == '(' || v[1] == '{' {
		return true
	}
	for i := 1; i < len(v); i++ {
		c := v[i]
		if !('A' <= c && c <= 'Z' || c == '_' || i > 1 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// code reports whether the bare value s[vs:ve] is code that computes a
// value rather than the value: a call (newWriter(), cfg.Token()) or a
// composite literal (&http.BasicAuth{…}).
func code(s string, vs, ve int) bool {
	v := s[vs:ve]
	if ve < len(s) && s[ve] == '{' && (v[0] == '&' || v[0] == '*' || isIdentChain(v)) {
		return true
	}
	if p := strings.IndexByte(v, '('); p > 0 && isIdentChain(v[:p]) && strings.HasSuffix(v, ")") {
		return true
	}
	return false
}

// isIdentChain reports whether v is a dotted chain of identifiers (cfg,
// http.BasicAuth, s.opts.Token) that starts with a letter and holds a
// capital or a dot, as code does (a lower-case word alone may be a
// password).
func isIdentChain(v string) bool {
	if v == "" || !('a' <= lowerByte(v[0]) && lowerByte(v[0]) <= 'z' || v[0] == '_') {
		return false
	}
	codeLike := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '.' || ('A' <= c && c <= 'Z'):
			codeLike = true
		case c == '_' || ('a' <= c && c <= 'z') || ('0' <= c && c <= '9'):
		default:
			return false
		}
	}
	return codeLike
}
