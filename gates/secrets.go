package gates

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"regexp"
	"slices"
	"strings"
	"unsafe"
)

// The secrets vector uses its own rule set rather than gitleaks as a
// library. Measured on the public gate corpus (2026-11, this machine,
// loaded): gitleaks v8.30.1's default configuration found 312 of the 449
// secret samples (69 %) at 134 µs per action and brings 70 modules; the
// gate's budget is 50 µs per action for the whole stack. The rules below
// are written from the public rule catalogues' families (gitleaks, Nosey
// Parker, detect-secrets), not copied from them, and generalise by shape:
//
//   - provider tokens with a fixed prefix (sk-ant-, ghp_, xoxb-, AKIA, hf_…),
//   - structural secrets (PEM private keys, JWTs, credentials in URLs,
//     curl -u user:pass, Authorization headers, .NET and Gradle credential
//     blocks, Kubernetes Secret data),
//   - a key named like a secret assigned a value that is not a reference
//     or a placeholder (password = …, "api_key": …, SNYK_TOKEN ?= …),
//   - long high-entropy tokens mixing letters and digits.
//
// Each finding is strong (deny when it would leave) or weak (ask): the
// weak tier catches shapes that are often but not always secrets. The
// scanner holds no state: its rules are immutable package tables.
type secretScanner struct{}

func newSecretScanner() *secretScanner { return &secretScanner{} }

// secretHit is one finding.
type secretHit struct {
	rule   string
	strong bool
}

var (
	rePEM        = regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`)
	reJWTAt      = regexp.MustCompile(`^eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{4,}\.`)
	reURLCreds   = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://([^/\s:@'"]+):([^/\s'"]+)@[^\s/'"]+`)
	urlCreds     = schemeAnchored{re: regexp.MustCompile(`^` + reURLCreds.String())}
	reAuthHeader = mustCompileFoldAt(`\b(?:authorization|x-[a-z-]*(?:key|token|auth)[a-z-]*|api-?key|token|private-token|x-api-key|apikey)['"]?\s*[:=]\s*['"]?\s*(?:(?:bearer|basic|token|api-token|bot|digest|sso-key|key)\s+)?([A-Za-z0-9._~+/=:-]{8,})`, "authorization", "x-", "api", "token", "private-token")
	reGradle     = regexp.MustCompile(`(?s)credentials\s*\{\s*username\s+["'][^"']+["']\s*password\s+["']([^"']+)["']`)
	reXMLPass    = mustCompileFold(`key="[^"]*password[^"]*"\s+value="([^"]+)"`)
	reK8sSecret  = regexp.MustCompile(`(?is)kind:\s*['"]?secret['"]?`)
	reK8sData    = regexp.MustCompile(`(?m)^` + k8sDataBody + `$`)
	k8sData      = lineAnchored{re: regexp.MustCompile(`^` + k8sDataBody + `(?m:$)`)}
	reToken      = regexp.MustCompile(`[A-Za-z0-9+/=_.~-]{16,}`)
	reSaidSecret = withPre(mustCompileFoldAt(`\b(?:`+strings.Join(saidWords, "|")+`)\s*(?:is|:|=)\s*['"]?([A-Za-z0-9@#$%^&*_+=!-]{4,})`, saidWords...), saidSecretAt)
	reConnPass   = withNeedByte(mustCompileFold(`(?:^|;)\s*(?:password|pwd)\s*=\s*([^;'"\s]+)\s*;`), ';')
	reCredFlag   = mustCompileFold(`(?:\bpsexec\b[^\n]*\s-p\s+\S+|\s-password\s+\S+|\s--password[= ]\S+|\s-p\s*'[^']+'|mysql[^\n]*\s-p\S+)`)
)

// saidWords start the pattern of a password or code written out.
var saidWords = []string{"password", "passcode", "pin", "secret key", "security code", "api key", "access code", "verification code", "one-time code", "otp", "2fa code", "recovery code"}

// saidSecretAt says whether reSaidSecret's pattern, anchored, can match
// the lower-cased low at c: one of saidWords, blanks (\s), "is", ':' or
// '=', blanks, a quote or not, and four value characters. Each part is
// forced (the blanks before a separator that is not blank, the quote
// before a value that holds none), so this is exactly whether it
// matches, read without the regexp package.
func saidSecretAt(low string, c int) bool {
	for _, w := range saidWords {
		if !strings.HasPrefix(low[c:], w) {
			continue
		}
		j := skipRegexpSpace(low, c+len(w))
		switch {
		case strings.HasPrefix(low[j:], "is"):
			j += 2
		case j < len(low) && (low[j] == ':' || low[j] == '='):
			j++
		default:
			continue
		}
		j = skipRegexpSpace(low, j)
		if j < len(low) && (low[j] == '"' || low[j] == '\'') {
			j++
		}
		n := 0
		for ; j < len(low) && n < 4 && saidValueByte(low[j]); j++ {
			n++
		}
		if n == 4 {
			return true
		}
	}
	return false
}

// skipRegexpSpace skips what \s matches: tab, newline, form feed,
// carriage return and space.
func skipRegexpSpace(s string, j int) int {
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\f' || s[j] == '\r') {
		j++
	}
	return j
}

// saidValueByte is [A-Za-z0-9@#$%^&*_+=!-].
func saidValueByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("@#$%^&*_+=!-", c) >= 0
}

// k8sDataBody is the Kubernetes Secret data pattern between its (?m)^
// and its $.
const k8sDataBody = `\s*(?:data:)?\s*['"]?[.\w-]+['"]?:\s*[>|]?\s*\n?\s*['"]?([A-Za-z0-9+/]{8,}={0,2})['"]?\s*`

// Replacers the scan uses (immutable, safe for concurrent use).
var (
	pemBodyJoiner = strings.NewReplacer("\"", "", "+", "", "\n", "", " ", "") // a key body as one run
	unquoter      = strings.NewReplacer(`"`, "", `'`, "", `\`, "")            // quotes and escapes dropped
)

// scan returns the strongest finding in text: the first strong one in
// the rules' order, else the first weak one.
func (s *secretScanner) scan(text string) (secretHit, bool) {
	var weak secretHit
	haveWeak := false
	var strong secretHit
	haveStrong := false
	s.each(text, false, func(f secretFinding) bool {
		if f.strong {
			strong, haveStrong = f.secretHit, true
			return false
		}
		if !haveWeak {
			weak, haveWeak = f.secretHit, true
		}
		return true
	})
	if haveStrong {
		return strong, true
	}
	return weak, haveWeak
}

// secretFinding is one finding and where it lies: text[start:end] is the
// secret itself (a password's value, not the key naming it).
type secretFinding struct {
	secretHit
	start, end int
}

// each runs the rules over text in order and yields their findings until
// yield returns false. The gate (all false) reads as far as it must to
// judge an action: the first few matches of each rule. The redactor (all
// true) reads every match of every rule, so that nothing placed after
// look-alikes escapes it.
func (s *secretScanner) each(text string, all bool, yield func(secretFinding) bool) {
	if len(text) < 8 {
		return
	}
	// limit is the gate's bound on a rule's matches, or none.
	limit := func(n int) int {
		if all {
			return -1
		}
		return n
	}
	// at locates a finding: v is a slice of text the rules cut out. A
	// value that is not (none is, today) is looked for; one not in the
	// text is still a finding, of no span: the gate counts it, and the
	// redactor has nothing to replace.
	at := func(h secretHit, v string) bool {
		i, ok := offsetIn(text, v)
		if !ok {
			if i = strings.Index(text, v); i < 0 || v == "" {
				return yield(secretFinding{secretHit: h})
			}
		}
		return yield(secretFinding{secretHit: h, start: i, end: i + len(v)})
	}
	kw := secretKW
	var hitsBuf kwHits
	hits := &hitsBuf
	kw.m.scan(text, hits)
	// The prefix rules some keyword of which occurs, in order.
	rules := kw.candidateRules(hits)
	for w := range rules {
		for ; rules[w] != 0; rules[w] &= rules[w] - 1 {
			i := w*64 + bits.TrailingZeros64(rules[w])
			r := prefixRules[i]
			if r.need != nil && !r.need(text) {
				continue
			}
			if !prefixRuleHits(r, kw.rules[i], hits, text, limit(8), yield) {
				return
			}
		}
	}
	if hits.has(kw.privateKey) {
		for _, loc := range rePEM.FindAllStringIndex(text, limit(1)) {
			body := text[loc[1]:]
			if len(body) > 600 {
				body = body[:600]
			}
			if reToken.MatchString(pemBodyJoiner.Replace(body)) && longestB64(body) >= 24 {
				if !yield(secretFinding{secretHit: secretHit{rule: "PEM private key", strong: true}, start: loc[0], end: pemEnd(text, loc[1])}) {
					return
				}
				continue
			}
			if !yield(secretFinding{secretHit: secretHit{rule: "PEM private key header"}, start: loc[0], end: loc[1]}) {
				return
			}
		}
	}
	if hits.has(kw.jwt) {
		for _, loc := range jwtsIn(hits, text, limit(1)) {
			if !yield(secretFinding{secretHit: secretHit{rule: "JSON Web Token", strong: true}, start: loc[0], end: loc[1]}) {
				return
			}
		}
	}
	if hits.has(kw.scheme) {
		// A URL with credentials lies within one line (the pattern holds
		// no newline) and holds "://" and "@".
		for _, m := range firstMatchesInLines(hits, text, kw.schemeLines, urlCreds, '@', limit(8)) {
			if p := strings.ToLower(m[2]); !reference(m[2]) && !placeholder(m[2]) && p != "password" && p != "pass" && p != "passwd" && p != "pwd" && p != "xxx" && p != "yyy" {
				if !at(secretHit{rule: "credentials in a URL", strong: true}, m[2]) {
					return
				}
			}
		}
	}
	if hits.has(kw.dashU) {
		for _, arg := range curlUserArgs(text, limit(8)) {
			v := unquoter.Replace(arg)
			user, pass, ok := strings.Cut(v, ":")
			if !ok {
				continue
			}
			if pass == "" && realPassword(user, 8) && mixed(user) >= 3 || pass != "" && realPassword(pass, 6) {
				// The span: what follows the colon, or the whole
				// argument when it is all the secret.
				span := arg
				if _, p, _ := strings.Cut(arg, ":"); pass != "" {
					span = p
				}
				if !at(secretHit{rule: "user:password on a command line", strong: true}, span) {
					return
				}
			}
		}
	}
	if hits.has(kw.creds) {
		for _, m := range reGradle.FindAllStringSubmatch(text, limit(1)) {
			if !reference(m[1]) && !at(secretHit{rule: "credentials block", strong: true}, m[1]) {
				return
			}
		}
	}
	for _, m := range findInLines(hits, text, kw.said, reSaidSecret, limit(32)) {
		v := strings.TrimRight(m[1], ".!")
		if strings.IndexAny(v, "0123456789") >= 0 && !reference(v) && !placeholder(v) {
			if !at(secretHit{rule: "a password or code written out", strong: true}, v) {
				return
			}
		}
	}
	for _, m := range findInLines(hits, text, kw.connPass, reConnPass, limit(32)) {
		if !reference(m[1]) && len(m[1]) >= 4 {
			if !at(secretHit{rule: "password in a connection string", strong: true}, m[1]) {
				return
			}
		}
	}
	for _, m := range findInLines(hits, text, kw.xmlPass, reXMLPass, limit(1)) {
		if !reference(m[1]) && len(m[1]) >= 6 {
			if !at(secretHit{rule: "password in configuration", strong: true}, m[1]) {
				return
			}
		}
		if !all {
			break // the gate reads the first match only
		}
	}
	for _, m := range findInLines(hits, text, kw.authHeader, reAuthHeader, limit(32)) {
		v := strings.TrimRight(m[1], `'"`)
		if !reference(v) && !placeholder(v) && len(v) >= 12 && mixed(v) >= 2 && !strings.Contains(v, "://") {
			if !at(secretHit{rule: "credential in a header", strong: true}, v) {
				return
			}
		}
	}
	for _, m := range vendorMatches(hits, text) {
		v := m[2]
		if vendorWord(m[1]) && !placeholder(v) && !identifierLike(v) && !alphaRun(v) && (isUUID(v) || mixed(v) >= 2 && entropy(v) >= 3.2) {
			if !at(secretHit{rule: "a service credential", strong: true}, v) {
				return
			}
		}
	}
	if !s.assignments(text, hits, limit(32), at) {
		return
	}
	if hits.has(kw.kind) && hits.has(kw.secret) && k8sDataCandidate(text) && reK8sSecret.MatchString(text) {
		for _, m := range k8sData.FindAllStringSubmatch(text, limit(16)) {
			if len(m[1]) >= 8 && strings.HasSuffix(m[1], "=") || len(m[1]) >= 12 && mixed(m[1]) >= 3 {
				if !at(secretHit{rule: "Kubernetes Secret data", strong: true}, m[1]) {
					return
				}
			}
		}
	}
	var tokBuf [64]string
	hexes, toks := hexAndTokens(text, tokBuf[:0], all)
	for _, f := range hexes {
		if !yield(f) {
			return
		}
	}
	if len(hexes) > 0 && !all {
		return // the gate reads no token once a hex secret is found
	}
	for _, tok := range toks {
		if h, v, ok := tokenSecret(tok, text); ok {
			if !at(h, v) {
				return
			}
		}
	}
	for _, m := range findInLines(hits, text, kw.credFlag, reCredFlag, limit(1)) {
		if !at(secretHit{rule: "password given on a command line"}, credFlagValue(m[0])) {
			return
		}
		if !all {
			break
		}
	}
}

// prefixRuleHits runs one prefix rule whose keywords occur in text,
// yielding each match that is not a placeholder (at most n are read, or
// all when n < 0); false when yield asked to stop.
func prefixRuleHits(r prefixRule, g kwGroup, hits *kwHits, text string, n int, yield func(secretFinding) bool) bool {
	for _, loc := range ruleMatches(r, g, hits, text, n) {
		m := text[loc[0]:loc[1]]
		if r.wordStart && loc[0] > 0 && isWordByte(text[loc[0]-1]) {
			continue
		}
		if placeholder(m) || r.idCheck && identifierLike(m) || placeholderTail(text[loc[1]:]) {
			continue
		}
		if !yield(secretFinding{secretHit: secretHit{rule: r.name, strong: true}, start: loc[0], end: loc[1]}) {
			return false
		}
	}
	return true
}

// jwtsIn finds the JSON Web Tokens in text: \beyJ….eyJ….…, tried only
// where "eyJ" starts a word (the \b), anchored there; the first n (all
// when n < 0), each as [start, end) to the end of its signature.
func jwtsIn(hits *kwHits, text string, n int) [][2]int {
	var out [][2]int
	for _, o := range hits.occ {
		if n >= 0 && len(out) >= n {
			break
		}
		if o.id != secretKW.jwt {
			continue
		}
		p := int(o.end) - len("eyJ")
		if p > 0 && isWordByte(text[p-1]) || len(out) > 0 && p < out[len(out)-1][1] {
			continue
		}
		if loc := reJWTAt.FindStringIndex(text[p:]); loc != nil {
			e := p + loc[1]
			for e < len(text) && (isWordByte(text[e]) || text[e] == '-' || text[e] == '=') {
				e++
			}
			out = append(out, [2]int{p, e})
		}
	}
	return out
}

// pemEnd is where the private key whose header ends at i ends: after its
// END line, or, without one, after the run of lines of base64 below it.
func pemEnd(text string, i int) int {
	if j := strings.Index(text[i:], "-----END"); j >= 0 {
		e := i + j + len("-----END")
		if k := strings.Index(text[e:], "-----"); k >= 0 && !strings.Contains(text[e:e+k], "\n") {
			return e + k + len("-----")
		}
		return e
	}
	e := i
	for e < len(text) && (isB64Std(text[e]) || strings.IndexByte("= \t\r\n\"+", text[e]) >= 0) {
		e++
	}
	return e
}

// offsetIn is where v lies in text, v being a slice of text (the rules
// cut their matches out of the text, never copy them): the redactor needs
// the place of each secret, and its bytes alone do not tell it (a value
// may occur more than once). False when v is empty or not such a slice.
func offsetIn(text, v string) (int, bool) {
	if v == "" || text == "" {
		return 0, false
	}
	d := int(uintptr(unsafe.Pointer(unsafe.StringData(v))) - uintptr(unsafe.Pointer(unsafe.StringData(text))))
	if d < 0 || d > len(text)-len(v) {
		return 0, false
	}
	return d, true
}

// credFlagValue is the password in a match of reCredFlag: the quoted
// value of -p '…', what follows -p in mysql -pSECRET, else the last word.
func credFlagValue(m string) string {
	m = strings.TrimRight(m, " \t\r\n")
	if strings.HasSuffix(m, "'") {
		if i := strings.LastIndexByte(m[:len(m)-1], '\''); i >= 0 {
			return m[i+1 : len(m)-1]
		}
	}
	i := strings.LastIndexAny(m, " \t=")
	v := m[i+1:]
	if strings.HasPrefix(v, "-p") && len(v) > 2 {
		return v[2:]
	}
	return v
}

// assignments looks for KEY = VALUE where KEY names a secret, reading at
// most total pairs (all when total < 0), and gives each finding to at
// with its value; false when at asked to stop.
func (s *secretScanner) assignments(text string, hits *kwHits, total int, at func(secretHit, string) bool) bool {
	for _, m := range findIndexInAssignLines(hits, text, total) {
		key := strings.ToLower(strings.Trim(text[m[2]:m[3]], `'"[]`))
		val := text[m[4]:m[5]]
		if m[4] > 0 && (text[m[4]-1] == '"' || text[m[4]-1] == '\'') {
			// A quoted value may hold spaces and punctuation: take it whole.
			q := text[m[4]-1]
			if end := strings.IndexByte(text[m[4]:], q); end >= 0 {
				val = text[m[4] : m[4]+end]
			}
		}
		if strings.HasSuffix(val, "..") || strings.HasSuffix(val, "…") {
			continue // an elided example: sk-ant-...
		}
		val = strings.TrimRight(val, `\.`)
		if reference(val) || placeholder(val) || alphaRun(val) {
			continue
		}
		if !secretKey(key) {
			if vendorKey(key) && (isUUID(val) || len(val) >= 20 && mixed(val) >= 2 && entropy(val) >= 3.2) {
				if !at(secretHit{rule: "a " + key + " credential", strong: true}, val) {
					return false
				}
			}
			continue
		}
		switch {
		case passwordKey(key):
			letters := strings.IndexFunc(val, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) < 0
			camel := letters && mixed(val) == 2
			if realPassword(val, 6) && !camel && (len(val) >= 8 || mixed(val) >= 2) {
				if !at(secretHit{rule: "password assigned in clear", strong: true}, val) {
					return false
				}
				continue
			}
			if len(val) >= 4 && !camel {
				if !at(secretHit{rule: "a password-like value"}, val) {
					return false
				}
			}
		default:
			if identifierLike(val) {
				continue
			}
			if isUUID(val) || len(val) >= 12 && mixed(val) >= 2 && entropy(val) >= 2.8 || len(val) >= 16 && entropy(val) >= 3.2 {
				if idKey(key) && isUUID(val) {
					continue
				}
				if !at(secretHit{rule: "secret assigned to " + key, strong: true}, val) {
					return false
				}
				continue
			}
			if len(val) >= 6 && !identifierLike(val) {
				if !at(secretHit{rule: "a value assigned to " + key}, val) {
					return false
				}
			}
		}
	}
	return true
}

// secretKey says whether a key names a secret (not its name, id, length…).
func secretKey(key string) bool {
	k := strings.Trim(key, "._-")
	for _, suf := range []string{"name", "names", "_id", "-id", ".id", "ids", "type", "length", "len", "size", "file", "path", "url", "uri",
		"field", "label", "min", "max", "count", "format", "prefix", "suffix", "header", "param", "policy", "ref", "env", "var",
		"hint", "regex", "pattern", "mode", "expiry", "expires", "ttl", "version", "provider", "helper", "manager", "required",
		"enabled", "secretsid", "id", "keyframedistance", "pressed", "pair", "store", "_url", "endpoint", "host", "issuer", "scope", "placeholder", "input", "button", "form", "reset", "forgot", "confirm", "validation", "policy", "rules"} {
		if strings.HasSuffix(k, suf) && !strings.HasSuffix(k, "accessid") && !strings.HasSuffix(k, "access_id") {
			return false
		}
	}
	for _, w := range []string{"jsonwebtoken", "tokeniz", "keyword", "passport", "passthrough", "bypass", "compass", "author", "authentic", "authoriz", "pathname", "patch", "path", "pattern", "patron", "dispatch", "compat"} {
		if strings.Contains(k, w) {
			return false
		}
	}
	if strings.HasPrefix(k, "forgot") || strings.HasPrefix(k, "reset") || strings.Contains(k, "keyboard") || strings.Contains(k, "monkey") || strings.Contains(k, "turkey") || strings.Contains(k, "hockey") || strings.Contains(k, "donkey") {
		return false
	}
	return true
}

func vendorKey(k string) bool {
	for _, v := range vendors {
		if strings.Contains(k, v) {
			return true
		}
	}
	return false
}

// identifierLike says whether a token reads as a program identifier
// (camelCase or snake_case words, CONSTANT_NAMES), not random characters.
func identifierLike(tok string) bool {
	digitRuns := 0
	for i := 0; i < len(tok); i++ {
		if tok[i] >= '0' && tok[i] <= '9' && (i == 0 || tok[i-1] < '0' || tok[i-1] > '9') {
			digitRuns++
		}
	}
	if digitRuns >= 3 {
		return false
	}
	if !strings.ContainsAny(tok, "_-./:") && strings.ToLower(tok) == tok {
		return false // one lower-case run: nothing marks word boundaries
	}
	parts := strings.FieldsFunc(tok, func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == '/' || r == ':' })
	long, short := 0, 0
	for _, p := range parts {
		for _, w := range camelWords(p) {
			if isDigits(w) {
				if len(w) > 4 {
					return false
				}
				continue
			}
			switch {
			case len(w) >= 4 && wordLike(w):
				long++
			case len(w) < 3 || !wordLike(w):
				short++
			}
		}
	}
	return long >= 2 && long >= short
}

// wordLike says whether a run of letters could be a word of a language:
// it has a vowel and no more than four consonants in a row.
func wordLike(w string) bool {
	vowels, run := 0, 0
	for i := 0; i < len(w); i++ {
		switch w[i] | 0x20 {
		case 'a', 'e', 'i', 'o', 'u', 'y':
			vowels++
			run = 0
		default:
			run++
			if run > 4 {
				return false
			}
		}
	}
	return vowels > 0
}

// camelWords splits camelCase and CONSTANT runs into words.
func camelWords(s string) []string {
	var out []string
	start := 0
	for i := 1; i < len(s); i++ {
		prevUpper := s[i-1] >= 'A' && s[i-1] <= 'Z'
		curUpper := s[i] >= 'A' && s[i] <= 'Z'
		prevDigit := s[i-1] >= '0' && s[i-1] <= '9'
		curDigit := s[i] >= '0' && s[i] <= '9'
		nextLower := i+1 < len(s) && s[i+1] >= 'a' && s[i+1] <= 'z'
		if curUpper && !prevUpper || curUpper && prevUpper && nextLower || curDigit != prevDigit {
			out = append(out, s[start:i])
			start = i
		}
	}
	return append(out, s[start:])
}

func passwordKey(k string) bool {
	return strings.Contains(k, "pass") || strings.Contains(k, "pwd") || strings.HasSuffix(k, "secret") && !strings.Contains(k, "client") && !strings.Contains(k, "api")
}

func idKey(k string) bool { return strings.HasSuffix(k, "id") || strings.Contains(k, "_id") }

// reference says whether a value points at a secret instead of holding one:
// a variable, a template, an environment lookup, a function call.
func reference(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" {
		return true
	}
	if strings.ContainsAny(v[:1], "$%<[{(@&*#!`\\") {
		return true
	}
	low := strings.ToLower(v)
	for _, p := range []string{"${", "{{", "$(", "env.", "env[", "process.env", "os.environ", "os.getenv", "getenv", "environ", "vault_", "secrets.", "var.", "input(", "null", "none", "nil", "undefined", "true", "false", "this.", "self.", "config.", "settings.", "params.", "args.", "props.", "data."} {
		if strings.HasPrefix(low, p) || strings.Contains(low, "${") || strings.Contains(low, "{{") {
			return true
		}
	}
	if strings.HasSuffix(v, "()") || strings.Contains(v, "(") {
		return true
	}
	// dotted identifiers: aws_db_instance.default.password, Foo.Bar
	if strings.Count(v, ".") >= 1 && reDotted.MatchString(v) {
		return true
	}
	return false
}

// placeholder says whether a token is an example, not a secret: runs of
// x, *, # or a repeated character, the words EXAMPLE/YOUR/REDACTED…,
// alphabet runs.
func placeholder(v string) bool {
	low := strings.ToLower(v)
	if placeholderWords.contains(low) || strings.Contains(low, "…") {
		return true
	}
	run, best := 1, 1
	for i := 1; i < len(v); i++ {
		if v[i] == v[i-1] {
			run++
			if run > best {
				best = run
			}
		} else {
			run = 1
		}
	}
	if best*5 >= len(v)*2 && len(v) > 4 {
		return true
	}
	return len(v) >= 20 && fewRunes(v, 6)
}

// placeholderWords mark example values (the ASCII ones; "…" is checked
// apart).
var placeholderWords = func() *kwMatcher {
	b := newKwBuilder()
	for _, w := range []string{"example", "xxxx", "your", "redacted", "placeholder", "insert", "changeme", "dummy", "<", "****", "####", "...", "____", "----", "here", "sample", "replace", "token_here", "notreal", "not-set", "not_set", "todo"} {
		b.add(w, true)
	}
	return b.build()
}()

// fewRunes says whether v holds at most n distinct runes.
func fewRunes(v string, n int) bool {
	var ascii [2]uint64
	var others []rune
	count := 0
	for _, r := range v {
		if r < 128 {
			if ascii[r/64]&(1<<(r%64)) != 0 {
				continue
			}
			ascii[r/64] |= 1 << (r % 64)
		} else {
			if slices.Contains(others, r) {
				continue
			}
			others = append(others, r)
		}
		if count++; count > n {
			return false
		}
	}
	return true
}

// realPassword says whether a password-ish value is a real one: long
// enough, not a reference, not one of the words people put as stand-ins.
func realPassword(v string, min int) bool {
	if len(v) < min || reference(v) || placeholder(v) {
		return false
	}
	switch strings.ToLower(v) {
	case "password", "passwd", "pass", "secret", "test", "user", "username", "admin", "xxx", "yyy", "pwd", "changeit", "foo", "bar", "foobar", "hunter2", "letmein":
		return false
	}
	return true
}

// mixed counts character classes: lower, upper, digit, other.
func mixed(v string) int {
	var l, u, d, o int
	for _, r := range v {
		switch {
		case r >= 'a' && r <= 'z':
			l = 1
		case r >= 'A' && r <= 'Z':
			u = 1
		case r >= '0' && r <= '9':
			d = 1
		default:
			o = 1
		}
	}
	return l + u + d + o
}

// k8sDataCandidate says whether text holds a value the Kubernetes Secret
// data rule could report: a run of 8 or more [A-Za-z0-9+/] that starts
// after ':', white space, '>', '|' or a quote (or the text's start),
// followed by at most two '=' and no further one, which ends in '=' or is
// 12 long and mixes three kinds of character. Every match of reK8sData's
// group is such a run with its '='s (the bytes the pattern allows before
// the group are not in the run's class, and what it allows after the
// group is neither), so a text without one reports nothing, whatever the
// pattern finds; the pattern (a multi-line backtracking search) is not
// run on it.
func k8sDataCandidate(text string) bool {
	for i := 0; i < len(text); {
		if !isB64Std(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isB64Std(text[j]) {
			j++
		}
		start := i
		i = j
		if j-start < 8 {
			continue
		}
		if start > 0 {
			switch text[start-1] {
			case ':', ' ', '\t', '\n', '\v', '\f', '\r', '>', '|', '\'', '"':
			default:
				continue
			}
		}
		k := j
		for k < len(text) && k-j < 3 && text[k] == '=' {
			k++
		}
		if k-j > 2 {
			continue
		}
		v := text[start:k]
		if len(v) >= 8 && v[len(v)-1] == '=' || len(v) >= 12 && mixed(v) >= 3 {
			return true
		}
	}
	return false
}

func isB64Std(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'
}

// longestMixedSegment is the length of the longest segment of tok (split at
// - _ . / :) that mixes letters with digits. Generated secrets carry a long
// random run of both; dated file names (archive/inbox-2026-11-21.org),
// versions and slugs only carry words and numbers side by side.
func longestMixedSegment(tok string) int {
	best := 0
	for start := 0; start < len(tok); {
		end := start
		for end < len(tok) && !segmentSep(tok[end]) {
			end++
		}
		if end-start > best && hasDigitAndLetter(tok[start:end]) {
			best = end - start
		}
		start = end + 1
	}
	return best
}

func segmentSep(c byte) bool { return c == '_' || c == '-' || c == '.' || c == '/' || c == ':' }

// entropy is the Shannon entropy of v in bits per character.
func entropy(v string) float64 {
	if v == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(v); i++ {
		counts[v[i]]++
	}
	h := 0.0
	n := float64(len(v))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// placeholderTail says whether what follows a match marks it as an
// example (xoxp-…-#####, AKIA…XXXX).
func placeholderTail(rest string) bool {
	rest = strings.TrimPrefix(rest, "-")
	return strings.HasPrefix(rest, "#") || strings.HasPrefix(rest, "*") || strings.HasPrefix(rest, "xxx") || strings.HasPrefix(rest, "XXX")
}

// alphaRun says whether v holds 8 letters of the alphabet in a row, the
// mark of a made-up value (sk_abcdefghijklmnop…).
func alphaRun(v string) bool {
	low := strings.ToLower(v)
	run := 1
	for i := 1; i < len(low); i++ {
		if low[i] >= 'a' && low[i] <= 'z' && low[i] == low[i-1]+1 {
			run++
			if run >= 8 {
				return true
			}
		} else {
			run = 1
		}
	}
	return false
}

// sequential spots keyboard and counting runs (0123456, abcdef) that
// mark made-up example values.
func sequential(v string) bool {
	low := strings.ToLower(v)
	for _, run := range []string{"0123456", "123456789", "abcdef", "qwerty", "asdfgh"} {
		if strings.Contains(low, run) {
			return true
		}
	}
	return false
}

func isUUID(v string) bool {
	return len(v) == 36 && v[8] == '-' && v[13] == '-' && v[18] == '-' && v[23] == '-' && strings.Trim(strings.ToLower(v), "0123456789abcdef-") == ""
}

// isHexString says whether s is made of hex digits only (no rune outside
// ASCII lower-cases to one).
func isHexString(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHexByte(s[i]) {
			return false
		}
	}
	return true
}

// longestB64 is the length of the longest run of base64 characters.
func longestB64(s string) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// reDotted matches dotted identifiers (aws_db_instance.default.password).
var reDotted = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$`)

// tokenSecret judges a bare token: long, high entropy, letters mixed with
// digits, not a hash, a path, an identifier or a placeholder.
// It returns the token as judged (without the punctuation around it).
func tokenSecret(tok, text string) (secretHit, string, bool) {
	tok = strings.Trim(tok, "=.-_~/")
	// Every test before the entropy only rules a token out, so the cheap
	// and selective ones go first.
	if len(tok) < 20 || !hasDigitAndLetter(tok) || longestMixedSegment(tok) < 12 {
		return secretHit{}, "", false
	}
	if strings.Count(tok, "/") >= 2 || strings.Count(tok, ".") >= 2 && !strings.Contains(tok, "=") {
		return secretHit{}, "", false // a path or a dotted name
	}
	if isHexString(tok) {
		return secretHit{}, "", false // hashes, commit ids, checksums
	}
	if isUUID(tok) || placeholder(tok) || identifierLike(tok) || sequential(tok) {
		return secretHit{}, "", false
	}
	i, ok := offsetIn(text, tok)
	if !ok {
		i = strings.Index(text, tok)
	}
	if i >= 0 && placeholderTail(text[i+len(tok):]) {
		return secretHit{}, "", false
	}
	before := strings.ToLower(text[max(0, i-24):max(0, i)])
	for _, ctx := range []string{"sha", "md5", "commit", "checksum", "integrity", "digest", "hash", "@", "srcrev", "fingerprint", "etag", "nonce"} {
		if strings.Contains(before, ctx) {
			return secretHit{}, "", false
		}
	}
	e := entropy(tok)
	threshold := 4.0
	if len(tok) >= 32 {
		threshold = 3.8
	}
	if e >= threshold && mixed(tok) >= 3 {
		return secretHit{rule: "high-entropy token", strong: true}, tok, true
	}
	if e >= 3.3 && mixed(tok) >= 2 {
		return secretHit{rule: "token-like string"}, tok, true
	}
	return secretHit{}, "", false
}

// hasDigitAndLetter says whether s holds an ASCII digit and an ASCII
// letter.
func hasDigitAndLetter(s string) bool {
	digit, letter := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		}
		if digit && letter {
			return true
		}
	}
	return false
}

// secretsVector keeps secrets from leaving: a strong finding in anything
// that goes out (a message, a send, an http request, a command, code) is a
// deny; a weak one a deny too when it would leave this machine (http,
// send, a command reaching another machine), an ask otherwise. Writing a
// secret into the notes asks, because the notes are what the model is
// shown. Writing a redaction mark into the notes asks too: the model was
// shown a mark where the notes hold a secret (or private text), and a
// write that carries the mark back would put it in the secret's place.
func (d *dispatcher) secretsVector(ctx context.Context, a Action, args []arg, env *Env) Result {
	var weak, mark string
	var weakArg arg
	for _, g := range args {
		text := a.Arg(g.name)
		if g.role == RoleContent && mark == "" {
			if m, ok := redactionMark(text); ok {
				mark = fmt.Sprintf("the %s writes %s into the notes: the model was shown that mark in place of what the notes hold, and writing it back would replace it", a.Tool, m)
			}
		}
		h, ok := d.secrets.scan(text)
		if !ok {
			continue
		}
		if h.strong {
			if g.role == RoleContent {
				return Asked(fmt.Sprintf("the %s writes what looks like a secret (%s) into the notes, which the model is shown", a.Tool, h.rule))
			}
			return Denied(fmt.Sprintf("the %s %s carries what looks like a secret (%s)", a.Tool, g.name, h.rule))
		}
		if weak == "" && g.role != RoleContent {
			// A likely secret written into the notes stays on this
			// machine, in text the user wrote the action for.
			weak, weakArg = fmt.Sprintf("the %s %s may carry a secret (%s)", a.Tool, g.name, h.rule), g
		}
	}
	if h, ok := d.secrets.scan(a.Explanation); ok && h.strong {
		return Denied("the explanation carries what looks like a secret (" + h.rule + "); it would be logged")
	}
	if mark != "" && weak == "" {
		return Asked(mark)
	}
	if weak != "" {
		// Leaving this machine, even a likely secret is one too many: an
		// http request, a message sent, a command that reaches another
		// machine (curl, ssh, git push, a DNS lookup…).
		switch weakArg.role {
		case RoleURL, RoleBody, RoleMessage, RoleRecipient:
			return Denied(weak + ", and it would leave this machine")
		case RoleCommand:
			cmd, cwd := weakArg.command(a)
			if rep := shellOf(ctx, env, cmd, cwd); len(rep.egress) > 0 {
				return Denied(weak + ", and " + strings.Join(limitList(rep.egress, 2), ", ") + " would carry it off this machine")
			}
		}
		return Asked(weak)
	}
	return Passed("")
}

var (
	assignKeywords = []string{"pass", "pwd", "secret", "token", "key", "cred", "auth", "login", "_pat", "pat_", "dsn", "accessid", "access_id"}
	saidKeywords   = []string{"password", "passcode", "pin ", "pin:", "pin=", "secret key", "security code", "api key", "access code", "verification code", "one-time code", "otp", "2fa code", "recovery code"}
)
