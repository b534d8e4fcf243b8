package redact

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Fake secrets of every family, assembled at run time so no scanner mistakes
// this file for a leak.
var (
	ghp    = "ghp_" + strings.Repeat("A1b2C3d4E5", 4)[:36]
	ghPAT  = "github_pat_" + "11ABCDEFG0" + strings.Repeat("x9Y8", 10)
	aws    = "AKIA" + "IOSFODNN7EXAMPLE"
	awsSTS = "ASIA" + "Y34FZKBOKMUTVV7A"
	awsSec = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
	google = "AIza" + "SyA1234567890abcdefghijklmnopqrstuv"
	slack  = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	oai    = "sk-" + "proj-" + strings.Repeat("Ab1", 16)
	oaiOld = "sk-" + strings.Repeat("Zz9", 16)
	ant    = "sk-" + "ant-api03-" + strings.Repeat("Qq7_", 20)
	azAD   = "abc" + "8Q~" + strings.Repeat("xY1.", 9)[:34]
	jwt    = "eyJ" + "hbGciOiJIUzI1NiJ9.eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	pem    = "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEowIBAAKCAQEA7v1xq\nZ2mO8Y3jk+/abc=\n-----END RSA " + "PRIVATE KEY-----"

	hfTok      = "hf_" + strings.Repeat("AbC3", 9)[:34]
	sendgrid   = "SG." + strings.Repeat("aB1", 8)[:22] + "." + strings.Repeat("xY9_", 11)[:43]
	pypiTok    = "pypi-" + "AgEIcHlwaS5vcmc" + strings.Repeat("Qw3", 20)
	stripeLive = "sk_" + "live_" + strings.Repeat("4eC39HqLyjWDarjtT1zdp7dc", 1)
	npmTok     = "npm_" + strings.Repeat("a1B2", 9)
	glpat      = "glpat-" + strings.Repeat("x1Y2z", 4)
	twilioSK   = "SK" + strings.Repeat("0a1b2c3d", 4)
	shopify    = "shpat_" + strings.Repeat("0a1b2c3d", 4)
	vaultTok   = "hvs." + strings.Repeat("CAESIJ", 5)
	ageKey     = "AGE-SECRET-KEY-1" + strings.Repeat("QW3RTY", 10)[:58]
)

type row struct{ in, want string }

func check(t *testing.T, rows []row) {
	t.Helper()
	for _, r := range rows {
		if got := String(r.in); got != r.want {
			t.Errorf("String(%q)\n got %q\nwant %q", r.in, got, r.want)
		}
	}
}

func TestBearerAndAuthorization(t *testing.T) {
	check(t, []row{
		{"Authorization: Bearer T", "Authorization: Bearer [REDACTED]"},
		{"authorization: bearer abc.def.ghi", "authorization: bearer [REDACTED]"},
		{"Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic [REDACTED]"},
		{"Authorization: token " + ghp, "Authorization: token [REDACTED]"},
		{"Authorization: xyz123", "Authorization: [REDACTED]"},
		{"Proxy-Authorization: Basic Zm9vOmJhcg==", "Proxy-Authorization: Basic [REDACTED]"},
		{`curl -H "Authorization: Bearer s3cr3t" https://x`, `curl -H "Authorization: Bearer [REDACTED]" https://x`},
		{`{"Authorization": "Bearer abc"}`, `{"Authorization": "[REDACTED]"}`},
		{"use Bearer eyJabc123def456ghi now", "use Bearer [REDACTED] now"},
		{"Bearer 0123456789abcdef0123", "Bearer [REDACTED]"},
	})
}

func TestPrivateKey(t *testing.T) {
	check(t, []row{
		{"key:\n" + pem + "\nafter", "key:\n[REDACTED]\nafter"},
		{"-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH " + "PRIVATE KEY-----", "[REDACTED]"},
		{"-----BEGIN " + "PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nbm90IGVuZGVk", "[REDACTED]"},
		{"-----BEGIN EC " + "PRIVATE KEY-----\\nMHcCAQEEIB\\n-----END EC " + "PRIVATE KEY-----", "[REDACTED]"},
		{"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"},
	})
}

func TestURLCredentials(t *testing.T) {
	check(t, []row{
		{"postgres://u:PASS@db:5432/app", "postgres://u:[REDACTED]@db:5432/app"},
		{"DATABASE_URL=mysql://root:p@ss@localhost/x", "DATABASE_URL=mysql://root:[REDACTED]@localhost/x"},
		{"https://x-access-token:abc123@github.com/o/r.git", "https://x-access-token:[REDACTED]@github.com/o/r.git"},
		{"https://example.com:8443/path", "https://example.com:8443/path"},
		{"https://user@example.com/", "https://user@example.com/"},
		{"redis://:hunter2@cache:6379", "redis://:[REDACTED]@cache:6379"},
	})
}

func TestCloudKeys(t *testing.T) {
	check(t, []row{
		{"id " + aws + " end", "id [REDACTED] end"},
		{"id " + awsSTS, "id [REDACTED]"},
		{"aws_secret_access_key = " + awsSec, "aws_secret_access_key = [REDACTED]"},
		{"AWS_SECRET_ACCESS_KEY=" + awsSec, "AWS_SECRET_ACCESS_KEY=[REDACTED]"},
		{"key=" + google, "key=[REDACTED]"},
		{"maps " + google + ".", "maps [REDACTED]."},
		{"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=bXlrZXk+Zm9v/YmFy==;EndpointSuffix=core.windows.net",
			"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=[REDACTED];EndpointSuffix=core.windows.net"},
		{"https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&sig=AbC%2Bdef%3D&se=2026",
			"https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&sig=[REDACTED]&se=2026"},
		{"Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=AbCd+ef/gh=",
			"Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=[REDACTED]"},
		{"client_secret=AbC~123", "client_secret=[REDACTED]"},
		{"AZURE_CLIENT_SECRET: " + azAD, "AZURE_CLIENT_SECRET: [REDACTED]"},
		{"secret " + azAD + " here", "secret [REDACTED] here"},
	})
}

func TestVendorTokens(t *testing.T) {
	check(t, []row{
		{"use " + ghp, "use [REDACTED]"},
		{"use " + ghPAT + ".", "use [REDACTED]."},
		{"gho_" + strings.Repeat("a", 36), "[REDACTED]"},
		{"slack " + slack, "slack [REDACTED]"},
		{"https://hooks.slack.com/services/T000/B000/XXXXXXXX", "https://hooks.slack.com/[REDACTED]"},
		{"openai " + oai, "openai [REDACTED]"},
		{"openai " + oaiOld, "openai [REDACTED]"},
		{"anthropic " + ant, "anthropic [REDACTED]"},
		{"jwt " + jwt, "jwt [REDACTED]"},
	})
}

func TestSecretFields(t *testing.T) {
	check(t, []row{
		{"password: hunter2", "password: [REDACTED]"},
		{"  db_password: 'hunter2' # prod", "  db_password: '[REDACTED]' # prod"},
		{"passwd=hunter2 next", "passwd=[REDACTED] next"},
		{"export API_KEY=abc123", "export API_KEY=[REDACTED]"},
		{"apikey: abc", "apikey: [REDACTED]"},
		{"GITHUB_TOKEN=abc", "GITHUB_TOKEN=[REDACTED]"},
		{"x --token=s3cr3t", "x --token=[REDACTED]"},
		{`"access_key": "AbC"`, `"access_key": "[REDACTED]"`},
		{`{"client_secret": "a\"b", "n": 1}`, `{"client_secret": "[REDACTED]", "n": 1}`},
		{`{"token": 12345}`, `{"token": "[REDACTED]"}`},
		{`msg {"token": 12345, "a": "b"`, `msg {"token": "[REDACTED]", "a": "b"`},
		{`note: \"secret\": \"xyz\"`, `note: \"secret\": \"[REDACTED]\"`},
		{"secret := abc", "secret := [REDACTED]"},
		{"password: ", "password: "},
		{`password: ""`, `password: ""`},
		{"token: true", "token: true"},
		{"accessToken: abc", "accessToken: [REDACTED]"},
	})
}

func TestFalsePositives(t *testing.T) {
	for _, s := range []string{
		"Implement a token bucket rate limiter.",
		"Build the password reset flow (AC 3).",
		"See docs/secret-santa.md and docs/token-bucket.md",
		"max_tokens: 4096",
		"token_count: 12",
		"tokens: 5",
		"idempotency_key: 3f2a",
		"the bearer of bad news",
		"Bearer tokens are checked by the gateway.",
		"risk-assessment-for-the-payment-module",
		"https://github.com/orchestrate-dev/orchestrate",
		"git@github.com:org/repo.git",
		"passwords: []",
		"secrets:",
		"Phase 3/4: Implementation -- @dev",
		"AKIA is the prefix of AWS key ids",
		"",
	} {
		if got := String(s); got != s {
			t.Errorf("String(%q) = %q, want unchanged", s, got)
		}
	}
}

func TestJSONKeepsDocument(t *testing.T) {
	for _, r := range []row{
		{`{"a":"token=abc123","password":"p","apiKey":42,"list":["` + oaiOld + `"],"ok":"fine","n":1.5,"b":true,"z":null,"idempotency_key":"k"}`,
			`{"a":"token=[REDACTED]","password":"[REDACTED]","apiKey":"[REDACTED]","list":["[REDACTED]"],"ok":"fine","n":1.5,"b":true,"z":null,"idempotency_key":"k"}`},
		{"{\n  \"credentials\": {\"user\": \"u\", \"n\": [1, -2e3]},\n  \"x\": \"ok\"\n}",
			"{\n  \"credentials\": {\"user\": \"[REDACTED]\", \"n\": [\"[REDACTED]\", \"[REDACTED]\"]},\n  \"x\": \"ok\"\n}"},
		{`["Authorization: Bearer T", "` + pem + `"]`, `["Authorization: Bearer [REDACTED]", "[REDACTED]"]`},
		{`"nested {\"password\":\"p\"}"`, `"nested {\"password\":\"[REDACTED]\"}"`},
		{`{"max_tokens": 10, "ai_session_id": "s"}`, `{"max_tokens": 10, "ai_session_id": "s"}`},
	} {
		got := string(JSON([]byte(r.in)))
		if got != r.want {
			t.Errorf("JSON(%s)\n got %s\nwant %s", r.in, got, r.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("JSON(%s) is not valid JSON: %s", r.in, got)
		}
		if s := String(r.in); s != got {
			t.Errorf("String and JSON differ on %s: %s", r.in, s)
		}
	}
	if got := string(JSON([]byte("not json password=x"))); got != "not json password=[REDACTED]" {
		t.Errorf("JSON of text = %q", got)
	}
}

func TestBytes(t *testing.T) {
	in := []byte("token=abc")
	if got := string(Bytes(in)); got != "token=[REDACTED]" {
		t.Errorf("Bytes = %q", got)
	}
	clean := []byte("nothing")
	if got := Bytes(clean); &got[0] != &clean[0] {
		t.Error("clean input copied")
	}
}

// TestLargeInput: the cost stays linear — an 8 MiB input full of near
// misses and secrets is redacted in well under the time a quadratic or
// backtracking pattern would take.
func TestLargeInput(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	var b strings.Builder
	for b.Len() < (8<<20)/raceScale {
		b.WriteString("password: x token= -----BEGIN RSA " + "PRIVATE KEY----- AAAA Authorization: postgres://u:")
		b.WriteString(strings.Repeat("a", 200))
		b.WriteString(" " + ghp + " sk-\n")
	}
	start := time.Now()
	out := String(b.String())
	if d := time.Since(start); d > 60*time.Second { // quadratic would take hours; a loaded 2-core runner takes ~20 s
		t.Errorf("8 MiB took %v", d)
	}
	if strings.Contains(out, ghp) {
		t.Error("secret survived")
	}
}

// TestAdversarialInputs: inputs made of one near-miss repeated stay linear.
func TestAdversarialInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	for _, p := range []string{"Authorization: ", "x://u:", `password: "`, `password: \"a`, "Bearer ",
		"-----BEGIN " + "PRIVATE KEY-----", "-----BEGIN " + "PRIVATE KEY-----\"", "token=", "AKIA", "&sig=",
		"'token': 'a", "https://hooks.slack.com/services/", `"token":`} {
		s := strings.Repeat(p, (1<<20)/raceScale/len(p))
		start := time.Now()
		String(s)
		if d := time.Since(start); d > 15*time.Second {
			t.Errorf("1 MiB of %q took %v", p, d)
		}
	}
}

func BenchmarkString(b *testing.B) {
	text := strings.Repeat("A story about a token bucket and the password reset flow. ", 1<<14) +
		"password: hunter2 " + ghp
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		String(text)
	}
}

// refsDocument is a --json document shaped like a resume preflight of a
// workflow naming n files: many short keys and path values, no secrets.
func refsDocument(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"workflow":{"id":"workflow:sdc-1","files":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n    {\"path\": \"src/mod%03d/pkg/file-%05d.go\", \"phase\": \"3_implementation\", \"critical\": true, \"from\": \"state\", \"status\": \"unchanged\", \"size\": %d}", i%500, i, i*7)
	}
	b.WriteString("]}}\n")
	return []byte(b.String())
}

func BenchmarkJSONRefs(b *testing.B) {
	doc := refsDocument(5000)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		JSON(doc)
	}
}

// A text that is not JSON until a secret in it is redacted (a control
// character in a string) is redacted as the document it became: the values
// of its secret members go too, and a second String changes nothing.
func TestRedactTextThatBecomesJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\"pass\":\"\v\",\"auth\":{\"\":1}}", `{"pass":"[REDACTED]","auth":{"":"[REDACTED]"}}`},
		{"{\"token\":\"a\tb\",\"password\":7}", `{"token":"[REDACTED]","password":"[REDACTED]"}`},
	} {
		once := String(tc.in)
		if once != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, once, tc.want)
		}
		if twice := String(once); twice != once {
			t.Errorf("String(%q) twice = %q, once %q", tc.in, twice, once)
		}
		if got := string(Bytes([]byte(tc.in))); got != tc.want {
			t.Errorf("Bytes(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := string(JSON([]byte(tc.in))); got != tc.want {
			t.Errorf("JSON(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
