package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/go-json-experiment/json/jsontext"
)

// withAllowRule returns the configuration file's text src with rule added
// at the end of "gates" → "permissions" → "allow", every other byte kept:
// the rule goes after the list's last element, a missing list, section or
// file is made where it would be last. src that is not a JSON object is
// an error: nothing is guessed. (The caller reads the result back as the
// configuration, which catches a key named twice after the place.)
func withAllowRule(src []byte, rule string) ([]byte, error) {
	quoted, err := json.Marshal(rule)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(src)) == 0 {
		return []byte(`{"gates": {"permissions": {"allow": [` + string(quoted) + "]}}}\n"), nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(src))
	at, insert, err := findAllow(dec, string(quoted))
	if err != nil {
		return nil, err
	}
	out := slices.Concat(src[:at], []byte(insert), src[at:])
	if !json.Valid(out) {
		return nil, errors.New("the rule could not be added without breaking the file")
	}
	return out, nil
}

// findAllow walks the top-level object to where the rule goes: the offset
// and the text to insert there. What it has not read of the document is
// left for the caller to check.
func findAllow(dec *jsontext.Decoder, quoted string) (int, string, error) {
	path := []string{"gates", "permissions", "allow"}
	nest := func(from int) string {
		s := quoted
		for i := len(path) - 1; i >= from; i-- {
			if i == len(path)-1 {
				s = `"` + path[i] + `": [` + s + `]`
			} else {
				s = `"` + path[i] + `": {` + s + `}`
			}
		}
		return s
	}
	if dec.PeekKind() != '{' {
		return 0, "", errors.New("it is not a JSON object")
	}
	if _, err := dec.ReadToken(); err != nil {
		return 0, "", err
	}
	for depth := 0; ; {
		// In the object of path[depth]'s parent: look for path[depth].
		found := false
		members := 0
		for dec.PeekKind() != '}' {
			if dec.PeekKind() == 0 {
				_, err := dec.ReadToken()
				return 0, "", err
			}
			tok, err := dec.ReadToken()
			if err != nil {
				return 0, "", err
			}
			members++
			want := tok.String() == path[depth]
			switch {
			case want && depth == len(path)-1:
				if dec.PeekKind() != '[' {
					return 0, "", fmt.Errorf("%q is not a list", path[depth])
				}
				dec.ReadToken()
				n := 0
				for dec.PeekKind() != ']' {
					if dec.PeekKind() == 0 {
						_, err := dec.ReadToken()
						return 0, "", err
					}
					if err := dec.SkipValue(); err != nil {
						return 0, "", err
					}
					n++
				}
				at := int(dec.InputOffset())
				if n > 0 {
					return at, ", " + quoted, nil
				}
				return at, quoted, nil
			case want:
				if dec.PeekKind() != '{' {
					return 0, "", fmt.Errorf("%q is not an object", path[depth])
				}
				dec.ReadToken()
				found = true
			default:
				if err := dec.SkipValue(); err != nil {
					return 0, "", err
				}
				continue
			}
			break
		}
		if found {
			depth++
			continue
		}
		// Not there: add it as this object's last member.
		at := int(dec.InputOffset())
		if members > 0 {
			return at, ", " + nest(depth), nil
		}
		return at, nest(depth), nil
	}
}
