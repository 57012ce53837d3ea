package bridge

import (
	"errors"
	"fmt"
	"math/big"
	"unicode/utf8"

	"pp-lsp/server/frame"
	"pp-lsp/server/plist"
)

// The keywords of the envelope and of the actions (DESIGN §9).
const (
	kType      plist.Keyword = "TYPE"
	kMeta      plist.Keyword = "META"
	kPayload   plist.Keyword = "PAYLOAD"
	kDepth     plist.Keyword = "DEPTH"
	kRequestID plist.Keyword = "REQUEST-ID"
	kSessionID plist.Keyword = "SESSION-ID"
	kSource    plist.Keyword = "SOURCE"
	kAction    plist.Keyword = "ACTION"
	kText      plist.Keyword = "TEXT"
	kStatus    plist.Keyword = "STATUS"
	kLevel     plist.Keyword = "LEVEL"
	kVersion   plist.Keyword = "VERSION"
	kToken     plist.Keyword = "TOKEN"
	kNonce     plist.Keyword = "NONCE"
	kProof     plist.Keyword = "PROOF"
	kCaps      plist.Keyword = "CAPABILITIES"
	kTarget    plist.Keyword = "TARGET"
	kCancelled plist.Keyword = "CANCELLED"
	kFile      plist.Keyword = "FILE"
	kLine      plist.Keyword = "LINE"
	kBudget    plist.Keyword = "BUDGET"
	kID        plist.Keyword = "ID"
	kAlways    plist.Keyword = "ALWAYS"
	kHash      plist.Keyword = "HASH"
	kRevision  plist.Keyword = "REVISION"
	kList      plist.Keyword = "LIST"
	kChat      plist.Keyword = "CHAT"
	kNoChat    plist.Keyword = "NO-CHAT"

	typeRequest  plist.Keyword = "REQUEST"
	typeEvent    plist.Keyword = "EVENT"
	typeResponse plist.Keyword = "RESPONSE"
	typeLog      plist.Keyword = "LOG"
	typeStatus   plist.Keyword = "STATUS"
	typeChunk    plist.Keyword = "STREAM-CHUNK"

	actHandshake plist.Keyword = "HANDSHAKE"
	actAsk       plist.Keyword = "ASK"
	actContext   plist.Keyword = "CONTEXT"
	actApprove   plist.Keyword = "APPROVE"
	actReject    plist.Keyword = "REJECT"
	actPlans     plist.Keyword = "PLANS"
	actUndo      plist.Keyword = "UNDO"
	actCancel    plist.Keyword = "CANCEL"
	actStatus    plist.Keyword = "STATUS"
	actPing      plist.Keyword = "PING"

	statusOK        plist.Keyword = "OK"
	statusError     plist.Keyword = "ERROR"
	statusCancelled plist.Keyword = "CANCELLED"

	levelInfo  plist.Keyword = "INFO"
	levelWarn  plist.Keyword = "WARNING"
	levelError plist.Keyword = "ERROR"

	sourceDaemon plist.Keyword = "DAEMON"
)

// maxDepth is the deepest :DEPTH served (DESIGN §7: above 10 is dropped).
const maxDepth = 10

// envelope is a message from a client, its envelope keys taken apart.
type envelope struct {
	typ     plist.Keyword
	meta    plist.Plist
	payload plist.Plist
	depth   int
}

// parseEnvelope takes a message apart. The error names the key at fault.
func parseEnvelope(p plist.Plist) (envelope, error) {
	var e envelope
	t, ok := p.Keyword(kType)
	if !ok {
		return e, errors.New("the message has no :TYPE keyword")
	}
	e.typ = t
	if e.meta, ok = p.Plist(kMeta); !ok {
		return e, errors.New(":META is not a property list")
	}
	if e.payload, ok = p.Plist(kPayload); !ok {
		return e, errors.New(":PAYLOAD is not a property list")
	}
	if v, present := p.Get(kDepth); present && v != nil {
		d, ok := v.(int64)
		if !ok || d < 0 {
			return e, errors.New(":DEPTH is not a non-negative integer")
		}
		e.depth = int(min(d, maxDepth+1))
	}
	return e, nil
}

// requestKey checks a :REQUEST-ID and returns the text that identifies it
// among a connection's requests (its printed form, so 7 and "7" differ).
func requestKey(id any) (string, error) {
	switch id.(type) {
	case string, int64, *big.Int, plist.Keyword, plist.Symbol:
		b, err := plist.Marshal(id)
		if err != nil {
			return "", err
		}
		if len(b) > 256 {
			return "", errors.New(":REQUEST-ID is longer than 256 characters")
		}
		return string(b), nil
	case nil:
		return "", errors.New("a :REQUEST needs :META (:REQUEST-ID …)")
	default:
		return "", errors.New(":REQUEST-ID must be a string, an integer or a symbol")
	}
}

// message builds an outgoing envelope.
func message(typ plist.Keyword, meta, payload plist.Plist) plist.Plist {
	m := plist.Plist{}.Add(kType, typ)
	if len(meta) > 0 {
		m = m.Add(kMeta, meta)
	}
	return m.Add(kPayload, payload)
}

// answerMeta is the :META of every answer to a request: it echoes the id.
func answerMeta(id any) plist.Plist {
	return plist.Plist{}.Add(kSource, sourceDaemon).Add(kRequestID, id)
}

// logMessage is a :LOG frame's envelope.
func logMessage(level plist.Keyword, text string) plist.Plist {
	return message(typeLog, plist.Plist{}.Add(kSource, sourceDaemon), plist.Plist{}.Add(kLevel, level).Add(kText, text))
}

// encode prints msg as one frame.
func encode(msg plist.Plist) ([]byte, error) {
	buf, start := frame.Begin(make([]byte, 0, 256))
	buf, err := plist.Append(buf, msg)
	if err != nil {
		return nil, fmt.Errorf("printing a message: %w", err)
	}
	if err := frame.End(buf, start); err != nil {
		return nil, err
	}
	return buf, nil
}

// maxChunk is the largest piece of streamed text sent in one chunk frame; a
// longer emit is split (at character boundaries) so no chunk outgrows a frame.
const maxChunk = 64 << 10

// splitChunk cuts s into pieces of at most maxChunk bytes, never inside a
// UTF-8 sequence.
func splitChunk(s string) []string {
	var out []string
	for len(s) > maxChunk {
		cut := maxChunk
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 {
			cut = maxChunk
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}
