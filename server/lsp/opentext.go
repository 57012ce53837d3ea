package lsp

import (
	"errors"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// didOpen's text is decoded once, into the slice the memex then keeps
// (issue 23). The protocol package's decoder copies the params, builds
// the text (every newline is an escape) in a buffer that doubles as it
// grows, and copies it into a string, which the server then copied into
// bytes: for a 12 MB buffer, 40–60 MB passed through the heap to open it.
// decodeOpen reads the params in place and unquotes the text into one
// slice of the quoted text's length (never shorter than the text).

// openParams are the fields of didOpen's params the server reads.
type openParams struct {
	TextDocument struct {
		URI     string   `json:"uri"`
		Version int32    `json:"version"`
		Text    openText `json:"text"`
	} `json:"textDocument"`
}

// openText is a JSON string decoded straight into bytes.
type openText []byte

// UnmarshalJSONFrom implements json.UnmarshalerFrom: the raw string is a
// view of the params, unquoted into one new slice.
func (t *openText) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if raw.Kind() != '"' {
		return errors.New("the text is not a string")
	}
	out, err := jsontext.AppendUnquote(make([]byte, 0, len(raw)), raw)
	if err != nil {
		return err
	}
	*t = out
	return nil
}

// openDoc is what didOpen needs of its params: the document and its
// text, which the caller owns.
type openDoc struct {
	uri     uri.URI
	version int32
	text    []byte
}

// decodeOpen decodes didOpen's params. Params the fast path does not take
// as they are (invalid UTF-8, which the protocol's decoder replaces; any
// error, so that it is reported in the protocol's words) go the
// protocol's way.
func decodeOpen(params []byte) (openDoc, error) {
	var p openParams
	if err := json.Unmarshal(params, &p); err == nil && !absent(params) {
		if u, err := uri.Parse(p.TextDocument.URI); err == nil {
			text := []byte(p.TextDocument.Text)
			if text == nil {
				text = []byte{}
			}
			return openDoc{uri: u, version: p.TextDocument.Version, text: text}, nil
		}
	}
	var pp protocol.DidOpenTextDocumentParams
	if err := decode(protocol.MethodTextDocumentDidOpen, params, &pp); err != nil {
		return openDoc{}, err
	}
	return openDoc{uri: pp.TextDocument.URI, version: pp.TextDocument.Version, text: []byte(pp.TextDocument.Text)}, nil
}
