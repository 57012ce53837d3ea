package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/jsonrpc2"
)

// wireJSON is what the server's decoders accept (go.lsp.dev/protocol's
// Unmarshal): duplicate names, the last one winning, and invalid UTF-8,
// read as U+FFFD. Anything else that is not RFC 8259 JSON is refused.
var wireJSON = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// rejection is a body that is not served: the answer to send, if any, and
// what the log says.
type rejection struct {
	// reply is the JSON to send back: one response, or an array of them
	// for a batch; nil sends nothing.
	reply []byte
	// why is one sentence for the log and the reply.
	why string
	// method is the message's method when it has a string one, for the log.
	method string
	// deliver, for a malformed response whose id the connection may be
	// waiting on, is the error response handed to it instead.
	deliver jsonrpc2.Message
}

// notServedBatch is why a batch's requests are refused.
const notServedBatch = "batches are not served: the Language Server Protocol sends one message at a time"

// check reads a body as one JSON-RPC message. A well-formed one is returned
// as jsonrpc2 decodes it (a request's method and params borrow body); any
// other is a rejection saying what to answer.
func check(body []byte) (jsonrpc2.Message, *rejection) {
	if !jsontext.Value(body).IsValid(wireJSON...) {
		why := "the message is not JSON"
		var se *json.SyntaxError
		if err := json.Unmarshal(body, new(struct{})); errors.As(err, &se) {
			why = fmt.Sprintf("the message is not JSON: %v (at byte %d)", se, se.Offset)
		}
		return nil, reject(nil, jsonrpc2.ParseError, why)
	}
	switch first := firstByte(body); first {
	case '{':
	case '[':
		return nil, checkBatch(body)
	default:
		return nil, reject(nil, jsonrpc2.InvalidRequest, "the message is a JSON "+kind(first)+", not an object")
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	if err == nil {
		return msg, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		// Valid JSON, an object: unreachable, but never a panic.
		return nil, reject(nil, jsonrpc2.InvalidRequest, "the message is not a JSON object: "+err.Error())
	}
	rawID, hasID := m["id"]
	if _, hasMethod := m["method"]; !hasMethod && (m["result"] != nil || m["error"] != nil) {
		return nil, checkResponse(rawID, hasID)
	}
	r := reject(echoID(rawID), jsonrpc2.InvalidRequest, "the message is not a valid request: "+requestProblem(m))
	r.method = methodOf(m)
	return nil, r
}

// checkResponse handles a response the connection could not decode. It is
// never answered; when its id is one jsonrpc2 can hold, the call waiting on
// it (if any) gets the error.
func checkResponse(rawID json.RawMessage, hasID bool) *rejection {
	r := &rejection{why: "the client's response is malformed (it needs \"jsonrpc\": \"2.0\", an id, and either a result or an error object)"}
	if !hasID {
		return r
	}
	if id, ok := decodeID(rawID); ok {
		r.deliver = jsonrpc2.NewResponse(id, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the client's answer to this request was malformed"))
	}
	return r
}

// requestProblem says what makes m an invalid request.
func requestProblem(m map[string]json.RawMessage) string {
	method, hasMethod := m["method"]
	id, hasID := m["id"]
	switch {
	case !bytes.Equal(m["jsonrpc"], []byte(`"2.0"`)):
		return `"jsonrpc" must be "2.0"`
	case !hasMethod:
		return `it has no "method"`
	case firstByte(method) != '"':
		return `"method" must be a string`
	case m["result"] != nil || m["error"] != nil:
		return `a request may not carry "result" or "error"`
	case hasID && !isNull(id):
		if _, ok := decodeID(id); !ok {
			return `"id" must be a string or an integer`
		}
	}
	return "jsonrpc2 cannot read it"
}

// checkBatch refuses a batch: each request in it is answered with its id,
// in one array; notifications get nothing, as JSON-RPC 2.0 §6 says.
func checkBatch(body []byte) *rejection {
	var members []json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil || len(members) == 0 {
		return reject(nil, jsonrpc2.InvalidRequest, "the message is an empty batch")
	}
	var replies [][]byte
	dropped := 0
	for _, raw := range members {
		var m map[string]json.RawMessage
		if firstByte(raw) != '{' || json.Unmarshal(raw, &m) != nil {
			replies = append(replies, errorResponse(nil, jsonrpc2.InvalidRequest, "invalid request: a batch member is not an object"))
			continue
		}
		_, hasMethod := m["method"]
		id, hasID := m["id"]
		switch {
		case !hasMethod && (m["result"] != nil || m["error"] != nil):
			dropped++ // a response: never answered
		case hasMethod && (!hasID || isNull(id)):
			dropped++ // a notification: never answered
		default:
			replies = append(replies, errorResponse(echoID(id), jsonrpc2.InvalidRequest, "invalid request: "+notServedBatch))
		}
	}
	why := notServedBatch
	if dropped > 0 {
		why += fmt.Sprintf("; %d of its %d messages were notifications or responses, dropped", dropped, len(members))
	}
	r := &rejection{why: why}
	if len(replies) > 0 {
		r.reply = append(append([]byte{'['}, bytes.Join(replies, []byte{','})...), ']')
	}
	return r
}

// reject is a rejection answered with one error response.
func reject(id []byte, code jsonrpc2.Code, why string) *rejection {
	prefix := "invalid request: "
	if code == jsonrpc2.ParseError {
		prefix = "parse error: "
	}
	return &rejection{reply: errorResponse(id, code, prefix+why), why: why}
}

// errorResponse is a JSON-RPC error response; a nil id is null.
func errorResponse(id []byte, code jsonrpc2.Code, message string) []byte {
	if id == nil {
		id = []byte("null")
	}
	msg, _ := json.Marshal(message) // a string always marshals
	b := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = append(b, msg...)
	return append(b, "}}"...)
}

// echoID is the id to answer with: as sent when it is a string or a
// number (even one jsonrpc2 cannot hold, such as 1.5), nil (null) otherwise.
func echoID(raw json.RawMessage) []byte {
	switch c := firstByte(raw); {
	case c == '"', c == '-', '0' <= c && c <= '9':
		return bytes.TrimSpace(raw)
	}
	return nil
}

// decodeID reads an id jsonrpc2 can hold: a string or an integer in int64.
func decodeID(raw json.RawMessage) (jsonrpc2.ID, bool) {
	raw = bytes.TrimSpace(raw)
	switch c := firstByte(raw); {
	case c == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return jsonrpc2.ID{}, false
		}
		return jsonrpc2.NewStringID(s), true
	case c == '-', '0' <= c && c <= '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return jsonrpc2.ID{}, false
		}
		return jsonrpc2.NewNumberID(n), true
	}
	return jsonrpc2.ID{}, false
}

// methodOf is m's method when it is a string, cut for the log.
func methodOf(m map[string]json.RawMessage) string {
	var s string
	if json.Unmarshal(m["method"], &s) != nil {
		return ""
	}
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// firstByte is the first byte of b that is not JSON whitespace, or 0.
func firstByte(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
		default:
			return c
		}
	}
	return 0
}

// kind names the JSON value that begins with c.
func kind(c byte) string {
	switch c {
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}
