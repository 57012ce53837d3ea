package gates

import (
	"regexp"
	"strings"
)

// prefixRule is a provider token recognisable by a fixed prefix and shape.
type prefixRule struct {
	name    string
	kws     []string // one must occur in the text (or, with lkw, in its lower-case form)
	lkw     bool
	re      *regexp.Regexp
	idCheck bool // the token may collide with identifiers (hf_requiredCharacteristic…)
	// wordStart: the match must not follow a letter, digit or '_' (the
	// pattern's leading \b, checked by hand so that the regexp keeps its
	// literal prefix and scans with strings.Index).
	wordStart bool
	// need, when set, is a cheap test every text holding a match passes:
	// the pattern is not run on a text that fails it.
	need func(text string) bool
}

// withNeed sets a rule's cheap precondition.
func withNeed(r prefixRule, need func(string) bool) prefixRule { r.need = need; return r }

// passwordHashStart says whether some '$' is followed by one of the
// password hash rule's scheme ids (1, 2b, 6, apr1, argon2id, pbkdf2…),
// another '$' and eight bytes that are neither white space nor quotes:
// what every text the rule matches holds. Shell text is full of
// "$name$other" ("$salt$Password"), which this does not let through to
// the pattern.
func passwordHashStart(text string) bool {
	for i := strings.IndexByte(text, '$'); i >= 0; {
		j := i + 1
		for j < len(text) && (isWordByte(text[j]) || text[j] == '-') {
			j++
		}
		if j > i+1 && j < len(text) && text[j] == '$' && passwordHashID(text[i+1:j]) && hashTail(text[j+1:]) {
			return true
		}
		k := strings.IndexByte(text[j:], '$')
		if k < 0 {
			return false
		}
		i = j + k
	}
	return false
}

// passwordHashID says whether id is a scheme id of the password hash
// rule's pattern, exactly as the pattern spells them.
func passwordHashID(id string) bool {
	switch id {
	case "1", "2", "2a", "2b", "2x", "2y", "5", "6", "7", "8", "9", "y", "apr1", "md5", "sha1",
		"argon2id", "argon2i", "argon2d", "krb5asrep", "krb5tgs", "krb5pa", "scrypt":
		return true
	}
	return strings.HasPrefix(id, "pbkdf2")
}

// hashTail says whether s starts with eight bytes none of which is white
// space (as \s reads it) or a quote: eight runes of [^\s'"] are at least
// that.
func hashTail(s string) bool {
	if len(s) < 8 {
		return false
	}
	for _, c := range []byte(s[:8]) {
		switch c {
		case ' ', '\t', '\n', '\f', '\r', '\'', '"':
			return false
		}
	}
	return true
}

// dotThen24 says whether some '.' follows an s (or ſ, which (?i) folds to
// s) and precedes 24 bytes that are ASCII letters, digits or parts of
// non-ASCII runes: what a Vault legacy token (s.XXXX…) needs.
func dotThen24(text string) bool {
	for i := 1; i < len(text); i++ {
		i += max(0, strings.IndexByte(text[i:], '.'))
		if text[i] != '.' {
			return false
		}
		if p := text[i-1]; p != 's' && p != 'S' && p != 0xBF || i+25 > len(text) {
			continue
		}
		ok := true
		for _, c := range []byte(text[i+1 : i+25]) {
			if byteClasses[c]&classWord == 0 && c < 0x80 || c == '_' {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func idc(r prefixRule) prefixRule { r.idCheck = true; return r }

// lk makes a rule's keyword match the lower-cased text.
func lk(r prefixRule, kw string) prefixRule { r.kws, r.lkw = strings.Split(kw, ","), true; return r }

func pr(name, kw, re string) prefixRule {
	ws := strings.HasPrefix(re, `\b`)
	re = strings.TrimPrefix(re, `\b`)
	return prefixRule{name: name, kws: strings.Split(kw, ","), re: regexp.MustCompile(re), wordStart: ws}
}

// prefixRules are provider tokens recognisable by a fixed prefix and shape.
var prefixRules = []prefixRule{
	pr("Anthropic API key", "sk-ant-", `sk-ant-[a-z]+\d\d-[A-Za-z0-9_-]{20,}`),
	pr("OpenAI API key", "sk-", `sk-(?:proj|svcacct|admin|None|[A-Za-z0-9]{0,12})-?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}|sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}`),
	pr("GitHub token", "ghp_,gho_,ghu_,ghs_,ghr_", `\bgh[pousr]_[A-Za-z0-9]{30,}`),
	pr("GitHub fine-grained token", "github_pat_", `github_pat_[A-Za-z0-9_]{40,}`),
	pr("GitLab token", "glpat-,glptt-,glrt-,gldt-,glsoat-,glcbt-,glimt-,glft-,gloas-,glagent-,glwt-", `\bgl(?:pat|ptt|rt|dt|soat|cbt|imt|ft|oas|agent|wt)-[A-Za-z0-9_.-]{20,}`),
	pr("Slack token", "xox", `\bxox(?:[abposrce]|e\.xox[bp])-(?:\d+-)+[A-Za-z0-9-]*[A-Za-z0-9]{8,}\b`),
	pr("Slack app token", "xapp-", `xapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{20,}`),
	pr("Slack webhook", "hooks.slack.com", `hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,}`),
	pr("AWS access key", "AKIA,ASIA,ABIA,ACCA,AIPA,ANPA,AROA,AGPA,A3T", `\b(?:AKIA|ASIA|ABIA|ACCA|AIPA|ANPA|AROA|AGPA|A3T[A-Z0-9])[A-Z0-9]{16}\b`),
	pr("Google API key", "AIza", `AIza[0-9A-Za-z_-]{35}`),
	pr("Stripe key", "_live_,_test_,_prod_", `\b(?:sk|rk|pk)_(?:live|test|prod)_[0-9A-Za-z]{20,}`),
	pr("Stripe webhook secret", "whsec_", `whsec_[A-Za-z0-9+/]{24,}`),
	pr("Twilio key", "SK", `\bSK[0-9a-f]{32}\b`),
	pr("SendGrid key", "SG.", `SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{30,}`),
	pr("Mailgun key", "key-", `\bkey-[0-9a-f]{32}\b`),
	pr("Mailchimp key", "-us", `\b[0-9a-f]{32}-us\d{1,2}\b`),
	pr("npm token", "npm_", `\bnpm_[A-Za-z0-9]{36}\b`),
	pr("PyPI token", "pypi-", `pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{40,}`),
	idc(pr("Hugging Face token", "hf_", `\bhf_[A-Za-z0-9]{30,}\b`)),
	idc(pr("Hugging Face org token", "api_org_", `\bapi_org_[A-Za-z0-9]{30,}\b`)),
	pr("Notion token", "ntn_", `\bntn_\d{11}[A-Za-z0-9]{20,}`),
	pr("Notion secret", "secret_", `\bsecret_[A-Za-z0-9]{43}\b`),
	pr("Sourcegraph token", "sgp_", `\bsgp_(?:local_|[a-f0-9]{16}_)?[A-Za-z0-9]{32,}`),
	pr("Sentry token", "sntr", `\bsntr(?:ys|yu)_[A-Za-z0-9+/=_-]{40,}`),
	pr("Fly.io token", "fo1_,fm1,fm2", `\b(?:fo1_[A-Za-z0-9_-]{30,}|fm[12][ar]?_[A-Za-z0-9+/=_-]{40,})`),
	pr("Square token", "sq0", `\bsq0(?:atp|csp)-[A-Za-z0-9_-]{20,}`),
	pr("Square access token", "EAAA", `\bEAAA[A-Za-z0-9_-]{40,}`),
	pr("Facebook token", "EAA", `\bEAA[A-Za-z0-9]{80,}`),
	lk(pr("Facebook app token", "|", `\b\d{15,16}\|[A-Za-z0-9_-]{25,}`), "facebook,fb_,app_token,access_token"),
	pr("Shopify token", "shp", `\bshp(?:ss|at|ca|pa)_[a-fA-F0-9]{32}\b`),
	pr("DigitalOcean token", "dop_v1,doo_v1,dor_v1", `\bdo[opr]_v1_[a-f0-9]{64}\b`),
	pr("Heroku token", "HRKU-", `HRKU-[A-Za-z0-9_-]{30,}`),
	pr("Vault token", "hv", `\bhv[sbr]\.[A-Za-z0-9_-]{24,}`),
	pr("Terraform Cloud token", ".atlasv1.", `[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}`),
	pr("Databricks token", "dapi", `\bdapi[a-f0-9]{32}`),
	pr("Doppler token", "dp.", `\bdp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,}`),
	pr("Dynatrace token", "dt0", `\bdt0[a-z]\d{2}\.[A-Z0-9]{24}\.[A-Z0-9]{64}`),
	pr("Grafana token", "glc_,glsa_", `\bgl(?:c|sa)_[A-Za-z0-9+/_=-]{32,}`),
	pr("Linear key", "lin_api_", `lin_api_[A-Za-z0-9]{40}`),
	pr("Postman key", "PMAK-", `PMAK-[a-f0-9]{24}-[a-f0-9]{34}`),
	pr("Pulumi token", "pul-", `\bpul-[a-f0-9]{40}\b`),
	pr("ReadMe key", "rdme_", `\brdme_[a-z0-9]{70}\b`),
	pr("RubyGems key", "rubygems_", `rubygems_[a-f0-9]{48}`),
	pr("Clojars token", "CLOJARS_", `CLOJARS_[a-z0-9]{60}`),
	pr("Atlassian token", "ATATT", `ATATT3[A-Za-z0-9_=+/-]{100,}`),
	pr("Airtable token", "pat", `\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b`),
	pr("Artifactory token", "AKCp", `\bAKCp[A-Za-z0-9]{60,}`),
	pr("Artifactory reference token", "cmVmdGtu", `cmVmdGtu[A-Za-z0-9]{56}`),
	pr("Adafruit key", "aio_", `\baio_[A-Za-z0-9]{28}\b`),
	pr("age secret key", "AGE-SECRET-KEY-1", `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`),
	pr("Alibaba key", "LTAI", `\bLTAI[A-Za-z0-9]{20}\b`),
	pr("Azure AD client secret", "Q~", `[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}`),
	pr("Azure storage key", "AccountKey=", `AccountKey=[A-Za-z0-9+/]{40,}={0,2}`),
	pr("Azure connection secret", "Secret=", `(?:SharedAccessKey|Secret)=[A-Za-z0-9+/]{30,}={0,2}`),
	pr("Cloudflare origin CA key", "v1.0-", `v1\.0-[a-f0-9]{24}-[a-f0-9]{140,}`),
	lk(pr("Discord bot token", ".", `\b[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,}`), "discord,bot"),
	pr("Dropbox token", "sl.", `\bsl\.[A-Za-z0-9_-]{130,}`),
	pr("Figma token", "figd_", `figd_[A-Za-z0-9_-]{40}`),
	pr("Infracost key", "ico-", `\bico-[A-Za-z0-9]{32}\b`),
	pr("Jina key", "jina_", `\bjina_[a-f0-9]{32}[A-Za-z0-9]{20,}`),
	pr("New Relic key", "NR", `\bNR(?:AK|JS|II)-[A-Z0-9]{19,}`),
	pr("OpenShift token", "sha256~", `sha256~[A-Za-z0-9_-]{40,}`),
	pr("PlanetScale token", "pscale_", `pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}`),
	pr("Prefect token", "pnu_", `\bpnu_[A-Za-z0-9]{36}\b`),
	pr("Salesforce token", "00D", `\b00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{60,}`),
	pr("Scalingo token", "tk-us-", `\btk-us-[A-Za-z0-9_-]{40,}`),
	pr("Brevo key", "xkeysib-", `xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}`),
	pr("Shippo token", "shippo_", `shippo_(?:live|test)_[a-f0-9]{40}`),
	pr("Telegram bot token", ":AA", `\b\d{8,10}:AA[A-Za-z0-9_-]{32,}`),
	pr("Twitter bearer token", "AAAAAAAAAAAAAAAAAAAAA", `AAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{30,}`),
	pr("Typeform token", "tfp_", `\btfp_[A-Za-z0-9_.=-]{40,}`),
	pr("Yandex token", "y0_", `\by0_[A-Za-z0-9_-]{50,}`),
	pr("1Password service account token", "ops_eyJ", `ops_eyJ[A-Za-z0-9+/=]{100,}`),
	pr("Bedrock API key", "bedrock-api-key-", `bedrock-api-key-[A-Za-z0-9+/=]{20,}`),
	pr("ClickHouse key", "4b1d", `\b4b1d[A-Za-z0-9]{38}\b`),
	pr("Perplexity key", "pplx-", `\bpplx-[A-Za-z0-9]{40,}`),
	pr("Groq key", "gsk_", `\bgsk_[A-Za-z0-9]{48,}`),
	pr("AWS AppSync key", "da2-", `\bda2-[a-z0-9]{26}\b`),
	pr("TeamCity token", "eyJ0eXAiOiAiVENWMiJ9", `eyJ0eXAiOiAiVENWMiJ9\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}`),
	pr("Hawk key", "hawk.", `\bhawk\.[A-Za-z0-9_-]{20}\.[A-Za-z0-9_-]{20}`),
	pr("Sidekiq credentials", "CONTRIBSYS", `(?i)BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM\s*[:=]\s*["']?[a-z0-9]{8}:[a-z0-9]{8}`),
	pr("Private Packagist token", "packagist_", `packagist_[ou][ru]t_[a-f0-9]{68}`),
	pr("Mapbox token", "k.eyJ", `\b[ps]k\.eyJ[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,}`),
	pr("Intra42 secret", "s-s4t2", `\bs-s4t2(?:ud|af)-[a-f0-9]{64}\b`),
	lk(pr("Okta token", "00", `\b00[A-Za-z0-9_-]{40}\b`), "okta"),
	pr("Thingsboard token", "thingsboard", `thingsboard\.cloud/api/v1/[a-z0-9]{20}\b`),
	pr("Blynk token", "blynk", `blynk\.cloud/external/api/[a-z]+\?token=[A-Za-z0-9_-]{32}`),
	lk(pr("Sumo Logic id", "su", `(?i)sumo\w*access\w*\W{1,4}su[A-Za-z0-9]{12}\b`), "sumo"),
	pr("LaunchDarkly key", "api-", `\b(?:api|sdk)-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}\b`),
	pr("Frame.io token", "fio-u-", `fio-u-[A-Za-z0-9_=-]{64}`),
	pr("Zendesk / Octopus API key", "API-", `\bAPI-[A-Z0-9]{26,32}\b`),
	withNeed(lk(pr("Vault legacy token", "s.", `(?i)(?:vault|token)\w*\W{1,5}s\.[A-Za-z0-9]{24}\b`), "vault,token"), dotThen24),
	pr("Azure DevOps token", "AZDO", `\b[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}\b`),
	pr("NuGet key", "oy2", `\boy2[a-z0-9]{43}\b`),
	pr("New Relic license key", "NRAL", `\b[A-Za-z0-9]{36}NRAL\b`),
	pr("Microsoft Teams webhook", "webhook.office.com", `[a-z0-9-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/-]{40,}`),
	withNeed(pr("password hash", "$", `\$(?:1|2[abxy]?|5|6|7|8|9|y|apr1|md5|sha1|argon2(?:id|i|d)|pbkdf2[-\w]*|krb5(?:asrep|tgs|pa)|scrypt)\$[^\s'"]{8,}`), passwordHashStart),
	pr(".NET credentials", "Credential", `NetworkCredential\(\s*"[^"]+"\s*,\s*"[^"$]{4,}"`),
	pr("directory credentials", "DirectoryEntry", `DirectoryEntry\(\s*"[^"]*"\s*,\s*"[^"]+"\s*,\s*"[^"$]{4,}"`),
	lk(pr("netrc credentials", "machine", `(?i)\bmachine\s+\S+\s+login\s+\S+\s+password\s+[^\s$]{4,}`), "machine"),
	pr("Azure App Config secret", "Secret=", `Id=[A-Za-z0-9:_-]{8,};Secret=[A-Za-z0-9+/=]{20,}`),
}

// vendors are services whose name alone, as a key, holds their credential
// (postmark: "…", cloudflare: "…").
var vendors = []string{"postmark", "heroku", "snyk", "hubspot", "messagebird", "mailgun", "sendgrid", "datadog", "newrelic",
	"pagerduty", "algolia", "asana", "intercom", "mapbox", "twilio", "nexmo", "vonage", "zendesk", "freshdesk", "bitbucket",
	"circleci", "travis", "codecov", "sentry", "rollbar", "bugsnag", "honeycomb", "launchdarkly", "contentful", "cloudflare",
	"fastly", "netlify", "vercel", "shopify", "stripe", "paypal", "braintree", "plaid", "coinbase", "okta", "auth0", "segment",
	"mixpanel", "amplitude", "airtable", "notion", "linear", "jira", "gitlab", "github", "dockerhub", "openai", "anthropic",
	"cohere", "huggingface", "replicate", "pinecone", "supabase", "firebase", "grafana", "dynatrace", "splunk", "sumologic",
	"telegram", "discord", "slack", "dropbox", "typeform", "mailchimp", "postman", "yandex", "alibaba", "sonar", "octopus",
	"clickhouse", "databricks", "doppler", "fly", "infracost", "meraki", "pulumi", "rubygems", "scalingo", "sendinblue", "square", "terraform", "facebook", "twitter", "gitter", "nuget", "artifactory", "jfrog", "azure", "gcp", "aws"}

// vendorWord says whether a key names a vendor as one of its words
// (snyk_token, hubspotKey), not inside another word (CameraKit).
func vendorWord(key string) bool {
	for _, part := range strings.FieldsFunc(key, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') }) {
		for _, w := range camelWords(part) {
			lw := strings.ToLower(w)
			for _, v := range vendors {
				if lw == v || lw == part && strings.HasPrefix(strings.ToLower(part), v) {
					return true
				}
			}
		}
		lp := strings.ToLower(part)
		for _, v := range vendors {
			if lp == v {
				return true
			}
		}
	}
	return false
}
