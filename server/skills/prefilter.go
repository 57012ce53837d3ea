package skills

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// literals are strings one of which any match of a regular expression
// contains, lower-cased (nil: none known, the expression must run). On an
// ASCII question, a trigger none of whose literals the lower-cased
// question contains cannot match, and its expression is not run: most
// triggers name words, and a pass tries them all.
func literals(expr string) []string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	lits := required(re.Simplify())
	for _, l := range lits {
		if l == "" {
			return nil
		}
	}
	return lits
}

// required is the literal set of re: any match contains one of them.
func required(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if !isASCII(s) {
			return nil
		}
		return []string{strings.ToLower(s)}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []string
		for _, s := range re.Sub {
			if l := required(s); l != nil && (best == nil || shortest(l) > shortest(best)) {
				best = l
			}
		}
		return best
	case syntax.OpAlternate:
		var all []string
		for _, s := range re.Sub {
			l := required(s)
			if l == nil {
				return nil
			}
			all = append(all, l...)
		}
		return all
	}
	return nil
}

func shortest(l []string) int {
	n := -1
	for _, s := range l {
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	return n
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// mayMatch reports whether k's expression can match a question whose
// lower-cased form is lower (ascii: the question is all ASCII, where
// lower-casing folds case exactly as (?i) does).
func (k *Skill) mayMatch(lower string, ascii bool) bool {
	if !ascii || k.lits == nil {
		return true
	}
	for _, l := range k.lits {
		if strings.Contains(lower, l) {
			return true
		}
	}
	return false
}
