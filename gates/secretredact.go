package gates

import (
	"slices"
	"strings"
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
