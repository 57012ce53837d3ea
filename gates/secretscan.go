package gates

import (
	"math/bits"
	"regexp"
	"strings"
)

// The scanning machinery of the secrets vector: the expensive rules only
// run on the lines, or after the byte pairs, that can hold a match.

// asciiLower lower-cases ASCII letters only, so that byte offsets in the
// result are offsets in the original.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// secretKeywords are the keywords of every secret rule in one matcher:
// a text is searched once, and each rule asks the hits whether (and on
// which lines) its keywords occur.
type secretKeywords struct {
	m     *kwMatcher
	rules []kwGroup // by index in prefixRules: on the text, or folded for lk rules
	// ruleSets holds, for each keyword, the prefix rules it is a keyword
	// of, as a bit set by index in prefixRules: the rules a text may
	// match are the union over the keywords it holds.
	ruleSets [][ruleWords]uint64
	// Single keywords gating a structural rule.
	privateKey, jwt, scheme, dashU kwID // on the text
	schemeLines                    kwGroup
	creds, kind, secret            kwID // folded
	// Lines the per-line rules read (folded).
	said, connPass, xmlPass, authHeader, vendors, assign, credFlag kwGroup
}

var secretKW = func() *secretKeywords {
	b := newKwBuilder()
	k := &secretKeywords{}
	if len(prefixRules) > ruleWords*64 {
		panic("gates: too many prefix rules for the rule sets")
	}
	for _, r := range prefixRules {
		k.rules = append(k.rules, b.group(r.lkw, r.kws...))
	}
	k.privateKey = b.add("PRIVATE KEY", false)
	k.jwt = b.add("eyJ", false)
	k.scheme = b.add("://", false)
	k.schemeLines = newKwGroup(k.scheme)
	k.dashU = b.add("-u", false)
	k.creds = b.add("credentials", true)
	k.kind = b.add("kind:", true)
	k.secret = b.add("secret", true)
	k.said = b.group(true, saidKeywords...)
	k.connPass = b.group(true, "password=", "pwd=")
	k.xmlPass = b.group(true, "password")
	k.authHeader = b.group(true, "auth", "key", "token")
	k.vendors = b.group(true, vendors...)
	k.assign = b.group(true, assignKeywords...)
	k.credFlag = b.group(true, "psexec", "-password", "--password", "-p '", "mysql")
	k.m = b.build()
	k.ruleSets = make([][ruleWords]uint64, len(k.m.kws))
	for i, g := range k.rules {
		for _, id := range g.ids {
			k.ruleSets[id][i/64] |= 1 << (i % 64)
		}
	}
	return k
}()

// ruleWords bounds the prefix rules at ruleWords*64.
const ruleWords = 2

// candidateRules is the set of prefix rules some keyword of which the
// scan found, by index in prefixRules: the rules whose any(kw.rules[i])
// holds.
func (k *secretKeywords) candidateRules(h *kwHits) (set [ruleWords]uint64) {
	for w, seen := range h.seen {
		for ; seen != 0; seen &= seen - 1 {
			id := w*64 + bits.TrailingZeros64(seen)
			if id < len(k.ruleSets) {
				for j, x := range k.ruleSets[id] {
					set[j] |= x
				}
			}
		}
	}
	return set
}

// findInLines is FindAllStringSubmatch over the lines holding a keyword of
// g, at most 8 matches a line, stopping once total are found (counted
// after each line); with total < 0, every match of every such line.
func findInLines(h *kwHits, text string, g kwGroup, re submatcher, total int) [][]string {
	var out [][]string
	perLine := 8
	if total < 0 {
		perLine = -1
	}
	h.forLines(text, g, func(s, e int) bool {
		out = append(out, re.FindAllStringSubmatch(text[s:e], perLine)...)
		return total < 0 || len(out) < total
	})
	return out
}

// firstMatchesInLines is re.FindAllStringSubmatch(text, n) for a pattern
// whose every match lies within one line and holds a keyword of g and the
// byte need: the same matches, found on those lines only (a line without
// need is not searched); every match when n < 0.
func firstMatchesInLines(h *kwHits, text string, g kwGroup, re submatcher, need byte, n int) [][]string {
	var out [][]string
	h.forLines(text, g, func(s, e int) bool {
		if strings.IndexByte(text[s:e], need) < 0 {
			return true
		}
		if n < 0 {
			out = append(out, re.FindAllStringSubmatch(text[s:e], -1)...)
			return true
		}
		out = append(out, re.FindAllStringSubmatch(text[s:e], n-len(out))...)
		return len(out) < n
	})
	return out
}

// secretWords are the names of secrets a key may hold (api_key,
// clientSecret, DB_PASSWORD…), each "X?Y" also written XY, X_Y, X.Y and
// X-Y. A key holding one names a secret.
var secretWords = func() *kwMatcher {
	b := newKwBuilder()
	for _, w := range []string{"pass", "pwd", "secret", "token", "apikey", "accesskey", "credential", "user_auth", "login",
		"accessid", "authtoken", "_pat", "pat_", "dsn",
		"api?key", "access?key", "auth?key", "private?key", "client?secret", "session?key", "signing?key", "master?key",
		"account?key", "app?key", "license?key", "access?id", "api?secret", "auth?token", "basic?auth", "http?auth", "preshared?key"} {
		x, y, two := strings.Cut(w, "?")
		if !two {
			b.add(w, true)
			continue
		}
		for _, sep := range []string{"", "_", ".", "-"} {
			b.add(x+sep+y, true)
		}
	}
	return b.build()
}()

// secretWord says whether a key (ASCII) names a secret.
func secretWord(key string) bool { return secretWords.contains(key) }

// findIndexInAssignLines finds KEY sep VALUE on the lines holding an
// assignment keyword, in the shape of FindAllStringSubmatchIndex of a
// pattern with two groups (key, value): [start, end, keyStart, keyEnd,
// valStart, valEnd]. It scans by hand: separators are runs of ':' '=' '?'
// '!' '>' '-' holding ':' or '=' (:=, ::=, ?=, =>, !=…), the word "is",
// and value=. It stops once total pairs are found (16 a line), or reads
// every pair when total < 0.
func findIndexInAssignLines(h *kwHits, text string, total int) [][]int {
	var out [][]int
	perLine := 16
	if total < 0 {
		perLine = -1
	}
	h.forLines(text, secretKW.assign, func(s, e int) bool {
		for _, m := range assignPairs(text[s:e], perLine) {
			for i := range m {
				m[i] += s
			}
			out = append(out, m)
		}
		return total < 0 || len(out) < total
	})
	return out
}

// assignPairs finds at most n pairs on a line (all when n < 0).
func assignPairs(line string, n int) [][]int {
	var out [][]int
	for i := 0; i < len(line) && (n < 0 || len(out) < n); i++ {
		sepStart, sepEnd := -1, -1
		switch c := line[i]; {
		case c == ':' || c == '=':
			j := i
			for j > 0 && strings.IndexByte(":=?!-", line[j-1]) >= 0 && i-j < 3 {
				j--
			}
			k := i
			for k < len(line) && strings.IndexByte(":=>", line[k]) >= 0 && k-i < 4 {
				k++
			}
			sepStart, sepEnd = j, k
			i = k - 1
		case c == ' ' && strings.HasPrefix(line[i:], " is ") || c == '\t' && strings.HasPrefix(line[i:], "\tis "):
			sepStart, sepEnd = i, i+4
		case c == ' ' && strings.HasPrefix(line[i:], " value="):
			sepStart, sepEnd = i, i+7
		default:
			continue
		}
		// The key: back over blanks and quotes, then name characters.
		k := sepStart
		for k > 0 && (line[k-1] == ' ' || line[k-1] == '\t' || line[k-1] == '"' || line[k-1] == '\'' || line[k-1] == ']') {
			k--
		}
		ks := k
		for ks > 0 && (isWordByte(line[ks-1]) || line[ks-1] == '.' || line[ks-1] == '-' || line[ks-1] == '[') {
			ks--
		}
		if ks == k || k-ks > 96 || !secretWord(line[ks:k]) {
			continue
		}
		// The value: over blanks, an env("NAME", default prefix, a quote.
		v := sepEnd
		for v < len(line) && (line[v] == ' ' || line[v] == '\t') {
			v++
		}
		if strings.HasPrefix(line[v:], "env(") {
			if c := strings.IndexByte(line[v:], ','); c > 0 {
				v += c + 1
				for v < len(line) && line[v] == ' ' {
					v++
				}
			}
		}
		if v < len(line) && (line[v] == '"' || line[v] == '\'') {
			v++
		}
		ve := v
		for ve < len(line) && strings.IndexByte(" \t'\",;<>()]{}", line[ve]) < 0 {
			ve++
		}
		if ve-v < 3 {
			continue
		}
		out = append(out, []int{ks, ve, ks, k, v, ve})
	}
	return out
}

// vendorMatches finds KEY: VALUE and KEY = VALUE pairs on the lines naming
// a vendor, as [whole, key, value] like a regexp submatch.
func vendorMatches(h *kwHits, text string) [][]string {
	var out [][]string
	h.forLines(text, secretKW.vendors, func(s, e int) bool {
		out = append(out, keyValues(text[s:e])...)
		return true
	})
	return out
}

// keyValues scans a line for KEY sep VALUE where sep is one to four of ':'
// and '=', with optional quotes around both.
func keyValues(line string) [][]string {
	var out [][]string
	for i := 0; i < len(line); i++ {
		if line[i] != ':' && line[i] != '=' {
			continue
		}
		j := i
		for j < len(line) && j-i < 4 && (line[j] == ':' || line[j] == '=') {
			j++
		}
		k := i
		for k > 0 && (line[k-1] == '"' || line[k-1] == '\'' || line[k-1] == ' ') {
			k--
		}
		ks := k
		for ks > 0 && (isWordByte(line[ks-1]) || line[ks-1] == '.' || line[ks-1] == '-') {
			ks--
		}
		v := j
		for v < len(line) && (line[v] == ' ' || line[v] == '"' || line[v] == '\'') {
			v++
		}
		ve := v
		for ve < len(line) && (isWordByte(line[ve]) || line[ve] == '-') {
			ve++
		}
		if ks < k && ve-v >= 20 {
			out = append(out, []string{line[ks:ve], line[ks:k], line[v:ve]})
		}
		i = j - 1
	}
	return out
}

// tokenByte says whether c may be part of a token: letters, digits and
// + / = _ . ~ -.
func tokenByte(c byte) bool { return byteClasses[c]&classToken != 0 }

// Byte classes, looked up in one table: the scanners test every byte of
// every text.
const (
	classWord  = 1 << iota // [A-Za-z0-9_], what \b and \w mean
	classHex               // [0-9A-Fa-f]
	classToken             // tokenByte
)

var byteClasses = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		if b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' {
			t[c] |= classWord
		}
		if b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' {
			t[c] |= classHex
		}
		if b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '+' || b == '/' || b == '=' || b == '_' || b == '.' || b == '~' || b == '-' {
			t[c] |= classToken
		}
	}
	return t
}()

// hexAndTokens reads the runs of token characters of text for two rules
// in one pass. The first finds a 32–64 digit hex string within 120 bytes
// after the word password, secret, token or api key (a generated admin
// password, a token printed by a tool): a candidate has no word character
// on either side, and hex digits are token characters, so it lies in a
// run at least 32 long; every such run is read. The second takes the
// first 64 runs at least 16 long, appended to toks, for tokenSecret; they
// are returned only when no hex secret is found.
//
// Only runs at least 16 long matter, and any such run holds one of every
// 16 positions in a row: the pass reads one byte in 16 (the probe) until
// one is a token character, then reads that run to both ends, and probes
// again 16 bytes past its end. A probe that is not a token character
// rules out any long run starting in the 15 bytes before it; a run read
// whole rules out any other starting in it. So every run at least 16 long
// is found, once, in order, as reading every byte found them.
//
// With all, it reads every run: every hex secret is returned, and the
// tokens beside them, all of them.
func hexAndTokens(text string, toks []string, all bool) ([]secretFinding, []string) {
	var hexes []secretFinding
	const minRun = 16
	for p := minRun - 1; p < len(text); {
		if byteClasses[text[p]]&classToken == 0 {
			p += minRun
			continue
		}
		start, t := p, p+1
		for start > 0 && byteClasses[text[start-1]]&classToken != 0 {
			start--
		}
		for t < len(text) && byteClasses[text[t]]&classToken != 0 {
			t++
		}
		p = t + minRun
		if t-start < minRun {
			continue
		}
		if all || len(toks) < 64 {
			toks = append(toks, text[start:t])
		}
		if t-start >= 32 {
			hexes = hexInRun(text, start, t, all, hexes)
			if len(hexes) > 0 && !all {
				return hexes, nil
			}
		}
	}
	return hexes, toks
}

// hexInRun is hexAndTokens' hex rule on one run of token characters,
// text[start:t]: the first hex secret appended to out, or with all every
// one.
func hexInRun(text string, start, t int, all bool, out []secretFinding) []secretFinding {
	for i := start; i < t; {
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
			if !placeholder(h) && entropy(h) > 3 && strings.IndexAny(h, "abcdefABCDEF") >= 0 {
				before := asciiLower(text[max(0, i-120):i])
				for _, w := range []string{"password", "passwd", "secret", "token", "api key", "apikey"} {
					if strings.Contains(before, w) {
						out = append(out, secretFinding{secretHit: secretHit{rule: "hex secret next to the word " + w, strong: true}, start: i, end: j})
						if !all {
							return out
						}
						break
					}
				}
			}
		}
		i = j + 1
	}
	return out
}

func isHexByte(c byte) bool { return byteClasses[c]&classHex != 0 }

// curlUserArgs returns the arguments of -u and --user options: the
// user:password of curl and its kind; at most n (all when n < 0).
func curlUserArgs(text string, n int) []string {
	var out []string
	for _, opt := range []string{"--user", "-u"} {
		for off := 0; n < 0 || len(out) < n; {
			i := strings.Index(text[off:], opt)
			if i < 0 {
				break
			}
			i += off
			off = i + len(opt)
			if opt == "-u" && (i == 0 || text[i-1] != ' ' && text[i-1] != '\t' && text[i-1] != '\n') {
				continue
			}
			j := off
			if j < len(text) && text[j] == '=' {
				j++
			} else if j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
					j++
				}
			} else {
				continue
			}
			k := j
			for k < len(text) && text[k] != ' ' && text[k] != '\t' && text[k] != '\n' {
				k++
			}
			if k > j {
				out = append(out, text[j:k])
			}
		}
	}
	return out
}

// ruleMatches runs a prefix rule (whose keywords are g) on the whole text
// when it is short, and on the lines holding one of its keywords when it
// is long: at most n matches, counted after each line (every match when
// n < 0).
func ruleMatches(r prefixRule, g kwGroup, h *kwHits, text string, n int) [][]int {
	if len(text) <= 1024 {
		return r.re.FindAllStringIndex(text, n)
	}
	var out [][]int
	h.forLines(text, g, func(start, end int) bool {
		for _, m := range r.re.FindAllStringIndex(text[start:end], n) {
			out = append(out, []int{m[0] + start, m[1] + start})
		}
		return n < 0 || len(out) < n
	})
	return out
}

// Patterns with no literal prefix are tried by the regexp package at every
// byte of the text, each try costing tens of instructions: on a line
// holding a 300-byte token, or a Kubernetes Secret with a 2 KB value, that
// was most of a check. The two below find the same matches, trying the
// pattern only where a match can start.

// schemeAnchored is FindAllStringSubmatch of the pattern
// [A-Za-z][A-Za-z0-9+.-]*://REST, given re = ^ and that pattern. A match
// starts at a letter of the run of scheme characters ([A-Za-z0-9+.-])
// just before a "://", and whichever letter of the run it starts at, it
// holds the whole rest of the run (the run is followed by ':', which is
// not a scheme character) and then the same REST: from the leftmost
// letter of the run, at or after the end of the last match, the pattern
// matches if it matches from any. So each "://" is tried once, anchored
// at that letter, in order: the leftmost matches, as the search finds
// them.
type schemeAnchored struct{ re *regexp.Regexp }

func schemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-'
}

func (a schemeAnchored) FindAllStringSubmatch(s string, n int) [][]string {
	var out [][]string
	pos := 0
	for from := 0; n < 0 || len(out) < n; {
		i := strings.Index(s[from:], "://")
		if i < 0 {
			break
		}
		p := from + i
		from = p + 3
		r := p
		for r > pos && schemeByte(s[r-1]) {
			r--
		}
		for r < p && !(s[r] >= 'a' && s[r] <= 'z' || s[r] >= 'A' && s[r] <= 'Z') {
			r++
		}
		if r == p {
			continue
		}
		// No part of the pattern after the scheme holds white space (as
		// \s reads it), and it has no assertion: a match lies within
		// the run of other bytes, which is all the pattern is given.
		e := p + 3
		for e < len(s) && !(s[e] == ' ' || s[e] == '\t' || s[e] == '\n' || s[e] == '\f' || s[e] == '\r') {
			e++
		}
		idx := a.re.FindStringSubmatchIndex(s[r:e])
		if idx == nil {
			continue
		}
		out = append(out, submatchesAt(s, r, idx))
		pos = r + idx[1]
		from = max(from, pos)
	}
	return out
}

// lineAnchored is FindAllStringSubmatch of a pattern (?m)^BODY$ whose
// matches are never empty, given re = ^BODY(?m:$): a match starts at a
// line start, so the pattern is tried anchored at each line start at or
// after the end of the last match, in order (the same leftmost match, as
// ^ anchors the substring where (?m)^ anchored the line, and $ reads the
// same end of line or of text).
type lineAnchored struct{ re *regexp.Regexp }

func (a lineAnchored) FindAllStringSubmatch(s string, n int) [][]string {
	var out [][]string
	for ls := 0; ls <= len(s) && (n < 0 || len(out) < n); {
		idx := a.re.FindStringSubmatchIndex(s[ls:])
		next := ls
		if idx != nil {
			out = append(out, submatchesAt(s, ls, idx))
			next = ls + idx[1]
			if next > 0 && s[next-1] == '\n' {
				ls = next // a line starts where the match ended
				continue
			}
		}
		// The next line start after next.
		j := strings.IndexByte(s[next:], '\n')
		if j < 0 {
			break
		}
		ls = next + j + 1
	}
	return out
}
