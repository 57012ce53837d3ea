package lsp

import (
	"bytes"
	"errors"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// codec marshals the payloads of the connection with the protocol
// package's union-aware encoder, so that protocol types (WorkspaceEdit's
// document changes, for one) and this package's own result types go out
// the same way. It is protocol's own codec, which that package does not
// export; NewServer is not used because it runs every message
// concurrently (DESIGN §10).
type codec struct{}

// Marshal implements jsonrpc2.Codec.
func (codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case *jsonrpc2.RawMessage:
		if m == nil || *m == nil {
			return []byte("null"), nil
		}
		return *m, nil
	}
	return protocol.Marshal(v)
}

// Unmarshal implements jsonrpc2.Codec. jsonrpc2 decodes the client's
// answers to the server's calls with it on its read goroutine, where a
// panic would end the process: one is an error here.
func (codec) Unmarshal(data []byte, v any) (err error) {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the client's answer does not decode into %T: %v", v, r)
		}
	}()
	return protocol.Unmarshal(data, v)
}

// absent reports whether params carry nothing: no member, or null. The
// specification lets shutdown and exit come without params, and clients
// send "params": null for them (eglot) or leave it out (Neovim); a
// request whose params are optional is served with their zero value.
func absent(params []byte) bool {
	p := bytes.TrimSpace(params)
	return len(p) == 0 || bytes.Equal(p, []byte("null"))
}

// decode reads params into v, leaving v at its zero value when there are
// none. A malformed payload is an InvalidParams error naming the method.
func decode(method string, params []byte, v any) error {
	if absent(params) {
		return nil
	}
	if err := protocol.Unmarshal(params, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "the params of %s do not decode: %v", method, err)
	}
	return nil
}

// rpcError turns a handler's error into the JSON-RPC error the client sees:
// an *jsonrpc2.Error as it is, a usage problem as InvalidParams, and any
// other failure as a RequestFailed (-32803) with the error's sentence.
func rpcError(err error) error {
	if err == nil {
		return nil
	}
	var je *jsonrpc2.Error
	if errors.As(err, &je) {
		return je
	}
	var ue *userError
	if errors.As(err, &ue) {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, ue.msg)
	}
	return jsonrpc2.NewError(codeRequestFailed, err.Error())
}

// codeRequestFailed is LSP's RequestFailed: the request was valid but the
// server could not do what it asked.
const codeRequestFailed jsonrpc2.Code = -32803

// userError is a request the server understood but cannot serve as asked
// (no document at that URI, no ID under the cursor): the message is one
// sentence for the user.
type userError struct{ msg string }

func (e *userError) Error() string { return e.msg }

func userErrorf(format string, a ...any) error { return &userError{msg: fmt.Sprintf(format, a...)} }
