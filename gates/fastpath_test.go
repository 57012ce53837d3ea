package gates

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/syntax"

	"pp-lsp/internal/testenv"
)

// The scanners find their keywords in one automaton pass, split texts
// into words without allocating, and skip work a cheap precondition
// rules out. Each shortcut is checked here against the straightforward
// code it replaced (kept below as the oracle), on hand-made texts, on
// every text of the shared corpus when it is there, and on random
// splices of them; FuzzTextScanners does the same on anything.

// equivalenceTexts are the texts the oracles are run on.
func equivalenceTexts(t testing.TB) []string {
	t.Helper()
	texts := []string{
		"", "a", "export GITHUB_TOKEN=ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A\n",
		"curl -u admin:S3cr3t!pass https://example.com", "Authorization: Bearer abcDEF123456ghiJKL\nX-Api-Key: 9f8e7d6c5b4a",
		"password = \"hunter22!\"\napi_key: 'x'\nsecret_token := s.AbCdEfGhIjKlMnOpQrStUvWx\n",
		"jdbc:postgresql://db.example.com/app?user=app&password=Zx9!kq2", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig",
		"xeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig", "vault token: s.ABCDEFGHIJKLMNOPQRSTUVWX ok", "token ſ.ABCDEFGHIJKLMNOPQRSTUV\u212aX", "my_token = S.abcdefghijklmnopqrstuv\u017fx9",
		"From: a@b.example\nTo: c@d.example\nDate: today\n\nhi", "===== notes/todo.org =====\n* TODO x\n", "hi\nFrom: a@b.example\nCc: c@d.example",
		"a@b.co c@d.co e@f.co g@h.co i@j.co", "PASSWORD IS Hunter2Go; Api-Key: AbCdEf123456789", "Server=x;Password=Sup3r;", "psexec \\\\h -u a -P 'x y'",
		"<add KEY=\"DbPassword\" VALUE=\"s3cret!x\"/>", "MySQL -uroot -pS3cret", "hash $6$rounds=5000$abcdefgh$xyz and $2b$12$abcdefghijklmnopqrstuv and $pbkdf2-sha256$29000$N2YuZ", "$1 $2 ${x}$y $$ $a-b$c", "X-Auth-Token: ABCdef123456789", "paſsword: h4ckme\u212a", `{"amount": 0.01, "memo": "x"}`, ` {"amount":0.5,"note":"n"}`, "null",
		"secret: 0123456789abcdef0123456789abcdef\npassword 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"The İNSERT key and the \u212aelvin sign; ÀÉÎ õü — naïve café.", "key-0123456789abcdef0123456789abcdef\tAKIAIOSFODNN7EXAMPL3\r\n",
		"#!/bin/bash\nf() { f | f & }; f\n:(){ :|:& };:\n", "line one\n\nline three with https://user:pw@host/x and http://h/", "a\x00b\x7fc\u200bd",
	}
	if dir := sharedDirIfPresent(t); dir != "" {
		for _, recs := range readCorpus(t, filepath.Join(dir, "corpus", "gates")) {
			for _, r := range recs {
				var a struct {
					Args        map[string]any `json:"args"`
					Explanation string         `json:"explanation"`
				}
				if json.Unmarshal(r.Action, &a) != nil {
					continue
				}
				for _, v := range a.Args {
					if s, ok := v.(string); ok && len(s) < 64<<10 {
						texts = append(texts, s)
					}
				}
				texts = append(texts, a.Explanation)
			}
		}
	}
	slices.Sort(texts) // the corpus comes as a map: a fixed order keeps the splices below the same
	rng := rand.New(rand.NewSource(7))
	n := len(texts)
	for i := 0; i < 600; i++ {
		a, b := texts[rng.Intn(n)], texts[rng.Intn(n)]
		k := 0
		if len(a) > 0 {
			k = rng.Intn(len(a) + 1)
		}
		texts = append(texts, strings.ToValidUTF8(a[:k]+"\n"+b, "?"), strings.ToUpper(a)+" "+b)
	}
	return texts
}

// sharedDirIfPresent is the shared folder, or "" when this clone has none
// (the hand-made and random texts still run).
func sharedDirIfPresent(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(testenv.ModuleRoot(t), "..", "shared")
	if _, err := os.Stat(filepath.Join(dir, "corpus")); err != nil {
		return ""
	}
	return dir
}

// oracleForLines is the per-line search the keyword index replaced.
func oracleForLines(low string, kws []string, fn func(start, end int) bool) {
	for start := 0; start < len(low); {
		end := strings.IndexByte(low[start:], '\n')
		if end < 0 {
			end = len(low)
		} else {
			end += start
		}
		for _, k := range kws {
			if strings.Contains(low[start:end], k) {
				if !fn(start, end) {
					return
				}
				break
			}
		}
		start = end + 1
	}
}

// checkKeywords compares the automaton with strings.Contains, keyword by
// keyword, and its line index with the per-line search, for every group
// of the secret and code keyword sets.
func checkKeywords(t testing.TB, text string) {
	low := asciiLower(text)
	for _, set := range []struct {
		m      *kwMatcher
		groups []kwGroup
	}{
		{secretKW.m, append(append([]kwGroup(nil), secretKW.rules...), secretKW.said, secretKW.connPass, secretKW.xmlPass, secretKW.authHeader, secretKW.vendors, secretKW.assign, secretKW.credFlag, secretKW.schemeLines)},
		{codeKW.m, []kwGroup{codeKW.write, codeKW.del, codeKW.exec, codeKW.netSend, codeKW.net, codeKW.socket, codeKW.shellOut, codeKW.decode, codeKW.dynEval, codeKW.cred, codeKW.env, codeKW.deser, codeKW.home, codeKW.join}},
	} {
		var h kwHits
		set.m.scan(text, &h)
		var serial kwHits
		set.m.scanSerial(text, &serial)
		if set.m.rows != nil && len(text)/2 >= set.m.maxLen-1 {
			var pair kwHits
			set.m.scanPair(text, &pair)
			if pair.seen != serial.seen || !slices.Equal(pair.occ, serial.occ) {
				t.Fatalf("the scan in two halves found %v, one after the other %v in %q", pair.occ, serial.occ, text)
			}
		}
		if h.seen != serial.seen || !slices.Equal(h.occ, serial.occ) {
			t.Fatalf("scan found %v, one after the other %v in %q", h.occ, serial.occ, text)
		}
		any := false
		for id, k := range set.m.kws {
			hay := text
			if k.fold {
				hay = low
			}
			want := strings.Contains(hay, k.text)
			any = any || want
			if h.has(kwID(id)) != want {
				t.Fatalf("keyword %q (fold %v): found %v, Contains says %v in %q", k.text, k.fold, h.has(kwID(id)), want, text)
			}
		}
		if set.m.contains(text) != any {
			t.Fatalf("contains = %v, want %v in %q", !any, any, text)
		}
		for _, g := range set.groups {
			var got, want [][2]int
			h.forLines(text, g, func(s, e int) bool { got = append(got, [2]int{s, e}); return true })
			// The oracle reads each keyword on its own haystack: a group
			// is all folded or all exact.
			var kws []string
			hay := low
			for _, id := range g.ids {
				kws = append(kws, set.m.kws[id].text)
				if !set.m.kws[id].fold {
					hay = text
				}
			}
			oracleForLines(hay, kws, func(s, e int) bool { want = append(want, [2]int{s, e}); return true })
			if !slices.Equal(got, want) {
				t.Fatalf("lines of %q: got %v, want %v in %q", kws, got, want, text)
			}
		}
	}
}

func TestKeywordMatcherAgreesWithContains(t *testing.T) {
	for _, text := range equivalenceTexts(t) {
		checkKeywords(t, text)
	}
	// Texts full of keywords, at every length around the two halves'
	// seam: the second half's scan notes more than it keeps on the stack.
	for _, unit := range []string{"password token key ", "AKIA-u ://eyJ", "x", "sk-ant-api03-"} {
		for n := 1; n < 80; n++ {
			text := strings.Repeat(unit, n)
			checkKeywords(t, text)
			checkKeywords(t, text[1:])
		}
	}
}

// oracleSecretWord is the pattern secretWord replaced.
var oracleSecretWord = regexp.MustCompile(`(?i)pass(?:wd|word|phrase)?|pwd|secret|token|api[_.-]?key|apikey|access[_.-]?key|accesskey|auth[_.-]?key|private[_.-]?key|client[_.-]?secret|credentials?|user_auth|session[_.-]?key|signing[_.-]?key|master[_.-]?key|account[_.-]?key|app[_.-]?key|license[_.-]?key|login|accessid|access[_.-]?id|api[_.-]?secret|auth[_.-]?token|authtoken|basic[_.-]?auth|http[_.-]?auth|_pat|pat_|dsn|preshared[_.-]?key`)

// oracleJWT is the pattern jwtIn replaced.
var oracleJWT = regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`)

// oracleVaultLegacy is the Vault legacy token rule's pattern, whose texts
// must all pass dotThen24.
var oracleVaultLegacy = regexp.MustCompile(`(?i)(?:vault|token)\w*\W{1,5}s\.[A-Za-z0-9]{24}\b`)

// firstHexAndTokens is hexAndTokens as the gate reads it: the first hex
// secret, or the tokens.
func firstHexAndTokens(text string) (secretHit, bool, []string) {
	hexes, toks := hexAndTokens(text, nil, false)
	if len(hexes) > 0 {
		return hexes[0].secretHit, true, toks
	}
	return secretHit{}, false, toks
}

// oracleHexNearSecretWord is hexAndTokens' hex rule as it scanned every
// byte.
func oracleHexNearSecretWord(text, low string) (secretHit, bool) {
	for i := 0; i < len(text); {
		if !isHexByte(text[i]) || i > 0 && isWordByte(text[i-1]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isHexByte(text[j]) {
			j++
		}
		if n := j - i; n >= 32 && n <= 64 && (j == len(text) || !isWordByte(text[j])) {
			h := text[i:j]
			before := low[max(0, i-120):i]
			if !placeholder(h) && entropy(h) > 3 && strings.IndexAny(h, "abcdefABCDEF") >= 0 {
				for _, w := range []string{"password", "passwd", "secret", "token", "api key", "apikey"} {
					if strings.Contains(before, w) {
						return secretHit{rule: "hex secret next to the word " + w, strong: true}, true
					}
				}
			}
		}
		i = j + 1
	}
	return secretHit{}, false
}

// oraclePlaceholder is placeholder as it counted distinct runes in a map
// and searched for each word.
func oraclePlaceholder(v string) bool {
	low := strings.ToLower(v)
	for _, w := range []string{"example", "xxxx", "your", "redacted", "placeholder", "insert", "changeme", "dummy", "<", "****", "####", "...", "…", "____", "----", "here", "sample", "replace", "token_here", "notreal", "not-set", "not_set", "todo"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	run, best := 1, 1
	for i := 1; i < len(v); i++ {
		if v[i] == v[i-1] {
			run++
			best = max(best, run)
		} else {
			run = 1
		}
	}
	if best*5 >= len(v)*2 && len(v) > 4 {
		return true
	}
	if len(v) >= 20 {
		distinct := map[rune]bool{}
		for _, r := range v {
			distinct[r] = true
		}
		return len(distinct) <= 6
	}
	return false
}

// checkSecretShortcuts compares each shortcut of the secret scanner with
// the code it replaced.
func checkSecretShortcuts(t testing.TB, text string) {
	low := asciiLower(text)
	var h kwHits
	secretKW.m.scan(text, &h)
	cands := secretKW.candidateRules(&h)
	for i := range prefixRules {
		if got, want := cands[i/64]&(1<<(i%64)) != 0, h.any(secretKW.rules[i]); got != want {
			t.Fatalf("prefix rule %s: a candidate %v, its keywords occur %v in %q", prefixRules[i].name, got, want, text)
		}
	}
	// Keys: every word-ish run of the text, as assignPairs cuts them.
	for _, key := range strings.FieldsFunc(text, func(r rune) bool {
		return r > unicode.MaxASCII || !(isWordByte(byte(r)) || r == '.' || r == '-' || r == '[')
	}) {
		if secretWord(key) != oracleSecretWord.MatchString(key) {
			t.Fatalf("secretWord(%q) = %v, the pattern says %v", key, secretWord(key), !secretWord(key))
		}
	}
	if h.has(secretKW.scheme) {
		got := firstMatchesInLines(&h, text, secretKW.schemeLines, reURLCreds, '@', 8)
		want := reURLCreds.FindAllStringSubmatch(text, 8)
		if len(got) != len(want) || len(got) > 0 && !slices.EqualFunc(got, want, slices.Equal[[]string]) {
			t.Fatalf("URL credentials by line %q, in the whole text %q, in %q", got, want, text)
		}
	}
	if want, got := oracleJWT.MatchString(text), h.has(secretKW.jwt) && len(jwtsIn(&h, text, 1)) > 0; got != want {
		t.Fatalf("JSON Web Token: found %v, the pattern says %v in %q", got, want, text)
	}
	for _, r := range prefixRules {
		if r.need != nil && r.re.MatchString(text) && !r.need(text) {
			t.Fatalf("the %s rule matches %q, which fails its precondition", r.name, text)
		}
	}
	for _, n := range []int{-1, 1, 2, 16} {
		if got, want := urlCreds.FindAllStringSubmatch(text, n), reURLCreds.FindAllStringSubmatch(text, n); !slices.EqualFunc(got, want, slices.Equal[[]string]) {
			t.Fatalf("URL credentials anchored at each scheme: %q, the pattern finds %q in %q", got, want, text)
		}
		if got, want := k8sData.FindAllStringSubmatch(text, n), reK8sData.FindAllStringSubmatch(text, n); !slices.EqualFunc(got, want, slices.Equal[[]string]) {
			t.Fatalf("Kubernetes Secret data anchored at each line: %q, the pattern finds %q in %q", got, want, text)
		}
	}
	for _, m := range reK8sData.FindAllStringSubmatch(text, -1) {
		if (len(m[1]) >= 8 && strings.HasSuffix(m[1], "=") || len(m[1]) >= 12 && mixed(m[1]) >= 3) && !k8sDataCandidate(text) {
			t.Fatalf("the Kubernetes Secret data rule reports %q in %q, which k8sDataCandidate misses", m[1], text)
		}
	}
	if oracleVaultLegacy.MatchString(text) && !dotThen24(text) {
		t.Fatalf("a Vault legacy token the rule finds fails dotThen24 in %q", text)
	}
	got, gotOK, toks := firstHexAndTokens(text)
	want, wantOK := oracleHexNearSecretWord(text, low)
	if got != want || gotOK != wantOK {
		t.Fatalf("hexAndTokens' hex rule = %v %v, want %v %v in %q", got, gotOK, want, wantOK, text)
	}
	if !gotOK && !slices.Equal(toks, oracleTokens(text, 16, 64)) {
		t.Fatalf("hexAndTokens' tokens = %q, want %q in %q", toks, oracleTokens(text, 16, 64), text)
	}
	for _, tok := range append(oracleTokens(text, 16, 64), oracleTokens(text, 1, 8)...) {
		if placeholder(tok) != oraclePlaceholder(tok) {
			t.Fatalf("placeholder(%q) = %v", tok, placeholder(tok))
		}
	}
	if placeholder(text) != oraclePlaceholder(text) {
		t.Fatalf("placeholder(%q) = %v", text, placeholder(text))
	}
	for _, v := range []string{text, strings.TrimSpace(text)} {
		if isHexString(v) != (strings.Trim(strings.ToLower(v), "0123456789abcdef") == "") {
			t.Fatalf("isHexString(%q) = %v", v, isHexString(v))
		}
	}
	if got, want := fmtPair(bulkData(text)), fmtPair(oracleBulkData(text)); got != want {
		t.Fatalf("bulkData = %s, want %s in %q", got, want, text)
	}
	if got, want := fmtPair(tokenPayment(text)), fmtPair(decodedTokenPayment(text)); got != want {
		t.Fatalf("tokenPayment = %s, want %s in %q", got, want, text)
	}
	for _, w := range []string{":approve", "passepartout.approve", "a", "kelvin", "in", text} {
		if w == "" || strings.ToLower(w) != w || !isASCII(w) {
			continue
		}
		if got, want := containsLowerASCII(text, w), strings.Contains(strings.ToLower(text), w); got != want && !strings.ContainsAny(w, "ki") {
			t.Fatalf("containsLowerASCII(%q) = %v, ToLower and Contains say %v in %q", w, got, want, text)
		}
	}
	if got, want := fmtPair(bridgeApproval(text)), fmtPair(oracleBridgeApproval(text)); got != want {
		t.Fatalf("bridgeApproval = %s, want %s in %q", got, want, text)
	}
}

// oracleTokens returns the runs of token characters at least min long,
// the first limit of them, as the token rule once read them on their own.
func oracleTokens(text string, min, limit int) []string {
	var out []string
	for i := 0; i < len(text) && len(out) < limit; {
		for i < len(text) && byteClasses[text[i]]&classToken == 0 {
			i++
		}
		start := i
		for i < len(text) && byteClasses[text[i]]&classToken != 0 {
			i++
		}
		if i-start >= min {
			out = append(out, text[start:i])
		}
	}
	return out
}

// TestTokenRunsAtEveryOffset: hexAndTokens reads one byte in 16 between
// runs; runs of every length around 16 and 32, at every offset and with
// gaps of every width, are found as reading every byte found them (the
// hex rule included: the runs hold a hex secret after the word token).
func TestTokenRunsAtEveryOffset(t *testing.T) {
	const hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	for _, n := range []int{1, 2, 15, 16, 17, 31, 32, 33, 40, 64, 65} {
		for _, gap := range []int{1, 2, 7, 15, 16, 17, 31, 33} {
			for off := 0; off < 34; off++ {
				run := strings.Repeat("a1", n)[:n]
				if n >= 32 && n <= 64 {
					run = hex[:n]
				}
				var b strings.Builder
				b.WriteString(strings.Repeat(" ", off))
				for k := 0; k < 5; k++ {
					b.WriteString(run)
					b.WriteString(strings.Repeat("\n", gap)[:gap])
					b.WriteString(run[:min(len(run), k*7)])
					b.WriteString(strings.Repeat(" ", gap))
				}
				for _, text := range []string{b.String(), "token " + b.String(), b.String()[off:]} {
					got, gotOK, toks := firstHexAndTokens(text)
					want, wantOK := oracleHexNearSecretWord(text, asciiLower(text))
					require.Equal(t, want, got, "%q", text)
					require.Equal(t, wantOK, gotOK, "%q", text)
					if !gotOK {
						require.Equal(t, oracleTokens(text, 16, 64), toks, "%q", text)
					}
				}
			}
		}
	}
}

// oracleBridgeApproval is bridgeApproval as first written.
func oracleBridgeApproval(text string) (string, bool) {
	low := strings.ToLower(text)
	for _, w := range []string{":approve", "passepartout.approve"} {
		if strings.Contains(low, w) {
			return "an approval (" + w + ")", true
		}
	}
	return "", false
}

func fmtPair(why string, ok bool) string { return fmt.Sprintf("%v %q", ok, why) }

// checkFoldRegexps compares each per-line pattern, run the fast way and
// called as the scanner calls it, with the (?i) pattern it stands for, on
// one line.
func checkFoldRegexps(t testing.TB, line string) {
	if isASCII(line) {
		low := asciiLower(line)
		for c := range len(low) + 1 {
			if got, want := saidSecretAt(low, c), reSaidSecret.anchored.MatchString(low[c:]); got != want {
				t.Fatalf("saidSecretAt(%q, %d) = %v, the anchored pattern says %v", low, c, got, want)
			}
		}
	}
	for _, re := range []*foldRegexp{reAuthHeader, reSaidSecret, reConnPass} {
		if got, want := re.FindAllStringSubmatch(line, 8), re.ci.FindAllStringSubmatch(line, 8); !slices.EqualFunc(got, want, slices.Equal[[]string]) {
			t.Fatalf("%s on %q: %q, the (?i) pattern finds %q", re.lower, line, got, want)
		}
	}
	for _, re := range []*foldRegexp{reXMLPass, reCredFlag} {
		if got, want := re.FindStringSubmatch(line), re.ci.FindStringSubmatch(line); !slices.Equal(got, want) {
			t.Fatalf("%s on %q: %q, the (?i) pattern finds %q", re.lower, line, got, want)
		}
	}
}

// oracleBulkData is bulkData running its patterns on every text.
func oracleBulkData(text string) (string, bool) {
	if n := len(reMailHeader.FindAllStringIndex(text, 8)); n >= 2 {
		return "forwards stored mail (several messages with their headers)", true
	}
	if reFileDump.MatchString(text) {
		return "sends the contents of stored files", true
	}
	if addrs := reEmail.FindAllString(text, 64); len(addrs) >= 5 {
		distinct := map[string]bool{}
		for _, a := range addrs {
			distinct[strings.ToLower(a)] = true
		}
		if len(distinct) >= 5 {
			return "sends a list of people's addresses", true
		}
	}
	return "", false
}

func TestSecretShortcutsAgreeWithPatterns(t *testing.T) {
	lines := map[string]bool{}
	for _, text := range equivalenceTexts(t) {
		checkSecretShortcuts(t, text)
		for _, line := range strings.Split(text, "\n") {
			lines[line] = true
		}
	}
	for line := range lines {
		checkFoldRegexps(t, line)
	}
}

// oracleShingles are the shingle hashes of a text split as before: the
// whole text lower-cased, cut at every rune that is not a letter or digit.
func oracleShingles(text string) []uint64 {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	var out []uint64
	for i := 0; i+shingleWords <= len(words); i++ {
		var hs [shingleWords]uint64
		common := 0
		for j, w := range words[i : i+shingleWords] {
			h := fnv.New64a()
			h.Write([]byte(w))
			hs[j] = h.Sum64()
			if slices.Contains(stopwords[:], w) || len(w) == 1 {
				common++
			}
		}
		if common < shingleWords {
			out = append(out, shingleHash(hs))
		}
	}
	return out
}

func TestShinglesAgreeWithWordSplitting(t *testing.T) {
	for _, w := range stopwords {
		require.LessOrEqual(t, len(w), maxStopword)
		var h shingler
		for i := 0; i < len(w); i++ {
			h.addByte(w[i])
		}
		assert.True(t, isStopword([]byte(w), h.hash), w)
	}
	for _, text := range equivalenceTexts(t) {
		var got []uint64
		forShingles(text, func(h uint64) bool { got = append(got, h); return true })
		require.Equal(t, oracleShingles(text), got, "%q", text)
	}
}

// oracleRecursesUnbounded is the two-walk search recursesUnbounded
// replaced.
func oracleRecursesUnbounded(name string, body *syntax.Stmt) bool {
	found := false
	syntax.Walk(body, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return !found
		}
		b, isBin := st.Cmd.(*syntax.BinaryCmd)
		if st.Background || isBin && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
			syntax.Walk(st, func(m syntax.Node) bool {
				if ce, ok := m.(*syntax.CallExpr); ok && len(ce.Args) > 0 && ce.Args[0].Lit() == name {
					found = true
				}
				return !found
			})
		}
		return !found
	})
	return found
}

// checkShellShortcuts parses text as bash and checks, on every function
// it declares, the one-walk fork-bomb search (and the text test before
// it), and on every node, that a node holding a substitution has a
// substitution's opening in its text (what walkNode's skip relies on).
func checkShellShortcuts(t testing.TB, text string) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		return
	}
	s := &shellAnalyzer{src: text}
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			return true
		}
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil && fd.Body != nil {
			name := fd.Name.Value
			want := oracleRecursesUnbounded(name, fd.Body)
			require.Equal(t, want, recursesUnbounded(name, fd.Body), "function %s in %q", name, text)
			if body, ok := s.source(fd.Body); ok && want {
				require.Contains(t, body, name, "a recursing function names itself in its body: %q", text)
			}
		}
		holds := false
		syntax.Walk(n, func(m syntax.Node) bool {
			switch m.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst:
				holds = true
			}
			return !holds
		})
		if src, ok := s.source(n); ok && holds && !mayHoldSubstitution(src) {
			t.Fatalf("node %T %q holds a substitution its text does not show, in %q", n, src, text)
		}
		return true
	})
}

func TestShellShortcutsAgree(t *testing.T) {
	texts := append(equivalenceTexts(t),
		"f() { f | f & }; f", "g() { echo ok; }; g", "h() { (h &); }", "k() { if true; then k | cat; fi; }", "a=$(b() { b|b; }; b)",
		"f() { cat <<EOF\n$(f | f)\nEOF\n}", "x=( $(ls) `pwd` <(cat a) ${ echo; } )", "((i = $(date +%s) + 1))", "[[ -n $(id -u) ]]",
		"for ((i=0; i<$(nproc); i++)); do :; done", "declare -a a=( $(ls) )")
	for _, text := range texts {
		checkShellShortcuts(t, text)
	}
}

// TestShellAllowIndexAgreesWithTheTable: the first allow rule found
// through the index by first word is the first one of the table, for
// user rules of every shape.
func TestShellAllowIndexAgreesWithTheTable(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Permissions.Allow = []string{"shell(make test)", "shell(git log:*)", "shell(/usr/bin/env:*)", "shell(./run.sh *)", "shell(*)", "shell(ls -la)", "shell(make build)"}
	for _, extra := range [][]string{nil, {"shell"}, {"shell(make build)"}} {
		c := cfg
		c.Permissions.Allow = append(append([]string(nil), cfg.Permissions.Allow...), extra...)
		g, err := newPermissionsGate(c, BuiltinTools())
		require.NoError(t, err)
		for _, argv := range [][]string{nil, {""}, {"ls"}, {"ls", "-la"}, {"/usr/bin/ls", "-la"}, {"/bin/git", "log"}, {"git", "log", "-n", "1"}, {"make", "test"}, {"make", "test", "x"}, {"make", "build"},
			{"./run.sh", "a"}, {"run.sh"}, {"/usr/bin/env", "x"}, {"env", "x"}, {"rm", "-rf", "/"}, {"grep", "x"}, {"cat"}} {
			var want rule
			wantOK := false
			for _, r := range g.allow {
				if r.tool == ToolShell && r.matchShellCmd(argv) {
					want, wantOK = r, true
					break
				}
			}
			got, gotOK := g.firstShellAllow(argv)
			assert.Equal(t, wantOK, gotOK, "%q", argv)
			assert.Equal(t, want.text, got.text, "%q", argv)
		}
	}
}

// FuzzTextScanners runs every equivalence above on arbitrary text.
func FuzzTextScanners(f *testing.F) {
	for _, s := range []string{"password = \"hunter22!\"", "curl https://u:p@h/x -u a:b", "f() { f|f& };f", "eyJabcdefghij.eyJabcd.x", "From: a@b\nTo: c@d\n", "x=$(ls) <(y)", "The İNSERT key",
		"$6$rounds=5000$usesomesillystri$D4IrlXatmP7rx3P3InaxBeoomnAihCKRVQP22JZ6EY47Wc6BkroIuUUBOov1i.S5KPgErtP/EN5mcO.ChWQW21",
		"echo \"$salt$Password\" | sha384sum", "$2b$10$N9qo8uLOickgx2ZMRZoMye", "$pbkdf2-sha256$29000$N2Y", "$y$j9T$abcdefgh\"x",
		"kind: Secret\ndata:\n  password: cGFzc3dvcmQ=\n", "kind: 'Secret'\ndata:\n  key: |\n    QWxhZGRpbjpvcGVuU2VzYW1lMTIz\n", "kind: secret\n  token: \"AbCd1234EfGh\"  \n",
		"kind: SecretStore\n  key: secret/mysecret\n  name: ExternalSecret\n", "kind: Secret\nx: abc==\ny: abcdefgh===\n",
		"kind: Secret\ndata:\n\n  a.b: |\n\n    QWxhZGRpbjpv\n  'c': \"abcdefgh12==\"  \n\nd: x\n", "x: abcdefgh\n\n\ny:\n  abcdefghi=\n",
		"git+ssh://u:p@h https://a:b@c/d 1a.b-c://x:y@z ://u:v@w http://x:y:z@a@b", "Your PIN is 1234; OTP: '9@x!' api key\t=\n\"abc-\" recovery code isabcd passcode= ab", "s3://k:s@b\tftp://a:b@c\nhttp://u:p@\"h\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		text = strings.ToValidUTF8(text, "?")
		checkKeywords(t, text)
		checkSecretShortcuts(t, text)
		checkFoldRegexps(t, text)
		checkShellArgs(t, text)
		var got []uint64
		forShingles(text, func(h uint64) bool { got = append(got, h); return true })
		if want := oracleShingles(text); !slices.Equal(got, want) {
			t.Fatalf("shingles of %q: got %v, want %v", text, got, want)
		}
		checkShellShortcuts(t, text)
		checkPlainASCII(t, text)
	})
}

// checkJSONPaths: valid JSON read by the direct descent gives what the
// token reader gives, and the descent gives up exactly where the token
// reader returns an error.
func checkJSONPaths(t testing.TB, data []byte) {
	want, wantErr := parseJSONTokens(data)
	if !json.Valid(data) {
		return
	}
	r := fastReader{data: data}
	got, ok := r.value(0)
	if ok != (wantErr == nil) {
		t.Fatalf("descent ok=%v, token reader error %v, on %q", ok, wantErr, data)
	}
	if ok && !reflect.DeepEqual(got, want) {
		t.Fatalf("descent read %#v, token reader %#v, from %q", got, want, data)
	}
	v, err := parseJSON(data)
	if !reflect.DeepEqual(v, want) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("parseJSON = %#v, %v; token reader %#v, %v on %q", v, err, want, wantErr, data)
	}
}

func TestJSONDescentAgreesWithTokens(t *testing.T) {
	inputs := []string{
		`{}`, `[]`, `""`, `0`, `-1.5e+10`, `true`, `false`, `null`, ` { "a" : [ 1 , "x" , { } ] } `,
		`{"a":1,"a":2}`, `{"a":{"b":1},"c":{"b":2}}`, `{"tool":"shell","args":{"cmd":"ls\nla \"x\" \\ \/ \b\f\r\t","cwd":"."},"explanation":"é ü 日本"}`,
		`"\u00e9\u65e5\ud83d\ude00 lone \ud83d x \ude00 y \ud83d\u0041 \uDBFF\uDFFF"`, `"\u0000\u001f"`, `{"\u0074ool":"x"}`, `{"a\"b":1,"a\u0022b":2}`,
		strings.Repeat("[", 32) + strings.Repeat("]", 32), strings.Repeat("[", 33) + strings.Repeat("]", 33), strings.Repeat("[", 34) + strings.Repeat("]", 34),
		strings.Repeat(`{"a":`, 33) + "1" + strings.Repeat("}", 33), `[1,2,[3,[4]],{"x":[{}]}]`, "{\"a\":1}\n", "\t[ ]\r\n",
	}
	for _, s := range inputs {
		checkJSONPaths(t, []byte(s))
	}
	if dir := sharedDirIfPresent(t); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "corpus", "gates", "*.jsonl"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			for _, line := range bytes.Split(data, []byte("\n")) {
				checkJSONPaths(t, line)
				var r struct {
					Action json.RawMessage `json:"action"`
				}
				if json.Unmarshal(line, &r) == nil {
					checkJSONPaths(t, r.Action)
				}
			}
		}
	}
}

// FuzzJSONPaths: the two JSON readers agree on anything.
func FuzzJSONPaths(f *testing.F) {
	for _, s := range []string{`{"a":[1,"\ud83d\ude00"]}`, `{"a":1,"a":2}`, `"\ud800"`, `[[[[]]]]`, `{"tool":"shell","args":{"cmd":"ls"},"explanation":"x"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkJSONPaths(t, data) })
}

// oracleShellArg is shellArgPattern searched as written.
var oracleShellArg = regexp.MustCompile(shellArgPattern)

// checkShellArgs: shellArgMatches finds what the unanchored pattern finds,
// on text and on each of its lines.
func checkShellArgs(t testing.TB, text string) {
	t.Helper()
	texts := []string{text}
	if strings.Contains(text, "\n") { // a text of one line is its only line
		texts = append(texts, strings.Split(text, "\n")...)
	}
	for _, s := range texts {
		if got, want := shellArgMatches(s), oracleShellArg.FindAllStringSubmatch(s, -1); !slices.EqualFunc(got, want, slices.Equal[[]string]) {
			t.Fatalf("shell arguments of %q: got %q, want %q", s, got, want)
		}
	}
}

// TestShellArgMatchesAgree: shellArgMatches agrees with the pattern on
// every action of the shared corpus and on look-alikes of its starts.
func TestShellArgMatchesAgree(t *testing.T) {
	for _, s := range []string{
		`os.system("rm -rf ~")`, `os.os.system('x')`, `myexec("ls")`, "execSync(`ls`)", `exec exec("a") exec('b')`,
		`subprocess.subprocess.run(["ls"])`, `subprocess.run(f"ls {x}")`, `(shell-command-to-string "ls")`, `(async-shell-command "x")`,
		`uiop:uiop:run-program "ls"`, `sb-ext:run-program("/bin/sh")`, `system ( ( list "ls" )`, `systemsystem("x")`, `os.popen(r'x\\'y')`,
		`spawnSync("a") + system("b")`, `"exec("`, `exec(`, `s`, ``, `run-shell-command "a" run-shell-command 'b'`,
	} {
		checkShellArgs(t, s)
	}
	shared := testenv.SharedDir(t)
	n := 0
	for _, recs := range readCorpus(t, filepath.Join(shared, "corpus", "gates")) {
		for _, r := range recs {
			checkShellArgs(t, string(r.Action))
			if a, err := DecodeJSON(r.Action); err == nil {
				for _, v := range a.Args {
					checkShellArgs(t, v)
					n++
				}
			}
		}
	}
	require.Positive(t, n)
}

// checkPlainASCII: plainASCII, eight bytes at a time, says what a loop
// over each byte says.
func checkPlainASCII(t testing.TB, text string) {
	for i := 0; i <= min(len(text), 9); i++ {
		if got, want := plainASCII(text[i:]), plainASCIIRef(text[i:]); got != want {
			t.Fatalf("plainASCII(%q) = %v, a byte at a time %v", text[i:], got, want)
		}
	}
}

func plainASCIIRef(s string) bool {
	for _, c := range []byte(s) {
		if c >= 0x80 || c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
			return false
		}
	}
	return true
}

func TestPlainASCII(t *testing.T) {
	for _, s := range []string{"", "abc", "abcdefgh", "abcdefghi", "abcdefg\x7f", "abcdefg\x1f", "abc\tdef\nghijklmnop", "~~~~~~~~ ", "\x7f", "héllo world!", " !\"#$%&'()*+,-./0123456789:;<=>?@[\\]^_`{|}~"} {
		checkPlainASCII(t, s)
		for i := range 256 {
			b := []byte(s + "12345678")
			b[len(b)-1-(i%8)] = byte(i)
			checkPlainASCII(t, string(b))
		}
	}
}

// TestEnvVarTablesAreUpperCase: checkEnvVarAs skips its tables for a name
// with a lower-case letter, which holds only while every name they match
// whole is upper case.
func TestEnvVarTablesAreUpperCase(t *testing.T) {
	var names []string
	for n := range hijackVars {
		names = append(names, n)
	}
	for n := range gitStoreVars {
		names = append(names, n)
	}
	for n := range optionVars {
		names = append(names, n)
	}
	for n := range commandVars {
		names = append(names, n)
	}
	names = append(names, "SIMPLE_BACKUP_SUFFIX", "CDPATH")
	for _, n := range names {
		assert.False(t, hasLowerASCII(n), "%s: checkEnvVarAs's shortcut would skip it spelled this way", n)
	}
}

// TestEnvVarPrefixesHoldInLowerCase: the prefixes checkEnvVarAs denies
// or reads match a name with lower-case letters after them as before the
// shortcut; a script's own lower-case variables are not judged as the
// upper-case ones of the same letters.
func TestEnvVarPrefixesHoldInLowerCase(t *testing.T) {
	_, env, _ := testEnv(t, DefaultConfig())
	ctx := t.Context()
	for _, tc := range []struct {
		cmd  string
		deny bool
	}{
		{"LD_preload=/tmp/x.so ls", true},
		{"DYLD_insert=/tmp/x ls", true},
		{"export LD_x=1; ls", true},
		{"GIT_CONFIG_foo='rm -rf ~' git status", true},
		{"path=/tmp; ls", false},
		{"ld_preload=/tmp/x.so ls", false},
		{"Home=/tmp ls", false},
		{"cdpath=/etc; cd x", false},
	} {
		rep := analyzeShell(ctx, env, tc.cmd, ".")
		assert.Equal(t, tc.deny, len(rep.denies) > 0, "%s: %v", tc.cmd, rep.denies)
	}
}

// looseIPRef is looseIP before its byte test: the oracle.
func looseIPRef(h string) (netip.Addr, bool) {
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip, true
	}
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint32
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 0, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	switch len(nums) {
	case 1:
		v = uint32(nums[0])
	case 2:
		v = uint32(nums[0])<<24 | uint32(nums[1]&0xffffff)
	case 3:
		v = uint32(nums[0])<<24 | uint32(nums[1]&0xff)<<16 | uint32(nums[2]&0xffff)
	case 4:
		v = uint32(nums[0])<<24 | uint32(nums[1]&0xff)<<16 | uint32(nums[2]&0xff)<<8 | uint32(nums[3]&0xff)
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// TestLooseIPAgrees: looseIP's byte test leaves every answer as before,
// on hosts of every spelling and on random strings of the bytes that
// matter.
func TestLooseIPAgrees(t *testing.T) {
	hosts := []string{"", ".", "example.com", "localhost", "169.254.169.254", "2852039166", "0xA9FEA9FE",
		"0251.0376.0251.0376", "0xa9.0xfe.0xa9.0xfe", "0o251.254.169.254", "0b1010", "1_000", "169.254.43518",
		"169.16689662", "::1", "fe80::1%eth0", "::ffff:169.254.169.254", "[::1]", "1.2.3.4.5", "0x", "abc", "bad.cafe",
		"face.b00c", "dead.beef.0x1", "127.1", "0", "00", "1e3", "+1", "-1", "127.0.0.1 ", "ĸ.1"}
	alphabet := "0123456789abcdefxXoObB_.:%gz+- "
	rng := rand.New(rand.NewSource(14))
	for range 20000 {
		b := make([]byte, rng.Intn(14))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		hosts = append(hosts, string(b))
	}
	for _, h := range hosts {
		wantIP, wantOK := looseIPRef(h)
		ip, ok := looseIP(h)
		require.Equal(t, wantOK, ok, "%q", h)
		require.Equal(t, wantIP, ip, "%q", h)
	}
}

// TestVarTableAgreesWithAMap: the analysis's table of variables answers
// as a map does, below and past the size where it moves to one, and a
// clone shares nothing with it.
func TestVarTableAgreesWithAMap(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	for round := range 200 {
		var tab varTable
		ref := map[string]varVal{}
		names := 1 + rng.Intn(3*smallMemoSlice)
		for range 4 * names {
			name := fmt.Sprintf("v%d", rng.Intn(names))
			if rng.Intn(3) == 0 {
				v, ok := tab.get(name)
				w, wok := ref[name]
				require.Equal(t, wok, ok, "round %d %s", round, name)
				require.Equal(t, w, v, "round %d %s", round, name)
				continue
			}
			v := varVal{val: fmt.Sprint(rng.Intn(5)), ok: rng.Intn(2) == 0, num: rng.Intn(2) == 0}
			tab.set(name, v)
			ref[name] = v
		}
		require.Equal(t, len(ref), tab.len())
		got := tab.appendKeys(nil)
		slices.Sort(got)
		want := slices.Sorted(maps.Keys(ref))
		require.Equal(t, want, got)
		c := tab.clone()
		c.set("v0", varVal{val: "changed"})
		c.set("new", varVal{val: "x"})
		v, ok := tab.get("v0")
		w, wok := ref["v0"]
		require.Equal(t, wok, ok)
		require.Equal(t, w, v)
		_, ok = tab.get("new")
		require.False(t, ok)
	}
}
