package gates

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxJSONDepth bounds nesting in a decoded action; a real action is three
// levels deep, so anything near this is an attack on the decoder.
const maxJSONDepth = 32

// object is a decoded JSON object that remembers its key order and so can
// refuse duplicate keys: {"tool":"message","tool":"shell"} means different
// things to different readers, and the gates must see what will run.
type object struct {
	keys   []string
	vals   map[string]any
	fold   bool   // keys were normalised (plist form)
	dupErr string // set when a normalised key repeated
}

// parseJSON decodes one JSON value into the generic form the decoders share:
// *object for objects, []any, string, json.Number, bool, nil. It refuses
// duplicate keys, nesting deeper than maxJSONDepth and trailing data.
//
// Valid JSON (what a model or an editor sends) is read by a direct
// recursive descent (readFast): no token interface, no reflection, one
// allocation per string. Anything else goes through encoding/json's token
// reader, whose error says what is wrong; so does valid JSON that the
// descent refuses (a duplicate key, too deep), for the same error.
func parseJSON(data []byte) (any, error) {
	if json.Valid(data) {
		r := fastReader{data: data}
		if v, ok := r.value(0); ok {
			return v, nil
		}
	}
	return parseJSONTokens(data)
}

// parseJSONTokens is parseJSON by encoding/json's token reader.
func parseJSONTokens(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

func readValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("JSON nested deeper than %d levels", maxJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty or truncated JSON")
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := &object{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("invalid JSON: %w", err)
				}
				k, _ := kt.(string)
				if _, dup := obj.vals[k]; dup {
					return nil, fmt.Errorf("duplicate key %q", k)
				}
				v, err := readValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				obj.keys = append(obj.keys, k)
				obj.vals[k] = v
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("invalid JSON: %w", err)
			}
			return obj, nil
		case '[':
			var arr []any
			for dec.More() {
				v, err := readValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("invalid JSON: %w", err)
			}
			return arr, nil
		}
		return nil, fmt.Errorf("invalid JSON: unexpected %v", t)
	default:
		return t, nil
	}
}
