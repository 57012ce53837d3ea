package plist

import (
	"fmt"
	"math/big"
)

// Keyword is a keyword's name without its colon, in upper case: `:type` and
// `:TYPE` both read as Keyword("TYPE"), because the protocol compares
// keywords case-insensitively.
type Keyword string

// Symbol is a symbol other than a keyword, t and nil, by its exact
// (case-sensitive, unescaped) name.
type Symbol string

// List is a non-empty list; the empty list reads as nil.
type List []any

// Pair is one key and its value in a property list.
type Pair struct {
	Key   Keyword
	Value any
}

// Plist is a property list in the order it was written. Get returns the first
// value of a key, as Emacs's plist-get does, so a later duplicate is ignored.
type Plist []Pair

// AsPlist views v as a property list: nil is the empty plist; a List must have
// an even length with a keyword at every even position. The values are the
// list's own (not converted).
func AsPlist(v any) (Plist, error) {
	switch l := v.(type) {
	case nil:
		return nil, nil
	case Plist:
		return l, nil
	case List:
		if len(l)%2 != 0 {
			return nil, fmt.Errorf("a list of %d elements is not a property list: it needs an even number", len(l))
		}
		p := make(Plist, len(l)/2)
		for i := range p {
			k, ok := l[2*i].(Keyword)
			if !ok {
				return nil, fmt.Errorf("element %d of the list is %s, not the keyword a property list needs there", 2*i+1, describe(l[2*i]))
			}
			p[i] = Pair{Key: k, Value: l[2*i+1]}
		}
		return p, nil
	default:
		return nil, fmt.Errorf("%s is not a property list", describe(v))
	}
}

// IsPlist reports whether v can be viewed as a non-empty property list.
func IsPlist(v any) bool {
	l, ok := v.(List)
	if !ok || len(l)%2 != 0 {
		return false
	}
	for i := 0; i < len(l); i += 2 {
		if _, ok := l[i].(Keyword); !ok {
			return false
		}
	}
	return true
}

// Add returns p with key and v appended; it is the way to build a Plist
// without composite-literal noise: plist.Plist{}.Add("TYPE", plist.Keyword("EVENT")).
func (p Plist) Add(key Keyword, v any) Plist { return append(p, Pair{Key: key, Value: v}) }

// Get returns the value of the first pair with key.
func (p Plist) Get(key Keyword) (any, bool) {
	for _, kv := range p {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// String returns key's value if it is a string.
func (p Plist) String(key Keyword) (string, bool) {
	v, _ := p.Get(key)
	s, ok := v.(string)
	return s, ok
}

// Int returns key's value if it is an integer that fits int64.
func (p Plist) Int(key Keyword) (int64, bool) {
	v, _ := p.Get(key)
	n, ok := v.(int64)
	return n, ok
}

// Keyword returns key's value if it is a keyword.
func (p Plist) Keyword(key Keyword) (Keyword, bool) {
	v, _ := p.Get(key)
	k, ok := v.(Keyword)
	return k, ok
}

// Plist returns key's value viewed as a property list; absent or nil gives an
// empty plist and true, a value that is no plist gives false.
func (p Plist) Plist(key Keyword) (Plist, bool) {
	v, _ := p.Get(key)
	q, err := AsPlist(v)
	return q, err == nil
}

// List returns p as the flat list (k1 v1 k2 v2 …) it stands for; the empty
// plist is nil.
func (p Plist) List() List {
	if len(p) == 0 {
		return nil
	}
	l := make(List, 0, 2*len(p))
	for _, kv := range p {
		l = append(l, kv.Key, kv.Value)
	}
	return l
}

// Map returns the plain-Go view of p: keys are the keyword names (no colon,
// upper case), values are converted by ToGo, and nested property lists become
// maps too. For a key given twice the first value wins.
func (p Plist) Map() map[string]any {
	m := make(map[string]any, len(p))
	for _, kv := range p {
		if _, dup := m[string(kv.Key)]; dup {
			continue
		}
		m[string(kv.Key)] = toMaps(ToGo(kv.Value))
	}
	return m
}

// ToGo converts a value read by Read into plain Go values: keywords and
// symbols become their names as strings; true, nil, strings and numbers stay;
// a list that is a property list becomes a Plist with converted values; any
// other list becomes []any. It is idempotent, so converted values can be
// passed again.
//
// A list such as (:A :B) is both a list of two keywords and a property list;
// ToGo takes it for a property list. Callers that need the distinction read
// the List itself.
func ToGo(v any) any {
	switch x := v.(type) {
	case Keyword:
		return string(x)
	case Symbol:
		return string(x)
	case List:
		if p, err := AsPlist(x); err == nil {
			return ToGo(p)
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = ToGo(e)
		}
		return out
	case Plist:
		out := make(Plist, len(x))
		for i, kv := range x {
			out[i] = Pair{Key: kv.Key, Value: ToGo(kv.Value)}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = ToGo(e)
		}
		return out
	default:
		return v
	}
}

// toMaps turns every Plist inside a ToGo result into a map.
func toMaps(v any) any {
	switch x := v.(type) {
	case Plist:
		return x.Map()
	case []any:
		for i, e := range x {
			x[i] = toMaps(e)
		}
		return x
	default:
		return v
	}
}

// describe names a value's kind for error messages without quoting its
// content (which may be long or secret).
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case bool:
		if !x {
			return "nil"
		}
		return "t"
	case string:
		return "a string"
	case int64, *big.Int:
		return "an integer"
	case float64:
		return "a float"
	case Keyword:
		return "a keyword"
	case Symbol:
		return "a symbol"
	case List, Plist, []any:
		return "a list"
	default:
		return fmt.Sprintf("a Go %T", v)
	}
}
