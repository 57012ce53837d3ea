package providers

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// statusError reads a non-2xx answer into an *Error: the API's message
// (redacted), the kind by status, Retry-After on a 429, and a fix.
func (h *httpAPI) statusError(resp *http.Response, key string) *Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	msg := clip(redact(apiErrorMessage(body), key), 300)
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	e := &Error{Provider: h.name, Status: resp.StatusCode, Message: msg}
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		e.Kind = KindAuth
		e.Fix = "check the key in " + h.key.where()
		if h.key.env == "" && h.key.vault == "" {
			e.Fix = "the server wants a key: give one with #env:VAR or #vault:ENTRY"
		}
	case code == http.StatusNotFound:
		e.Kind = KindNotFound
		switch h.kind {
		case ProviderOllama:
			e.Fix = fmt.Sprintf("is the model pulled? (ollama pull %s) and is %s Ollama's base URL?", h.model, h.base)
		case ProviderOpenAI:
			e.Fix = fmt.Sprintf("check the model name, and that the base URL %s ends where /chat/completions begins (usually …/v1)", h.base)
		default:
			e.Fix = fmt.Sprintf("check the model name and the base URL %s", h.base)
		}
	case code == http.StatusTooManyRequests:
		e.Kind = KindRateLimited
		e.RetryAfter = parseRetryAfter(resp.Header, time.Now())
	case code == http.StatusRequestTimeout:
		e.Kind = KindTimeout
	case code >= 500:
		e.Kind = KindServer
	default:
		e.Kind = KindBadRequest
	}
	return e
}

// apiErrorMessage finds the message in an error body. The three APIs and
// the servers that imitate them put it in one of a few places:
// {"error":"…"} (Ollama), {"error":{"message","type","code"}} (OpenAI),
// {"type":"error","error":{"type","message"}} (Anthropic), {"message":"…"}
// or {"detail":"…"} (FastAPI-based servers). Anything else is shown as text.
func apiErrorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) != nil {
		return strings.TrimSpace(string(body)) // not JSON: a proxy's page, a plain-text error
	}
	if len(v.Error) > 0 {
		var s string
		if json.Unmarshal(v.Error, &s) == nil {
			return s
		}
		var obj struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
		}
		if json.Unmarshal(v.Error, &obj) == nil && obj.Message != "" {
			label := obj.Type
			var code string
			if json.Unmarshal(obj.Code, &code) == nil && code != "" && code != label {
				label = strings.Trim(label+"/"+code, "/")
			}
			if label != "" {
				return label + ": " + obj.Message
			}
			return obj.Message
		}
	}
	if v.Message != "" {
		return v.Message
	}
	if len(v.Detail) > 0 {
		var s string
		if json.Unmarshal(v.Detail, &s) == nil {
			return s
		}
		return string(v.Detail)
	}
	return "" // JSON without a message: the status says it all
}

// parseRetryAfter reads Retry-After (seconds or an HTTP-date) and the
// retry-after-ms that OpenAI's servers add; 0 when absent or past.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if ms := strings.TrimSpace(h.Get("Retry-After-Ms")); ms != "" {
		if f, err := strconv.ParseFloat(ms, 64); err == nil && f > 0 {
			return time.Duration(f * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 || secs > 1e9 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
