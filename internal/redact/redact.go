// Package redact is orchestrate's one redactor: every string that leaves the
// process (the orchestration log, handoff envelopes, terminal output and
// --json documents) passes through String or JSON first, so a secret a
// repository, a state file or the environment carries is never repeated.
//
// It recognises what real secrets look like: bearer tokens and Authorization
// headers, PEM private-key blocks, credentials in URLs, cloud keys (AWS,
// Google, Azure), GitHub, Slack, OpenAI and Anthropic tokens, and the values
// of password/secret/token/api_key fields written as YAML, JSON, env
// assignments or prose. Every pattern is an RE2 expression (linear in the
// input), so the cost on a large input stays proportional to its size.
// See docs/SECURITY.md.
package redact

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
)

// Placeholder replaces every secret.
const Placeholder = "[REDACTED]"

// rule is one family of secrets: a pattern, the lower-case words one of
// which must occur in the input for the pattern to be worth running, and how
// a match is rewritten.
type rule struct {
	name  string
	words []string
	re    func() *regexp.Regexp // compiled when its words first appear
	// repl rewrites a match given its submatch indexes (nil: the whole
	// match becomes the placeholder).
	repl func(s string, m []int) string
}

// group returns submatch i of m in s ("" when it did not take part).
func group(s string, m []int, i int) string {
	if 2*i+1 >= len(m) || m[2*i] < 0 {
		return ""
	}
	return s[m[2*i]:m[2*i+1]]
}

// keepGroups keeps the text of the listed submatches around one redacted
// submatch: the match becomes group(keep...) + Placeholder + group(after...).
func keepGroups(before []int, secret int, after []int) func(string, []int) string {
	return func(s string, m []int) string {
		if group(s, m, secret) == "" || group(s, m, secret) == Placeholder {
			return s[m[0]:m[1]]
		}
		var b strings.Builder
		for _, i := range before {
			b.WriteString(group(s, m, i))
		}
		b.WriteString(Placeholder)
		for _, i := range after {
			b.WriteString(group(s, m, i))
		}
		return b.String()
	}
}

// authSchemes are the Authorization schemes kept in front of a credential.
var authSchemes = map[string]bool{"bearer": true, "basic": true, "token": true, "digest": true,
	"negotiate": true, "ntlm": true, "apikey": true, "sso-key": true}

// kvKeywords are the field names (any prefix, case-insensitive) whose values
// are secrets whatever they look like.
const kvKeywords = `passw(?:or)?d|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|accountkey|sharedaccesskey|sharedaccesssignature|credentials?`

var rules = []rule{
	{
		// Authorization: [scheme] credentials — keep the header and the scheme.
		name:  "authorization header",
		words: []string{"authorization"},
		re: lazyre.New(`(?i)(\b(?:proxy-)?authorization(?:\\?["'])?[ \t]*[:=][ \t]*(?:\\?["'])?)` +
			`((?:bearer|basic|token|digest|negotiate|ntlm|apikey|sso-key)[ \t]+)?` +
			`([^\s"'\\,;\[\]]+)`),
		repl: func(s string, m []int) string {
			if group(s, m, 2) == "" && authSchemes[strings.ToLower(group(s, m, 3))] {
				// the scheme alone, before a placeholder or a quoted value
				return s[m[0]:m[1]]
			}
			return keepGroups([]int{1, 2}, 3, nil)(s, m)
		},
	},
	{
		// Bearer <token>: keep the word. A bare token must look like one
		// (long, or with a digit) so prose ("bearer of news") survives.
		name:  "bearer",
		words: []string{"bearer"},
		re:    lazyre.New(`(?i)\b(bearer[ \t]+)([A-Za-z0-9._~+/-]+=*)`),
		repl: func(s string, m []int) string {
			tok := group(s, m, 2)
			if len(tok) < 16 && (len(tok) < 6 || !strings.ContainsAny(tok, "0123456789")) {
				return s[m[0]:m[1]]
			}
			return group(s, m, 1) + Placeholder
		},
	},
	{
		// Slack incoming webhooks: keep the host, hide the path.
		name:  "slack webhook",
		words: []string{"hooks.slack.com"},
		re:    lazyre.New(`(?i)(https?://hooks\.slack\.com/)((?:services|workflows|triggers)/[A-Za-z0-9/_-]+)`),
		repl:  keepGroups([]int{1}, 2, nil),
	},
	{
		// scheme://user:password@host — hide the password.
		name:  "url credentials",
		words: []string{"://"},
		re:    lazyre.New(`([A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@"'\\\[\]]*:)([^\s/?#"'\\]*)(@)`),
		repl:  keepGroups([]int{1}, 2, []int{3}),
	},
	{
		// Azure SAS signatures in URLs and connection strings.
		name:  "azure sas",
		words: []string{"sig="},
		re:    lazyre.New(`(?i)([?&;]sig=)([^&\s"'\\#;\[\]]+)`),
		repl:  keepGroups([]int{1}, 2, nil),
	},
	{
		// Tokens recognisable by their shape alone.
		name: "token",
		words: []string{"akia", "asia", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "a3t",
			"aiza", "ya29.", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "xapp-", "sk-", "q~", "eyj", "glpat-", "npm_", "sk_live_", "rk_live_"},
		re: lazyre.New(`\b(?:` +
			`(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[A-Z0-9]{16}` + // AWS access key ids
			`|AIza[0-9A-Za-z_-]{35}` + // Google API keys
			`|ya29\.[0-9A-Za-z_-]{20,}` + // Google OAuth access tokens
			`|gh[pousr]_[A-Za-z0-9]{20,}` + // GitHub tokens
			`|github_pat_[A-Za-z0-9_]{22,}` + // GitHub fine-grained tokens
			`|xox[abposr]-[A-Za-z0-9-]{10,}` + // Slack tokens
			`|xapp-[0-9]+-[A-Za-z0-9-]{10,}` + // Slack app tokens
			`|sk-[A-Za-z0-9][A-Za-z0-9_-]{19,}` + // OpenAI sk-…, sk-proj-…, Anthropic sk-ant-…
			`|[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}` + // Azure AD client secrets
			`|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}` + // JWTs
			`|glpat-[A-Za-z0-9_-]{20,}` + // GitLab tokens
			`|npm_[A-Za-z0-9]{36}` + // npm tokens
			`|[sr]k_live_[A-Za-z0-9]{16,}` + // Stripe live keys
			`)`),
	},
	{
		// key: value, key=value, "key": "value" for secret-named keys
		// (password, secret, token, api_key, access_key, client_secret, …),
		// in YAML, JSON, env assignments and prose. Quotes are kept, so a
		// quoted value stays a quoted value; an unquoted value after a JSON
		// key becomes a JSON string.
		name: "secret field",
		words: []string{"passw", "passphrase", "secret", "token", "api_key", "api-key", "apikey",
			"access_key", "access-key", "accesskey", "private_key", "private-key", "privatekey",
			"accountkey", "sharedaccess", "credential"},
		// The pattern starts at the keyword (whatever prefix the name has
		// is kept as it is), so the search does not start a thread at every
		// character of every word.
		re: lazyre.New(`(?i)((?:` + kvKeywords + `)(?:[_-]?(?:key|value|hash|b64|base64))?(\\?["'])?[ \t]*(?::=|=>|:|=)[ \t]*)` +
			`(?:"((?:[^"\\\n]|\\.)*)"` + // "value" (JSON escapes kept)
			`|\\"((?:[^"\\\n]|\\[^"\n])*)\\"` + // \"value\" inside a JSON string
			`|'([^'\n]*)'` + // 'value'
			`|([^\s"'\\,;<>{}\[\]=:][^\s"'\\,;<>{}\[\]]*))`), // bare value
		repl: func(s string, m []int) string {
			head := group(s, m, 1)
			keyQuote := group(s, m, 2) // the quote closing the name
			switch {
			case m[6] >= 0:
				return quoted(s, m, head, 3, `"`)
			case m[8] >= 0:
				return quoted(s, m, head, 4, `\"`)
			case m[10] >= 0:
				return quoted(s, m, head, 5, `'`)
			}
			v := group(s, m, 6)
			switch strings.ToLower(v) {
			case "true", "false", "null", "yes", "no", "none", "~":
				return s[m[0]:m[1]]
			}
			if keyQuote == `"` {
				// a JSON member: the value must stay a JSON value
				return head + `"` + Placeholder + `"`
			}
			return head + Placeholder
		},
	},
}

// quoted rewrites a quoted value: empty values and the placeholder stay.
func quoted(s string, m []int, head string, g int, q string) string {
	v := group(s, m, g)
	if v == "" || v == Placeholder {
		return s[m[0]:m[1]]
	}
	return head + q + Placeholder + q
}

// maxPasses bounds the rounds String makes to reach a text no rule changes.
const maxPasses = 4

// String returns s with every secret it recognises replaced by [REDACTED].
// A valid JSON document stays a valid JSON document (see JSON); other text
// is rewritten in place. String is idempotent: String(String(s)) ==
// String(s).
func String(s string) string {
	if looksLikeJSON(s) && json.Valid([]byte(s)) {
		return string(JSON([]byte(s)))
	}
	return text(s)
}

// Bytes is String for a byte slice.
func Bytes(b []byte) []byte {
	if looksLikeJSON(string(b)) && json.Valid(b) {
		return JSON(b)
	}
	out := text(string(b))
	if out == string(b) {
		return b
	}
	return []byte(out)
}

// looksLikeJSON reports whether s starts (after blanks) like a JSON object,
// array or string, the documents worth checking with json.Valid.
func looksLikeJSON(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	return t != "" && (t[0] == '{' || t[0] == '[' || t[0] == '"')
}

// text applies the rules until none changes the text (a few rounds at
// most: a replacement can only shorten what a later rule sees).
func text(s string) string {
	for i := 0; i < maxPasses; i++ {
		out := pass(s)
		if out == s {
			return s
		}
		s = out
	}
	return s
}

// pass applies every rule once, skipping those whose words are absent.
func pass(s string) string {
	s = privateKeys(s)
	if noRuleWords(s) {
		return s
	}
	lower := strings.ToLower(s)
	for i := range rules {
		r := &rules[i]
		if !containsAny(lower, r.words) {
			continue
		}
		ms := r.re().FindAllStringSubmatchIndex(s, -1)
		if len(ms) == 0 {
			continue
		}
		var b strings.Builder
		b.Grow(len(s))
		last := 0
		for _, m := range ms {
			b.WriteString(s[last:m[0]])
			if r.repl == nil {
				b.WriteString(Placeholder)
			} else {
				b.WriteString(r.repl(s, m))
			}
			last = m[1]
		}
		b.WriteString(s[last:])
		if out := b.String(); out != s {
			s = out
			lower = strings.ToLower(s)
		}
	}
	return s
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
