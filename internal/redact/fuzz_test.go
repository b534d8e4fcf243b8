package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// planted are secrets of every family; FuzzRedact puts one between random
// texts and checks it never survives.
var planted = []string{
	ghp, ghPAT, aws, awsSTS, google, slack, oai, oaiOld, ant, azAD, jwt,
	"xoxp-" + "1234567890-abcdefghij",
	hfTok, sendgrid, pypiTok, stripeLive, npmTok, glpat, twilioSK, shopify, vaultTok, ageKey,
}

// FuzzRedact checks the redactor's invariants on any input: it never
// panics, it is idempotent, a planted secret never survives, and valid
// JSON stays valid JSON.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"", "password: hunter2", `{"token": "x", "n": [1, 2]}`, "Authorization: Bearer T",
		pem, "postgres://u:PASS@db/x", `"a\"b"`, "secret := abc",
		"-----BEGIN " + "PRIVATE KEY-----\"", "AccountKey=abc==;x=y",
		// the families added for issue 1/7
		`{"pass": "x", "auth": {"k": 1}}`, "pwd=abc DB_PASS=abc export SMTP_PASS='a b'",
		"signing_key: k encryption_key=k", "app --password X9 --token 'a b'",
		"the password is X9secret.", "Set-Cookie: sid=abc; Path=/", "Cookie: a=1; b=2",
		"mysql -u root -pS3cret app; sshpass -p pw ssh h", "curl -u user:pw https://x",
		"machine h login u password p", `\"token\": \"x\"`, "PWD=/home/x",
		hfTok + " " + sendgrid, "password_reset_url: https://x token_count: 512",
	} {
		f.Add(s, s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, prefix, suffix string, which uint8) {
		for _, in := range []string{prefix, prefix + suffix} {
			once := String(in)
			if twice := String(once); twice != once {
				t.Fatalf("not idempotent on %q:\n once %q\ntwice %q", in, once, twice)
			}
			if json.Valid([]byte(in)) && !json.Valid([]byte(once)) {
				t.Fatalf("valid JSON %q became invalid: %q", in, once)
			}
		}
		secret := planted[int(which)%len(planted)]
		in := prefix + " " + secret + " " + suffix
		if out := String(in); strings.Contains(out, secret) {
			t.Fatalf("secret survived in %q", out)
		}
		// inside a JSON document too
		doc, _ := json.Marshal(map[string]string{"note": prefix + " " + secret + " " + suffix})
		out := String(string(doc))
		if !json.Valid([]byte(out)) {
			t.Fatalf("JSON became invalid: %s", out)
		}
		var back map[string]string
		_ = json.Unmarshal([]byte(out), &back)
		if strings.Contains(back["note"], secret) {
			t.Fatalf("secret survived in JSON %s", out)
		}
	})
}
