// Package redact is orchestrate's one redactor: every string that leaves the
// process (the orchestration log, handoff envelopes, terminal output and
// --json documents) and every breadcrumb written into a work-session file
// passes through String or JSON first, so a secret a repository, a state
// file, an agent or the environment carries is never repeated.
//
// It recognises what real secrets look like: Authorization, Cookie and
// Set-Cookie headers and bearer tokens, PEM private-key blocks, credentials
// in URLs, secret command-line flags (--password X, mysql -pX, curl -u
// user:X, sshpass -p X), .netrc entries, "the password is X" in prose,
// provider tokens by their prefixes (AWS, Google, Azure, GitHub, GitLab,
// Slack, OpenAI, Anthropic, Hugging Face, npm, PyPI, Stripe, SendGrid,
// Twilio, JWTs and more, see tokens.go), and the values of fields whose
// names say they hold a secret (IsSecretKey: password, DB_PASS, pwd, auth,
// secret, token, api_key, signing_key, …) written as YAML, JSON, env
// assignments or connection strings. Field names are found by a linear
// scan and every pattern is an RE2 expression (linear in the input), so the
// cost on a large input stays proportional to its size. See
// docs/SECURITY.md.
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
	// cased, when set, are words one of which must occur in the input as
	// written (case-sensitive patterns whose words are short and common
	// in lower case).
	cased []string
	// also, when set, are words one of which must occur in the input (in
	// lower case) besides one of words.
	also []string
	// repl rewrites a match given its submatch indexes (nil: the whole
	// match becomes the placeholder).
	repl func(s string, m []int) string
	// apply, when set, rewrites the text instead of re and repl.
	apply func(s string) string
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

// rules run in this order: the header rules first (their output is left
// alone by the field rule), then shapes, then names.
var rules = concat(headerRules, tokenRules, fieldRules)

func concat(lists ...[]rule) []rule {
	var out []rule
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

var headerRules = []rule{
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
		// Cookie: a=1; b=2 and Set-Cookie: sid=…; Path=/ — keep the names
		// and the Set-Cookie attributes, hide the values.
		name:  "cookie header",
		words: []string{"cookie"},
		re:    lazyre.New(`(?i)(\b(?:set-)?cookie2?(?:\\?["'])?[ \t]*:[ \t]*(?:\\?["'])?)([^\r\n"'\\]+)`),
		repl: func(s string, m []int) string {
			return group(s, m, 1) + cookieValues(group(s, m, 2))
		},
	},
	{
		// Slack and Discord webhooks: keep the host, hide the path.
		name:  "webhook",
		words: []string{"hooks.slack.com", "discord"},
		re: lazyre.New(`(?i)(https?://(?:hooks\.slack\.com/|(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/))` +
			`((?:services/|workflows/|triggers/)?[A-Za-z0-9/_-]+)`),
		repl: func(s string, m []int) string {
			if strings.HasPrefix(strings.ToLower(group(s, m, 1)), "https://hooks.slack.com") ||
				strings.HasPrefix(strings.ToLower(group(s, m, 1)), "http://hooks.slack.com") {
				switch p := strings.ToLower(group(s, m, 2)); {
				case strings.HasPrefix(p, "services/"), strings.HasPrefix(p, "workflows/"), strings.HasPrefix(p, "triggers/"):
				default:
					return s[m[0]:m[1]]
				}
			}
			return keepGroups([]int{1}, 2, nil)(s, m)
		},
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
}

// cookieAttributes are the Set-Cookie attributes whose values are kept.
var cookieAttributes = map[string]bool{"path": true, "domain": true, "expires": true,
	"max-age": true, "samesite": true, "secure": true, "httponly": true,
	"priority": true, "partitioned": true, "version": true, "comment": true}

// cookieValues hides the value of every name=value pair of a Cookie or
// Set-Cookie header value but the attributes'. A value ends at a ';' or a
// blank (what follows a blank is kept: it is not part of the cookie).
func cookieValues(v string) string {
	parts := strings.Split(v, ";")
	for i, p := range parts {
		eq := strings.IndexByte(p, '=')
		if eq < 0 || cookieAttributes[strings.ToLower(strings.TrimSpace(p[:eq]))] ||
			strings.TrimSpace(p[:eq]) == "" {
			continue
		}
		rest := p[eq+1:]
		val := strings.TrimLeft(rest, " \t")
		lead := rest[:len(rest)-len(val)]
		end := strings.IndexAny(val, " \t")
		if end < 0 {
			end = len(val)
		}
		if end == 0 || val[:end] == Placeholder {
			continue
		}
		parts[i] = p[:eq+1] + lead + Placeholder + val[end:]
	}
	return strings.Join(parts, ";")
}

var fieldRules = []rule{
	{
		// key: value, key=value, "key": "value" for secret names (see
		// IsSecretKey: password, DB_PASS, pwd, secret, token, auth,
		// api_key, signing_key, …), in YAML, JSON, env assignments
		// (export KEY=value), connection strings and prose; see
		// secretFields.
		name:  "secret field",
		words: nameKeywords,
		apply: secretFields,
	},
	{
		// mysql -pSECRET (the password glued to -p), sshpass -p SECRET.
		name:  "command password",
		words: []string{"mysql", "mariadb", "sshpass"},
		re: lazyre.New(`((?i:\b(?:mysql[a-z]*|mariadb[a-z-]*))[^\n\r;|&]*?[ \t]-p|(?i:\bsshpass)[ \t]+-p[ \t]*)` +
			`([^\s"'\\\[<>|&;$\x60-][^\s"'\\;|&\x60]*)`),
		repl: keepGroups([]int{1}, 2, nil),
	},
	{
		// --password VALUE, --api-key VALUE, -token VALUE: a flag whose
		// name is a secret's, and the word after it (--password=VALUE is
		// a secret field).
		name:  "secret flag",
		words: nameKeywords,
		re: lazyre.New(`(--?[A-Za-z][A-Za-z0-9_-]*[ \t]+)` +
			`(?:"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)'|([^\s"'\\\[<>|&;$\x60-][^\s"'\\;|&\x60]*))`),
		repl: func(s string, m []int) string {
			flag := strings.TrimRight(group(s, m, 1), " \t")
			name := strings.TrimLeft(flag, "-")
			if (m[0] > 0 && isNameByte(s[m[0]-1])) || len(name) < 2 || !secretName(name, false) ||
				(len(flag)-len(name) == 1 && strings.ToLower(name) != name) || pluralFlag(name) {
				// not a flag, not a secret's, a single-dash word with
				// capitals (-pS3cret: a value glued to its flag), or an
				// action on many (gpg --list-secret-keys ID)
				return s[m[0]:m[1]]
			}
			switch {
			case m[4] >= 0:
				return quoted(s, m, group(s, m, 1), 2, `"`)
			case m[6] >= 0:
				return quoted(s, m, group(s, m, 1), 3, `'`)
			}
			if plainWord(group(s, m, 4)) {
				return s[m[0]:m[1]]
			}
			return group(s, m, 1) + Placeholder
		},
	},
	{
		// curl -u user:SECRET, curl --user user:SECRET.
		name:  "curl user",
		words: []string{"curl"},
		re:    lazyre.New(`((?i:\bcurl)\b[^\n\r;|&]*?[ \t](?:-u|--user)[ \t]*["']?[^\s:"'\\]+:)([^\s"'\\@;|&\x60]+)`),
		repl:  keepGroups([]int{1}, 2, nil),
	},
	{
		// .netrc: machine HOST login USER password SECRET.
		name:  "netrc",
		words: []string{"machine", "login"},
		re:    lazyre.New(`(?i)(\b(?:machine|login|default)\s+\S+\s+(?:password|passwd)[ \t]+)([^\s"'\\]+)`),
		repl:  keepGroups([]int{1}, 2, nil),
	},
	{
		// Prose: "the password is X", "the password for root was 'X'",
		// "API key is X". A password can be any word but a common one
		// ("the password is required"); a token, secret or key must look
		// like one (a digit or a symbol, or long).
		name:  "secret in prose",
		words: []string{"pass", "pwd", "secret", "token", "key"},
		also:  []string{" is", " was"},
		re: lazyre.New(`(?i)(\b(pass(?:word|phrase|wd|code)?|pwd|secret|token|(?:api|access|private|secret|signing|encryption)[ _-]?key)` +
			`(?:[ \t]+(?:for|of)[ \t]+\S+)? +(?:is|was)[ \t]+(?:now[ \t]+|still[ \t]+|set[ \t]+to[ \t]+|just[ \t]+)?)` +
			"(\"[^\"\\n]*\"|'[^'\\n]*'|`[^`\\n]*`|[^\\s\"'\\\\`]+)"),
		repl: func(s string, m []int) string {
			head, v := group(s, m, 1), group(s, m, 3)
			if c := v[0]; c == '"' || c == '\'' || c == '`' {
				if len(v) < 3 || v[1:len(v)-1] == Placeholder {
					return s[m[0]:m[1]]
				}
				return head + v[:1] + Placeholder + v[len(v)-1:]
			}
			w := strings.TrimRight(v, ".,;:!?)")
			tail := v[len(w):]
			if w == "" || w == Placeholder || proseWords[strings.ToLower(w)] {
				return s[m[0]:m[1]]
			}
			kind := strings.ToLower(group(s, m, 2))
			if !strings.HasPrefix(kind, "pass") && kind != "pwd" && !secretLooking(w) {
				return s[m[0]:m[1]]
			}
			return head + Placeholder + tail
		},
	},
}

// pluralFlag reports whether a flag's name ends in a plural (keys,
// secrets, …): it acts on secrets, its argument is not one.
func pluralFlag(name string) bool {
	n := strings.ToLower(name)
	for _, p := range []string{"keys", "secrets", "passwords", "credentials", "tokens", "creds"} {
		if strings.HasSuffix(n, p) {
			return true
		}
	}
	return false
}

// plainWord reports whether a bare value is a flag, not a secret.
func plainWord(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "null", "yes", "no", "none", "~", "nil", "on", "off":
		return true
	}
	return v == Placeholder
}

// secretLooking reports whether a word from prose looks like a token: a
// digit or a symbol in it, or 16 bytes or more.
func secretLooking(w string) bool {
	return len(w) >= 16 || strings.ContainsAny(w, "0123456789!#$%&*+/=?@^_~-")
}

// proseWords are the words that follow "the password is" in prose about
// passwords rather than in a sentence that gives one away.
var proseWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the not now still set required optional
		mandatory incorrect correct wrong invalid valid expired expiring empty missing blank
		null nil none unknown unset changed reset stored saved hashed encrypted encoded
		rotated revoked generated random hidden masked shown visible sent used checked
		verified validated weak strong long short too case in on at of for to from by
		with only never always also being ok fine good bad new old same different updated
		provided given needed necessary expected accepted rejected enabled disabled
		available configured defined specified sensitive secret private public secure
		insecure safe unsafe kept read loaded passed taken that this what which where how
		and or but no yes true false there here it its your my our their his her just
		already then so stale outdated leaked compromised exposed logged printed redacted
		handled managed injected supplied read-only readonly located cached
		case-sensitive part inside under important`) {
		m[w] = true
	}
	return m
}()

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
	return asJSON(text(s))
}

// asJSON is out, text's redaction of what was not a JSON document, redacted
// as a document when that made it one: `{"pass":"<a control
// character>","auth":{"k":1}}` is not valid JSON until its password is
// replaced, and then the secret member auth's values must go too, or a
// second String would redact more than the first (it must be idempotent).
func asJSON(out string) string {
	if looksLikeJSON(out) && json.Valid([]byte(out)) {
		return string(JSON([]byte(out)))
	}
	return out
}

// Bytes is String for a byte slice.
func Bytes(b []byte) []byte {
	if looksLikeJSON(string(b)) && json.Valid(b) {
		return JSON(b)
	}
	out := asJSON(text(string(b)))
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
		if !containsAny(lower, r.words) || (r.cased != nil && !containsAny(s, r.cased)) ||
			(r.also != nil && !containsAny(lower, r.also)) {
			continue
		}
		if r.apply != nil {
			if out := r.apply(s); out != s {
				s = out
				lower = strings.ToLower(s)
			}
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
