package redact

import "strings"

// Field names. A name says its value is a secret when one of its words is a
// secret word (password, pass, pwd, secret, token, auth, credential, an
// api/access/private/signing/encryption/session/… key, …) and every word
// after it only says how the secret is written (key, value, hash, b64, …).
// So DB_PASS, dbPassword, PGPASSWORD, x-api-key, signing_key and
// aws_secret_access_key name secrets, while password_reset_url, token_count,
// max_tokens, secret_name, auth_type and idempotency_key do not.

// wholeSecretWords are words that name a secret only as a whole word
// ("pass" but not "bypass", "auth" but not "oauth").
var wholeSecretWords = map[string]bool{
	"pass": true, "pwd": true, "pw": true, "passcode": true, "auth": true,
	"cred": true, "creds": true, "passwords": true, "secrets": true,
	"credentials": true, "sessionid": true, "sessid": true, "phpsessid": true,
	"jsessionid": true, "psk": true,
}

// secretSuffixes name a secret as the end of a word (PGPASSWORD, apitoken,
// clientsecret, AccountKey written as one word).
var secretSuffixes = []string{
	"password", "passwd", "passphrase", "secret", "token", "credential",
	"apikey", "accesskey", "privatekey", "secretkey", "signingkey",
	"encryptionkey", "accountkey", "sessionkey", "masterkey", "authkey",
}

// keyQualifiers make the word "key" (or "keys") that follows them a secret:
// api_key, signingKey, SharedAccessKey, but not sort_key or idempotency_key.
var keyQualifiers = map[string]bool{
	"api": true, "access": true, "private": true, "secret": true, "signing": true,
	"sign": true, "encryption": true, "encrypt": true, "decryption": true,
	"session": true, "account": true, "master": true, "client": true,
	"shared": true, "subscription": true, "app": true, "auth": true,
	"consumer": true, "webhook": true, "hmac": true, "jwt": true, "license": true,
	"storage": true, "service": true, "admin": true,
}

// tokenCounters before "token" make it a count (max_token, input_token).
var tokenCounters = map[string]bool{
	"max": true, "min": true, "num": true, "total": true, "input": true,
	"output": true, "prompt": true, "completion": true, "count": true,
	"cached": true, "reasoning": true, "n": true, "per": true, "used": true,
	"remaining": true, "limit": true,
}

// secretTails may follow a secret word and keep the name a secret's:
// they say how it is written, not what else the field holds.
var secretTails = map[string]bool{
	"key": true, "keys": true, "value": true, "val": true, "hash": true,
	"hashed": true, "b64": true, "base64": true, "hex": true, "enc": true,
	"encrypted": true, "str": true, "string": true, "raw": true, "plain": true,
	"plaintext": true, "data": true, "bytes": true, "base": true, "secret": true,
	"token": true, "password": true, "pass": true, "pwd": true, "text": true,
}

// headerWords name secrets as JSON members and YAML keys but are left to
// their own rules in text (the Authorization and Cookie header rules, and
// orchestrate's own --cookie flag, which names a work session).
var headerWords = map[string]bool{
	"authorization": true, "proxyauthorization": true, "cookie": true,
	"cookies": true, "setcookie": true,
}

// exemptKeys are orchestrate's own names and common counters, never
// secrets whatever the rules above say.
var exemptKeys = map[string]bool{
	"idempotency_key": true, "ai_session_id": true, "max_tokens": true,
	"tokens": true, "token_count": true, "input_tokens": true,
	"output_tokens": true, "total_tokens": true, "token_usage": true,
}

// IsSecretKey reports whether a JSON member or YAML key name says its value
// is a secret (password, client_secret, apiKey, DB_PASS, Authorization,
// Cookie, …). Counters and orchestrate's own keys (max_tokens,
// idempotency_key, ai_session_id) are not.
func IsSecretKey(k string) bool {
	return secretName(k, true)
}

// secretName is IsSecretKey; headers says whether the header words
// (authorization, cookie) count.
func secretName(k string, headers bool) bool {
	if len(k) > 256 {
		k = k[len(k)-256:]
	}
	if exemptKeys[strings.ToLower(k)] || k == "PASS" {
		// PASS alone is a verdict (a QA gate's, a test's), not a password
		return false
	}
	words := nameWords(k)
	last := -1
	for i, w := range words {
		prev := ""
		if i > 0 {
			prev = words[i-1]
		}
		if secretWord(w, prev, headers) {
			last = i
		}
	}
	if last < 0 {
		return false
	}
	for _, w := range words[last+1:] {
		t := strings.TrimRight(w, "0123456789") // password_2, key_b64
		if t != "" && !secretTails[w] && !secretTails[t] {
			return false
		}
	}
	return true
}

// secretWord reports whether w (lower case), after the word prev, names a
// secret.
func secretWord(w, prev string, headers bool) bool {
	w = strings.TrimRight(w, "0123456789")
	switch {
	case w == "":
		return false
	case wholeSecretWords[w]:
		return true
	case headerWords[w]:
		return headers
	case w == "key" || w == "keys":
		return keyQualifiers[prev]
	case w == "token":
		return !tokenCounters[prev]
	case w == "tokens":
		return false
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}

// nameWords splits a name into lower-case words: at every byte that is not
// an ASCII letter or digit, and at camel-case boundaries (dbPassword → db
// password, APIKey → api key).
func nameWords(k string) []string {
	var words []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(k[start:end]))
		}
		start = -1
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		upper := 'A' <= c && c <= 'Z'
		alnum := upper || ('a' <= c && c <= 'z') || ('0' <= c && c <= '9')
		if !alnum {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		if upper {
			p := k[i-1]
			prevLowerOrDigit := ('a' <= p && p <= 'z') || ('0' <= p && p <= '9')
			nextLower := i+1 < len(k) && 'a' <= k[i+1] && k[i+1] <= 'z'
			if prevLowerOrDigit || ('A' <= p && p <= 'Z' && nextLower) {
				flush(i)
				start = i
			}
		}
	}
	flush(len(k))
	return words
}

// isNameByte reports whether c can be part of a field name in text
// (letters, digits, '_', '-', '.').
func isNameByte(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') ||
		c == '_' || c == '-' || c == '.'
}
