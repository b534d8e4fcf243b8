package redact

import (
	"reflect"
	"testing"
)

func TestNameWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"dbPassword", []string{"db", "password"}},
		{"DB_PASS", []string{"db", "pass"}},
		{"APIKey", []string{"api", "key"}},
		{"x-api-key", []string{"x", "api", "key"}},
		{"spring.datasource.password", []string{"spring", "datasource", "password"}},
		{"PGPASSWORD", []string{"pgpassword"}},
		{"oauth2Token", []string{"oauth2", "token"}},
		{"--password", []string{"password"}},
		{"", nil},
	}
	for _, tc := range tests {
		if got := nameWords(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("nameWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIsSecretKey(t *testing.T) {
	secret := []string{
		"password", "Password", "passwd", "pass", "DB_PASS", "dbPassword", "PGPASSWORD",
		"MYSQL_PWD", "pwd", "pw", "passphrase", "passcode", "secret", "client_secret",
		"clientSecret", "JWT_SECRET", "secret_key_base", "token", "access_token",
		"refreshToken", "GITHUB_TOKEN", "_authToken", "x-auth-token", "auth", "basic_auth",
		"authKey", "credentials", "creds", "api_key", "apiKey", "APIKey", "x-api-key",
		"apikey", "access_key", "aws_secret_access_key", "SecretAccessKey", "AccountKey",
		"SharedAccessKey", "private_key", "privateKey", "signing_key", "signingKey",
		"encryption_key", "ENCRYPTION_KEY", "session_key", "session_token", "sessionid",
		"master_key", "password_hash", "password2", "token_value", "api_key_b64",
		"Authorization", "Cookie", "Set-Cookie", "passwords", "secrets",
	}
	plain := []string{
		"password_reset_url", "token_count", "max_tokens", "tokens", "input_tokens",
		"token_type", "token_endpoint", "tokenizer", "secret_name", "secretName",
		"auth_type", "auth_url", "author", "authority", "authenticated", "oauth",
		"idempotency_key", "primary_key", "sort_key", "public_key", "key", "keys",
		"SharedAccessKeyName", "aws_access_key_id", "password_min_length", "bypass",
		"compass", "passed", "session_id", "ai_session_id", "sessions", "signature",
		"signing", "encryption", "keyboard", "monkey", "password_file", "token_file",
		"OLDPWD", "max_token", "",
	}
	for _, k := range secret {
		if !IsSecretKey(k) {
			t.Errorf("IsSecretKey(%q) = false, want true", k)
		}
	}
	for _, k := range plain {
		if IsSecretKey(k) {
			t.Errorf("IsSecretKey(%q) = true, want false", k)
		}
	}
	// in text, the header names are left to their own rules
	for _, k := range []string{"Authorization", "Cookie", "Set-Cookie", "cookie"} {
		if secretName(k, false) {
			t.Errorf("secretName(%q, text) = true", k)
		}
	}
}

func TestNewFamilies(t *testing.T) {
	check(t, []row{
		// cookies: names and attributes kept
		{"Cookie: a=1; b=2", "Cookie: a=[REDACTED]; b=[REDACTED]"},
		{"Set-Cookie: id=a3fWa; Expires=Thu, 21 Oct 2026 07:28:00 GMT; Secure", "Set-Cookie: id=[REDACTED]; Expires=Thu, 21 Oct 2026 07:28:00 GMT; Secure"},
		{"cookie: ws-sec", "cookie: ws-sec"},
		{"curl -H 'Cookie: sid=abc' https://x", "curl -H 'Cookie: sid=[REDACTED]' https://x"},
		{"Cookie: sid=abc and more prose", "Cookie: sid=[REDACTED] and more prose"},
		{"Cookie: a= ; b=2", "Cookie: a= ; b=[REDACTED]"},
		{`msg "Cookie: sid=abc" end`, `msg "Cookie: sid=[REDACTED]" end`},
		// flags
		{"app --password 'a b' next", "app --password '[REDACTED]' next"},
		{"app --password $DB_PASS", "app --password $DB_PASS"},
		{"app --password -v", "app --password -v"},
		{"app -token abc123", "app -token [REDACTED]"},
		{"orchestrate breadcrumb add --cookie ws-1", "orchestrate breadcrumb add --cookie ws-1"},
		{"pre-password value", "pre-password value"},
		// commands
		{"mysql -h db -p", "mysql -h db -p"},
		{"mysql -P3306 -pabc", "mysql -P3306 -p[REDACTED]"},
		{"curl -u 'ci:pw1' https://x", "curl -u 'ci:[REDACTED]' https://x"},
		{"machine h\n  login u\n  password p4ss", "machine h\n  login u\n  password [REDACTED]"},
		// prose
		{"the password is required.", "the password is required."},
		{"the password is swordfish.", "the password is [REDACTED]."},
		{"the token is refreshed hourly", "the token is refreshed hourly"},
		{"the token is abc123def", "the token is [REDACTED]"},
		{"the password is ''", "the password is ''"},
		// fields
		{"PWD=/home/x", "PWD=/home/x"},
		{"pwd=hunter2", "pwd=[REDACTED]"},
		{"token_url: password=abc", "token_url: password=[REDACTED]"},
		{`{"pass": 12, "x": 1`, `{"pass": "[REDACTED]", "x": 1`},
		{`pass: "a\"b" c`, `pass: "[REDACTED]" c`},
		{`pass: "unterminated`, `pass: "unterminated`},
		{"auth: false", "auth: false"},
	})
}
