package gates

import (
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The secrets vector's rules, turned on text bound for a model or a log:
// the same rules that deny an action carrying a secret find the secrets in
// a note, a command's output or a conversation, and each is replaced by a
// mark naming its rule, so that the model knows a secret was there and of
// what kind, and never its bytes.

// SecretSpan is one secret the rule set found: text[Start:End] is the
// secret itself (the value of password = …, not its key), Rule the
// rule's name as a verdict gives it, Strong whether the gate would deny
// it anywhere (a weak finding is denied only when it would leave this
// machine; a model may be on another machine, so both are redacted).
type SecretSpan struct {
	Start, End int
	Rule       string
	Strong     bool
}

// FindSecrets returns every secret the secrets vector's rules find in
// text, in order, none overlapping another: where two findings overlap,
// one span covers both and names the rule read first (a provider's token
// rather than the long run of token characters around it). Unlike the
// gate, which stops at its first strong finding and reads a few matches
// of each rule, it reads every match of every rule.
func FindSecrets(text string) []SecretSpan {
	type finding struct {
		SecretSpan
		order int // the rules' order: the provider rules first, the shapes last
	}
	marks := markSpans(text)
	var found []finding
	scanner := newSecretScanner()
	scanner.each(text, true, func(f secretFinding) bool {
		if f.end > f.start && !inMark(marks, f.start, f.end) {
			found = append(found, finding{SecretSpan{Start: f.start, End: f.end, Rule: f.rule, Strong: f.strong}, len(found)})
		}
		return true
	})
	for _, s := range acrossLines(scanner, text) {
		if !inMark(marks, s.Start, s.End) {
			found = append(found, finding{s, len(found)})
		}
	}
	// The same rules read the text as its escapes decode (unescaped): a
	// secret held in a JSON string within a string ({\"password\":\"…\"})
	// or percent-encoded (password%3D…) is marked where its escaped bytes
	// are.
	if view, at, ok := unescaped(text); ok {
		scanner.each(view, true, func(f secretFinding) bool {
			if start, end := at[f.start], at[f.end]; end > start && !inMark(marks, start, end) {
				found = append(found, finding{SecretSpan{Start: start, End: end, Rule: f.rule, Strong: f.strong}, len(found)})
			}
			return true
		})
	}
	if len(found) == 0 {
		return nil
	}
	slices.SortStableFunc(found, func(a, b finding) int { return a.Start - b.Start })
	out := found[:1]
	for _, s := range found[1:] {
		last := &out[len(out)-1]
		if s.Start >= last.End {
			out = append(out, s)
			continue
		}
		// One span for both, named by the more telling rule.
		last.End = max(last.End, s.End)
		last.Strong = last.Strong || s.Strong
		if s.order < last.order {
			last.Rule, last.order = s.Rule, s.order
		}
	}
	spans := make([]SecretSpan, len(out))
	for i, f := range out {
		spans[i] = f.SecretSpan
	}
	return spans
}

// acrossLines finds the secrets a line break cuts in two: where a run of
// token characters ends a line and another starts the next (after its
// indentation), the two lines are read joined there (what comes before
// the first run still tells a checksum from a token), and a secret that
// spans the break is two spans, one each side. Only runs that together
// are at least 16 long, each at least 4 and neither a plain word, are
// joined: no rule finds a shorter token, and a random key's piece is
// rarely a word ("includes" ending a line and "=file.org=" starting the
// next make a token that is none).
func acrossLines(s *secretScanner, text string) []SecretSpan {
	var out []SecretSpan
	for i := strings.IndexByte(text, '\n'); i >= 0; {
		l := i
		if l > 0 && text[l-1] == '\r' {
			l--
		}
		ls := l
		for ls > 0 && tokenByte(text[ls-1]) {
			ls--
		}
		j := i + 1
		for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
			j++
		}
		je := j
		for je < len(text) && tokenByte(text[je]) {
			je++
		}
		if l-ls >= 4 && je-j >= 4 && l-ls+je-j >= 16 && !plainWord(text[ls:l]) && !plainWord(text[j:je]) {
			ps := max(strings.LastIndexByte(text[:ls], '\n')+1, ls-200)
			rest := strings.IndexByte(text[je:], '\n')
			if rest < 0 {
				rest = len(text) - je
			}
			re := je + min(rest, 200)
			seam := l - ps
			s.each(text[ps:l]+text[j:re], true, func(f secretFinding) bool {
				if f.start < seam && f.end > seam {
					out = append(out,
						SecretSpan{Start: ps + f.start, End: l, Rule: f.rule, Strong: f.strong},
						SecretSpan{Start: j, End: j + f.end - seam, Rule: f.rule, Strong: f.strong})
				}
				return true
			})
		}
		next := strings.IndexByte(text[i+1:], '\n')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return out
}

// maxUnescapeLevels bounds how many times unescaped decodes the text: a
// JSON string within a JSON string within a string is as deep as text
// bound for a model nests them.
const maxUnescapeLevels = 3

// unescaped is text with its escapes decoded — JSON's (\" \\ \/ \n \t
// \r \b \f \uXXXX) and percent's (%XX), again on what that gives while
// it changes, at most maxUnescapeLevels times — and at[i] the offset in
// text where the escape making its byte i starts (at[len(view)] is
// len(text)), so that a span of the view is the span of text that holds
// its bytes, escapes whole. ok is false when text holds no escape.
func unescaped(text string) (view string, at []int, ok bool) {
	view = text
	for level := 0; level < maxUnescapeLevels; level++ {
		next, nat, changed := unescapeOnce(view)
		if !changed {
			break
		}
		if at != nil {
			for i, o := range nat {
				nat[i] = at[o]
			}
		}
		view, at, ok = next, nat, true
	}
	return view, at, ok
}

// unescapeOnce decodes one level of escapes (see unescaped).
func unescapeOnce(text string) (string, []int, bool) {
	if !strings.ContainsAny(text, "\\%") {
		return text, nil, false
	}
	var b strings.Builder
	at := make([]int, 0, len(text)+1)
	put := func(s string, from int) {
		for range len(s) {
			at = append(at, from)
		}
		b.WriteString(s)
	}
	changed := false
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '%' && i+2 < len(text) && isHex(text[i+1]) && isHex(text[i+2]):
			put(string([]byte{unhex(text[i+1])<<4 | unhex(text[i+2])}), i)
			i += 3
			changed = true
			continue
		case c == '\\' && i+1 < len(text):
			if r, n := jsonUnescape(text[i:]); n > 0 {
				put(r, i)
				i += n
				changed = true
				continue
			}
		}
		put(text[i:i+1], i)
		i++
	}
	at = append(at, len(text))
	return b.String(), at, changed
}

// jsonUnescape decodes the JSON escape s starts with: what it stands for
// and its length, or n == 0 when s starts with none.
func jsonUnescape(s string) (string, int) {
	switch s[1] {
	case '"', '\\', '/':
		return s[1:2], 2
	case 'n':
		return "\n", 2
	case 't':
		return "\t", 2
	case 'r':
		return "\r", 2
	case 'b':
		return "\b", 2
	case 'f':
		return "\f", 2
	case 'u':
		if len(s) < 6 {
			return "", 0
		}
		r := hex4([]byte(s[2:6]))
		if r < 0 {
			return "", 0
		}
		if utf16.IsSurrogate(r) {
			if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
				if r2 := hex4([]byte(s[8:12])); r2 >= 0 {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						return string(d), 12
					}
				}
			}
			return string(utf8.RuneError), 6
		}
		return string(r), 6
	}
	return "", 0
}

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}

// plainWord says whether a run of token characters is a word of a
// language: letters only (punctuation around them aside) that wordLike
// reads as one.
func plainWord(run string) bool {
	w := strings.Trim(run, "=.-_~/+")
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if c := w[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return wordLike(w)
}

// RedactSecrets replaces every span FindSecrets finds with its mark,
// SecretMark(rule); every other byte is kept as it was. A mark can make
// what surrounds it a finding where the secret did not (its rule's name
// holds the word "token", "secret" or "password", which the hex rule
// reads before a hex string: a hex string beside a redacted key is most
// likely its other half), so the text is read again until nothing more is
// found: RedactSecrets(RedactSecrets(s)) is RedactSecrets(s).
func RedactSecrets(text string) string {
	for round := 0; round < maxRedactRounds; round++ {
		spans := FindSecrets(text)
		if len(spans) == 0 {
			return text
		}
		var b strings.Builder
		b.Grow(len(text))
		at := 0
		for _, s := range spans {
			b.WriteString(text[at:s.Start])
			b.WriteString(SecretMark(s.Rule))
			at = s.End
		}
		b.WriteString(text[at:])
		text = b.String()
	}
	return text
}

// maxRedactRounds bounds the readings of RedactSecrets: each round
// replaces bytes outside the marks, and in practice the second finds
// nothing.
const maxRedactRounds = 4

// SecretMark is what replaces a secret: "[secret " the rule's name in
// lower case, words joined by '-', "]" — [secret aws-access-key],
// [secret password-assigned-in-clear]. A rule whose name holds a word of
// the text (the key a value was assigned to) is marked by its family
// alone, so that no byte of the text is ever in a mark. A mark holds no
// separator a rule reads a value after (no ':' or '='), so a mark is
// never a finding, nor makes one of what surrounds it.
func SecretMark(rule string) string { return markOpen + markName(rule) + "]" }

// markName is a rule's name as its mark spells it.
func markName(rule string) string {
	switch {
	case strings.HasPrefix(rule, "secret assigned to "), strings.HasPrefix(rule, "a value assigned to "):
		rule = "secret assigned"
	case strings.HasPrefix(rule, "hex secret next to the word "):
		rule = "hex secret"
	case strings.HasPrefix(rule, "a ") && strings.HasSuffix(rule, " credential"):
		rule = "service credential"
	}
	rule = strings.TrimPrefix(rule, "a ")
	var b strings.Builder
	dash := false
	for i := 0; i < len(rule); i++ {
		c := rule[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
		default:
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// markSpans are the marks RedactSecrets wrote in text: "[secret ", the
// mark name of one of the rules, "]".
func markSpans(text string) [][2]int {
	var out [][2]int
	for i := 0; ; {
		j := strings.Index(text[i:], markOpen)
		if j < 0 {
			return out
		}
		i += j
		k := i + len(markOpen)
		for k < len(text) && (text[k] >= 'a' && text[k] <= 'z' || text[k] >= '0' && text[k] <= '9' || text[k] == '-') {
			k++
		}
		if k < len(text) && text[k] == ']' && markNames[text[i+len(markOpen):k]] {
			out = append(out, [2]int{i, k + 1})
		}
		i = k
	}
}

// structuralRules name the findings of the rules that are not prefix
// rules, as SecretMark marks them (TestRedactedCorpusActionsCarryNoSecret
// holds every finding of the corpus to one of these).
var structuralRules = []string{"PEM private key", "PEM private key header", "JSON Web Token", "credentials in a URL",
	"user:password on a command line", "credentials block", "a password or code written out",
	"password in a connection string", "password in configuration", "credential in a header", "a service credential",
	"password assigned in clear", "a password-like value", "secret assigned", "Kubernetes Secret data", "hex secret",
	"high-entropy token", "token-like string", "password given on a command line"}

// markNames are the names a mark may hold, those of every rule.
var markNames = func() map[string]bool {
	m := map[string]bool{}
	for _, r := range prefixRules {
		m[markName(r.name)] = true
	}
	for _, r := range structuralRules {
		m[markName(r)] = true
	}
	return m
}()

// inMark says whether text[start:end] lies within one of marks: a rule
// reading a value after -p or a key (mysql -p[secret …]) may take a mark,
// or a piece of one, for a value, and its bytes were never a secret. Only
// a rule's own name makes a mark (markNames), so a secret written in the
// brackets ("[secret key-3f9c…]") is no mark, and is found.
func inMark(marks [][2]int, start, end int) bool {
	for _, m := range marks {
		if m[0] <= start && end <= m[1] {
			return true
		}
	}
	return false
}

// Redactor is the one redactor of text bound for a model or a log: the
// vault's secrets, by name ([vault:NAME], with their encodings), then
// every secret the rule set finds ([secret RULE]). A nil vault is an
// empty one.
func Redactor(v *Vault) func(string) string {
	return func(s string) string { return RedactSecrets(v.Redact(s)) }
}

// redactionMark returns the first mark of a redactor in text: one
// RedactSecrets writes ([secret RULE]), the vault's ([vault:NAME]) or the
// privacy filter's ([private]).
func redactionMark(text string) (string, bool) {
	if m := markSpans(text); len(m) > 0 {
		return text[m[0][0]:m[0][1]], true
	}
	if i := strings.Index(text, "[vault:"); i >= 0 {
		if j := strings.IndexByte(text[i:], ']'); j > 0 && j < 80 {
			return text[i : i+j+1], true
		}
	}
	if strings.Contains(text, "[private]") {
		return "[private]", true
	}
	return "", false
}

// markOpen starts every mark.
const markOpen = "[secret "
