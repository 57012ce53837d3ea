package plist

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// parseNumber applies Emacs's string_to_number (base 10) to a whole token
// without escapes. ok reports whether the token is a number at all (if not,
// it is a symbol); err is set only for a number this reader cannot represent.
//
// An integer is [+-]?D+ with an optional trailing dot. A float has digits
// after the dot, or digits before an exponent; the exponents `e+INF` and
// `e+NaN` (exactly so) make the infinities and NaN.
func parseNumber(tok []byte) (v any, ok bool, err error) {
	i, n := 0, len(tok)
	negative := false
	if i < n && (tok[i] == '+' || tok[i] == '-') {
		negative = tok[i] == '-'
		i++
	}
	lead := digits(tok, i)
	i += lead
	dot := false
	if i < n && tok[i] == '.' {
		dot = true
		i++
	}
	trail := digits(tok, i)
	i += trail
	exp, inf, nan := false, false, false
	mantissaEnd := i
	if i < n && (tok[i] == 'e' || tok[i] == 'E') {
		j := i + 1
		if j < n && (tok[j] == '+' || tok[j] == '-') {
			j++
		}
		switch d := digits(tok, j); {
		case d > 0:
			exp, i = true, j+d
		case j < n && tok[j-1] == '+' && string(tok[j:min(j+3, n)]) == "INF":
			exp, inf, i = true, true, j+3
		case j < n && tok[j-1] == '+' && string(tok[j:min(j+3, n)]) == "NaN":
			exp, nan, i = true, true, j+3
		}
	}
	if i != n {
		return nil, false, nil
	}
	switch {
	case trail > 0 || lead > 0 && exp:
		var f float64
		switch {
		case inf:
			f = math.Inf(1)
		case nan:
			f = math.NaN()
		default:
			f, err = strconv.ParseFloat(string(tok), 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return nil, true, fmt.Errorf("the float %q cannot be read: %w", tok, err)
			}
			// Out of range reads as ±Inf, as Emacs's strtod gives.
			return f, true, nil
		}
		if negative {
			f = math.Copysign(f, -1)
		}
		return f, true, nil
	case lead > 0 && !exp:
		s := string(tok[:mantissaEnd])
		if dot {
			s = s[:len(s)-1]
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, true, nil
		}
		b, good := new(big.Int).SetString(s, 10)
		if !good {
			return nil, true, fmt.Errorf("the integer %q cannot be read", tok)
		}
		return b, true, nil
	default:
		return nil, false, nil
	}
}

// digits counts the ASCII digits at tok[i:].
func digits(tok []byte, i int) int {
	j := i
	for j < len(tok) && tok[j] >= '0' && tok[j] <= '9' {
		j++
	}
	return j - i
}
