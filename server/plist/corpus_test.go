package plist

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// corpus returns the hand-picked edge values followed by random values up to
// n in all, every one in the canonical form Read yields (so that a round trip
// must give it back exactly). The generator is seeded: the corpus is the same
// on every run.
func corpus(t *testing.T, n int) []any {
	t.Helper()
	big1, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	big2, _ := new(big.Int).SetString("-9223372036854775809", 10)
	vals := []any{
		nil, true, "", "plain", "a\nb\r\nc\td", `quote " and backslash \`, "é ü 😀 中文", "\x00\x01\x1b\x7f",
		"\u00a0\u2028\ufeff", "\\n is not a newline", "\"", "\\",
		int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64), big1, big2,
		0.0, math.Copysign(0, -1), 1.5, -2.25, 0.1, 1e21, 1e20, 1e-7, 1e-4, 123456.789, math.MaxFloat64,
		math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), math.NaN(), math.Copysign(math.NaN(), -1),
		Keyword("TYPE"), Keyword("REQUEST-ID"), Keyword("1"), Keyword(":"), Keyword("A B"), Keyword("É"), Keyword("1.5"),
		Symbol("ORG-MODE"), Symbol("org-mode"), Symbol("T"), Symbol("NIL"), Symbol("1"), Symbol("-"), Symbol("+1"),
		Symbol("."), Symbol("a.b"), Symbol("?a"), Symbol("a?"), Symbol("#a"), Symbol("|a|"), Symbol("a b"),
		Symbol("1e+INF"), Symbol("1/2"), Symbol("é"), Symbol("\\"), Symbol("a,b"), Symbol("a;b"), Symbol("a\x00b"),
		List{Keyword("TYPE"), Keyword("EVENT"), Keyword("PAYLOAD"), List{Keyword("ACTION"), Keyword("HANDSHAKE"), Keyword("VERSION"), "0.4.0"}},
		List{Keyword("TOOL"), Keyword("SHELL"), Keyword("ARGS"), List{Keyword("CMD"), "ls notes", Keyword("CWD"), "."}, Keyword("EXPLANATION"), "why"},
		List{nil, List{nil}, true, List{List{int64(1)}}},
	}
	rng := rand.New(rand.NewPCG(9, 2026))
	for len(vals) < n {
		vals = append(vals, randomValue(rng, 0))
	}
	return vals
}

// runePool holds the characters the generator draws from: the ones with a
// meaning to some reader, whitespace of every kind, and multi-byte text.
const runePool = ("aZ09 \t\n\r\x00\x01\x1b\x7f\"\\()[]{}'`,;#|:.?+-_*/=<>!@$%^&~\u00a0\u00e9\u00df\u0130\u01c5\u2028\u3000\ufeff\U0001F600中文")

func randomString(rng *rand.Rand, maxLen int) string {
	pool := []rune(runePool)
	var b strings.Builder
	for i := rng.IntN(maxLen + 1); i > 0; i-- {
		switch rng.IntN(4) {
		case 0:
			b.WriteRune(rune(0x20 + rng.IntN(0x5f)))
		case 1:
			b.WriteRune(rune(rng.IntN(0x3000)))
		default:
			b.WriteRune(pool[rng.IntN(len(pool))])
		}
	}
	s := b.String()
	return strings.ToValidUTF8(s, "\uFFFD")
}

func randomValue(rng *rand.Rand, depth int) any {
	kinds := 9
	if depth >= 4 {
		kinds = 7 // atoms only
	}
	switch rng.IntN(kinds) {
	case 0:
		return randomString(rng, 12)
	case 1:
		switch rng.IntN(3) {
		case 0:
			return int64(rng.Uint64())
		case 1:
			return int64(rng.IntN(2000) - 1000)
		default:
			digits := 19 + rng.IntN(40)
			var b strings.Builder
			if rng.IntN(2) == 0 {
				b.WriteByte('-')
			}
			b.WriteByte(byte('1' + rng.IntN(9)))
			for i := 1; i < digits; i++ {
				b.WriteByte(byte('0' + rng.IntN(10)))
			}
			v, _ := new(big.Int).SetString(b.String(), 10)
			if v.IsInt64() {
				return v.Int64() // what the reader yields for it
			}
			return v
		}
	case 2:
		switch rng.IntN(3) {
		case 0:
			return math.Float64frombits(rng.Uint64())
		case 1:
			return float64(rng.IntN(2000000)-1000000) / math.Pow(10, float64(rng.IntN(8)))
		default:
			return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(60)-30))
		}
	case 3:
		return randomKeyword(rng)
	case 4:
		for {
			name := randomString(rng, 8)
			if name != "" && name != "t" && name != "nil" && name[0] != ':' {
				return Symbol(name)
			}
		}
	case 5:
		return nil
	case 6:
		return true
	case 7:
		l := make(List, 1+rng.IntN(5))
		for i := range l {
			l[i] = randomValue(rng, depth+1)
		}
		return l
	default:
		p := Plist{}
		for i := rng.IntN(4); i >= 0; i-- {
			p = p.Add(randomKeyword(rng), randomValue(rng, depth+1))
		}
		return p.List()
	}
}

// randomKeyword returns a keyword in canonical (upper-case) form.
func randomKeyword(rng *rand.Rand) Keyword {
	for {
		name := strings.ToUpper(randomString(rng, 8))
		if name != "" && strings.ToUpper(name) == name {
			return Keyword(name)
		}
	}
}
