package redact

import (
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
)

// tokenRules are the secrets recognisable by their shape alone: a
// provider's prefix and a length. Each family is its own rule, run only
// when its prefix occurs, so a text pays for the families it mentions.
var tokenRules = []rule{
	tokenRule("aws access key id",
		[]string{"akia", "asia", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "a3t"},
		`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[A-Z0-9]{16}`),
	tokenRule("google", []string{"aiza", "ya29.", "gocspx-"},
		`\b(?:AIza[0-9A-Za-z_-]{35}`+ // API keys
			`|ya29\.[0-9A-Za-z_-]{20,}`+ // OAuth access tokens
			`|GOCSPX-[0-9A-Za-z_-]{24,})`), // OAuth client secrets
	tokenRule("github", []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{22,})`),
	tokenRule("gitlab", []string{"glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glimt-", "gloas-", "glsoat-", "glagent-"},
		`\bgl(?:pat|dt|rt|ptt|cbt|ft|imt|oas|soat|agent)-[A-Za-z0-9_-]{20,}`),
	tokenRule("slack", []string{"xox", "xapp-"},
		`\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]+-[A-Za-z0-9-]{10,})`),
	// OpenAI sk-…, sk-proj-…, sk-svcacct-…, Anthropic sk-ant-…
	tokenRule("openai and anthropic", []string{"sk-"}, `\bsk-[A-Za-z0-9][A-Za-z0-9_-]{19,}`),
	tokenRule("azure ad client secret", []string{"q~"}, `\b[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}`),
	tokenRule("jwt", []string{"eyj"}, `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
	tokenRule("npm", []string{"npm_"}, `\bnpm_[A-Za-z0-9]{36}`),
	tokenRule("pypi", []string{"pypi-ag"}, `\bpypi-Ag[A-Za-z0-9_-]{50,}`),
	tokenRule("stripe", []string{"sk_live_", "rk_live_", "sk_test_", "rk_test_", "whsec_"},
		`\b(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9+/=]{24,})`),
	tokenRule("hugging face", []string{"hf_"}, `\bhf_[A-Za-z0-9]{30,}`),
	tokenRule("sendgrid", []string{"sg."}, `\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}`),
	tokenRule("shopify", []string{"shpat_", "shpca_", "shppa_", "shpss_"}, `\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`),
	tokenRule("digitalocean", []string{"dop_v1_", "doo_v1_", "dor_v1_"}, `\bdo[opr]_v1_[a-f0-9]{64}`),
	tokenRule("hashicorp vault", []string{"hvs.", "hvb.", "hvr."}, `\bhv[sbr]\.[A-Za-z0-9_-]{24,}`),
	tokenRule("databricks", []string{"dapi"}, `\bdapi[a-f0-9]{32}\b`),
	tokenRule("grafana", []string{"glsa_", "glc_"}, `\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})`),
	tokenRule("linear", []string{"lin_api_"}, `\blin_api_[A-Za-z0-9]{40}`),
	tokenRule("postman", []string{"pmak-"}, `\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}`),
	tokenRule("doppler", []string{"dp."}, `\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}`),
	tokenRule("sentry", []string{"sntrys_", "sntryu_"}, `\bsntry[su]_[A-Za-z0-9+/=_]{40,}`),
	tokenRule("atlassian", []string{"atatt3"}, `\bATATT3[A-Za-z0-9_=-]{50,}`),
	tokenRule("age", []string{"age-secret-key-"}, `\bAGE-SECRET-KEY-1[0-9A-Z]{58}`),
	casedTokenRule("telegram bot", ":AA", `\b[0-9]{8,10}:AA[A-Za-z0-9_-]{33}\b`),
	casedTokenRule("mailgun", "key-", `\bkey-[0-9a-f]{32}\b`),
	tokenRule("square", []string{"sq0atp-", "sq0csp-", "eaaa"}, `\b(?:sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}|EAAA[A-Za-z0-9_-]{60})`),
	{
		// Twilio account and API key ids: AC or SK and 32 hex digits.
		name:  "twilio",
		words: []string{"ac", "sk"},
		cased: []string{"AC", "SK"},
		re:    lazyre.New(`\b(?:AC|SK)[0-9a-f]{32}\b`),
	},
}

// casedTokenRule is a family of tokens whose prefix is written one way
// only, and common in other cases.
func casedTokenRule(name, prefix, pattern string) rule {
	return rule{name: name, words: []string{strings.ToLower(prefix)}, cased: []string{prefix}, re: lazyre.New(pattern)}
}

// tokenRule is a family of tokens whose whole match is the secret.
func tokenRule(name string, words []string, pattern string) rule {
	return rule{name: name, words: words, re: lazyre.New(pattern)}
}
