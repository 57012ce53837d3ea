package gates

import (
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

// forLines calls fn with the offsets of every line whose lower-case form
// holds one of kws. The expensive rules run on those lines only.
func forLines(low string, kws []string, fn func(start, end int) bool) {
	for start := 0; start < len(low); {
		end := strings.IndexByte(low[start:], '\n')
		if end < 0 {
			end = len(low)
		} else {
			end += start
		}
		line := low[start:end]
		for _, k := range kws {
			if strings.Contains(line, k) {
				if !fn(start, end) {
					return
				}
				break
			}
		}
		start = end + 1
	}
}

// findInLines is FindAllStringSubmatch over the lines holding a keyword.
func findInLines(text, low string, kws []string, re *regexp.Regexp) [][]string {
	var out [][]string
	forLines(low, kws, func(s, e int) bool {
		out = append(out, re.FindAllStringSubmatch(text[s:e], 8)...)
		return len(out) < 32
	})
	return out
}

// firstInLines returns the first match over the lines holding a keyword.
func firstInLines(text, low string, kws []string, re *regexp.Regexp) []string {
	var out []string
	forLines(low, kws, func(s, e int) bool {
		out = re.FindStringSubmatch(text[s:e])
		return out == nil
	})
	return out
}

// reSecretWord finds a secret's name inside a key (run on keys only).
var reSecretWord = regexp.MustCompile(`(?i)pass(?:wd|word|phrase)?|pwd|secret|token|api[_.-]?key|apikey|access[_.-]?key|accesskey|auth[_.-]?key|private[_.-]?key|client[_.-]?secret|credentials?|user_auth|session[_.-]?key|signing[_.-]?key|master[_.-]?key|account[_.-]?key|app[_.-]?key|license[_.-]?key|login|accessid|access[_.-]?id|api[_.-]?secret|auth[_.-]?token|authtoken|basic[_.-]?auth|http[_.-]?auth|_pat|pat_|dsn|preshared[_.-]?key`)

// findIndexInAssignLines finds KEY sep VALUE on the lines holding a
// keyword, in the shape of FindAllStringSubmatchIndex of a pattern with two
// groups (key, value): [start, end, keyStart, keyEnd, valStart, valEnd].
// It scans by hand: separators are runs of ':' '=' '?' '!' '>' '-' holding
// ':' or '=' (:=, ::=, ?=, =>, !=…), the word "is", and value=.
func findIndexInAssignLines(text, low string) [][]int {
	var out [][]int
	forLines(low, assignKeywords, func(s, e int) bool {
		for _, m := range assignPairs(text[s:e]) {
			for i := range m {
				m[i] += s
			}
			out = append(out, m)
		}
		return len(out) < 32
	})
	return out
}

func assignPairs(line string) [][]int {
	var out [][]int
	for i := 0; i < len(line) && len(out) < 16; i++ {
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
		if ks == k || k-ks > 96 || !reSecretWord.MatchString(line[ks:k]) {
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

// vendorIndex maps the first four letters of every vendor name to the
// names, so a line is searched for all of them in one pass.
var vendorIndex = func() map[string][]string {
	m := map[string][]string{}
	for _, v := range vendors {
		k := v
		if len(k) > 4 {
			k = k[:4]
		}
		m[k] = append(m[k], v)
	}
	return m
}()

// vendorPair2 marks the two-letter beginnings of vendor names: most
// positions of a line are rejected by one array lookup.
var vendorPair2 = func() *[1 << 16]bool {
	var t [1 << 16]bool
	for _, v := range vendors {
		t[uint16(v[0])<<8|uint16(v[1])] = true
	}
	return &t
}()

func hasVendor(line string) bool {
	for i := 0; i+3 <= len(line); i++ {
		if !vendorPair2[uint16(line[i])<<8|uint16(line[i+1])] {
			continue
		}
		for _, n := range []int{4, 3} {
			if i+n > len(line) {
				continue
			}
			for _, v := range vendorIndex[line[i:i+n]] {
				if strings.HasPrefix(line[i:], v) {
					return true
				}
			}
		}
	}
	return false
}

// vendorMatches finds KEY: VALUE and KEY = VALUE pairs on the lines naming
// a vendor, as [whole, key, value] like a regexp submatch.
func vendorMatches(text, low string) [][]string {
	var out [][]string
	for start := 0; start < len(low); {
		end := strings.IndexByte(low[start:], '\n')
		if end < 0 {
			end = len(low)
		} else {
			end += start
		}
		if hasVendor(low[start:end]) {
			out = append(out, keyValues(text[start:end])...)
		}
		start = end + 1
	}
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

// tokens returns the runs of token characters at least min long.
func tokens(text string, min, limit int) []string {
	var out []string
	start := -1
	for i := 0; i <= len(text); i++ {
		in := i < len(text) && tokenByte(text[i])
		if in && start < 0 {
			start = i
		} else if !in && start >= 0 {
			if i-start >= min {
				out = append(out, text[start:i])
				if len(out) >= limit {
					return out
				}
			}
			start = -1
		}
	}
	return out
}

func tokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '_' || c == '.' || c == '~' || c == '-'
}

// hexNearSecretWord finds a 32–64 digit hex string within 120 bytes after
// the word password, secret, token or api key (a generated admin password,
// a token printed by a tool).
func hexNearSecretWord(text, low string) (secretHit, bool) {
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

func isHexByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// pairSet records which two-byte sequences occur in a text (and its
// lower-case form), so that most keywords are ruled out without a scan.
type pairSet [1 << 10]uint64

func newPairSet(text, low string) *pairSet {
	var p pairSet
	for _, t := range []string{text, low} {
		for i := 0; i+1 < len(t); i++ {
			k := uint16(t[i])<<8 | uint16(t[i+1])
			p[k>>6] |= 1 << (k & 63)
		}
	}
	return &p
}

func (p *pairSet) has(a, b byte) bool {
	k := uint16(a)<<8 | uint16(b)
	return p[k>>6]&(1<<(k&63)) != 0
}

// curlUserArgs returns the arguments of -u and --user options: the
// user:password of curl and its kind.
func curlUserArgs(text string) []string {
	var out []string
	for _, opt := range []string{"--user", "-u"} {
		for off := 0; len(out) < 8; {
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

// ruleMatches runs a prefix rule on the whole text when it is short, and
// on the lines holding one of the rule's keywords when it is long.
func ruleMatches(r prefixRule, text, low string) [][]int {
	if len(text) <= 1024 {
		return r.re.FindAllStringIndex(text, 8)
	}
	var out [][]int
	hay := text
	if r.lkw {
		hay = low
	}
	for start := 0; start < len(text) && len(out) < 8; {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		for _, k := range r.kws {
			if strings.Contains(hay[start:end], k) {
				for _, m := range r.re.FindAllStringIndex(text[start:end], 8) {
					out = append(out, []int{m[0] + start, m[1] + start})
				}
				break
			}
		}
		start = end + 1
	}
	return out
}
