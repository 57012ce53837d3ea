package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// The arguments of every tool are read here before the SDK sees them, so
// that a client's mistake is answered in one sentence naming the argument
// (the SDK's schema validator speaks of JSON pointers). What decodeArgs
// accepts, the tool's JSON Schema accepts too (FuzzDecodeArgs holds the
// two together), so the SDK's own check never has the last word.

// maxArgs bounds a call's arguments, in bytes.
const maxArgs = 1 << 20

// decodeArgs reads raw as the arguments of tool into In (a struct whose
// fields carry json tags): a JSON object, every key a field, the fields
// without omitempty present, no value null, each of its field's type.
// Absent arguments read as {}.
func decodeArgs[In any](tool string, raw json.RawMessage) (In, error) {
	var in In
	raw = bytes.Trim(raw, " \t\r\n") // JSON's white space, no other
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	if len(raw) > maxArgs {
		return in, fmt.Errorf("the arguments of %s are %d bytes long; the limit is %d", tool, len(raw), maxArgs)
	}
	if !utf8.Valid(raw) {
		return in, fmt.Errorf("the arguments of %s are not valid UTF-8", tool)
	}
	if !json.Valid(raw) {
		return in, fmt.Errorf("the arguments of %s are not valid JSON", tool)
	}
	var fields map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &fields) != nil {
		return in, fmt.Errorf("the arguments of %s must be a JSON object, not %s", tool, kindOf(raw))
	}
	if fields == nil { // "null" never gets here: it is not '{'
		fields = map[string]json.RawMessage{}
	}
	if dup := duplicateKey(raw); dup != "" {
		return in, fmt.Errorf("the arguments of %s name %q twice", tool, dup)
	}
	rt := reflect.TypeFor[In]()
	known := map[string]reflect.StructField{}
	var names []string
	for i := range rt.NumField() {
		f := rt.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		known[name] = f
		names = append(names, name)
		if _, ok := fields[name]; !ok && !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			return in, fmt.Errorf("%s needs the argument %q", tool, name)
		}
	}
	for k, v := range fields {
		f, ok := known[k]
		if !ok {
			if len(names) == 0 {
				return in, fmt.Errorf("%s takes no arguments, so %q is not one", tool, clip(k, 60))
			}
			return in, fmt.Errorf("%s has no argument %q (it takes %s)", tool, clip(k, 60), strings.Join(quoteAll(names), ", "))
		}
		if err := checkValue(f.Type, v); err != nil {
			return in, fmt.Errorf("the argument %q of %s must be %s, not %s", k, tool, err, kindOf(v))
		}
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, fmt.Errorf("the arguments of %s could not be read: %s", tool, firstLine(err.Error()))
	}
	return in, nil
}

// checkValue says what v must be when it is not of Go type t: the error's
// text is the type wanted, in words.
func checkValue(t reflect.Type, v json.RawMessage) error {
	c := firstByte(v)
	switch t.Kind() {
	case reflect.String:
		if c != '"' {
			return errors.New("a string")
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		var n int64
		if c == '"' || c == '{' || c == '[' || c == 'n' || c == 't' || c == 'f' || json.Unmarshal(v, &n) != nil {
			return errors.New("a whole number")
		}
		if n > 1<<31-1 || n < -(1<<31) {
			return errors.New("a whole number of a sensible size")
		}
	case reflect.Map:
		if c != '{' {
			return errors.New("a JSON object")
		}
	default:
		return errors.New("something this server cannot read")
	}
	return nil
}

// kindOf names a JSON value's kind for an error.
func kindOf(v json.RawMessage) string {
	switch firstByte(v) {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case 0:
		return "nothing"
	}
	return "a number"
}

func firstByte(v json.RawMessage) byte {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return 0
	}
	return v[0]
}

// duplicateKey is a key the top-level object names twice ("": none).
// encoding/json keeps the last silently; a client that sends two
// different values for one argument has made a mistake.
func duplicateKey(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return ""
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		k, _ := tok.(string)
		if seen[k] {
			return clip(k, 60)
		}
		seen[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return ""
		}
	}
	return ""
}

// rawArg is the raw JSON of one argument of an object already decoded by
// decodeArgs.
func rawArg(raw json.RawMessage, name string) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil
	}
	return fields[name]
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// clip bounds s for an error, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
