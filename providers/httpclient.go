package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"time"
)

// newHTTPClient makes the client all providers of one cascade share. The
// connect timeout is the dialer's; every other bound is per attempt (see
// attempt), because a streamed answer has no fixed length.
func newHTTPClient(t Timeouts) *http.Client {
	d := &net.Dialer{Timeout: time.Duration(t.Connect), KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment, // never applied to loopback
		DialContext:           d.DialContext,
		TLSHandshakeTimeout:   time.Duration(t.Connect),
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{Transport: tr}
}

// httpAPI is what the three HTTP providers share: where the API is, how to
// find the key, and the client and timeouts.
type httpAPI struct {
	name     string
	kind     string
	model    string
	base     string
	key      keyRef
	opts     Options
	client   *http.Client
	timeouts Timeouts
	local    bool
}

// newHTTPAPI fills in the timeouts' defaults and, when client is nil, makes
// a client of its own.
func newHTTPAPI(pc ProviderConfig, client *http.Client, t Timeouts, opts Options) httpAPI {
	t = t.withDefaults()
	if client == nil {
		client = newHTTPClient(t)
	}
	return httpAPI{
		name: pc.Name(), kind: pc.Kind, model: pc.Model, base: pc.baseURL(),
		key: keyRefFor(pc.Kind, pc.KeyEnv, pc.KeyVault), opts: opts, client: client,
		timeouts: t, local: pc.IsLocal(),
	}
}

// Local reports whether the provider is marked local (ProviderConfig.IsLocal).
func (h *httpAPI) Local() bool { return h.local }

// Name identifies the provider (kind:model@base_url).
func (h *httpAPI) Name() string { return h.name }

// resolveKey returns the key; a required key that is missing is a
// KindConfig error saying where to put it.
func (h *httpAPI) resolveKey() (string, error) {
	key, err := h.key.resolve(h.opts)
	if err != nil {
		return "", &Error{Provider: h.name, Kind: KindConfig, Message: err.Error()}
	}
	if key == "" && h.key.required {
		return "", &Error{Provider: h.name, Kind: KindConfig, Message: "no API key", Fix: "set " + h.key.where()}
	}
	return key, nil
}

// wire is one API's format: how to authenticate, how to read its errors,
// and how to decode its stream.
type wire interface {
	setHeaders(h http.Header, key string)
	decoder(body io.Reader) decoder
}

// decoder turns one API's stream into events. step reads one unit (a line,
// an SSE event) and returns the events it completes; it returns io.EOF once
// the answer's end has been read and errCut when the stream ends before it.
type decoder interface {
	step() ([]Event, error)
}

// errCut is a decoder's "the body ended before the answer did".
var errCut = errors.New("the stream ended before the answer was complete")

// errNoEvents is an SSE decoder's "the body ended without a single event":
// whatever answered, it was not this API's stream.
var errNoEvents = errors.New("the answer ended without a single server-sent event: is the base URL this API's?")

// errNoRecords is the NDJSON decoder's errNoEvents.
var errNoRecords = errors.New("the answer ended without a single JSON record: is the base URL Ollama's?")

// send makes one request in a new attempt (body nil: no body). On success
// the caller owns the attempt and must close it; a failure, including a
// non-2xx status, comes back as an *Error with everything closed.
func (h *httpAPI) send(ctx context.Context, method, path string, body any, w wire) (*attempt, *http.Response, error) {
	key, err := h.resolveKey()
	if err != nil {
		return nil, nil, err
	}
	var rd io.Reader
	if body != nil {
		payload, err := json.Marshal(body)
		if err != nil {
			return nil, nil, &Error{Provider: h.name, Kind: KindConfig, Message: "encoding the request: " + err.Error()}
		}
		rd = bytes.NewReader(payload)
	}
	a := h.newAttempt(ctx, key)
	req, err := http.NewRequestWithContext(a.ctx, method, h.base+path, rd)
	if err != nil {
		a.close()
		return nil, nil, &Error{Provider: h.name, Kind: KindConfig, Message: "building the request: " + err.Error()}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	w.setHeaders(req.Header, key)
	resp, err := h.client.Do(req)
	if err != nil {
		err = a.classify(err, true) // before close, whose cancellation would be taken for the cause
		a.close()
		return nil, nil, err
	}
	if resp.StatusCode/100 != 2 {
		e := h.statusError(resp, key)
		resp.Body.Close()
		a.close()
		return nil, nil, e
	}
	return a, resp, nil
}

// openStream posts body to path and returns the answer's stream. The
// attempt's clock starts here: first-output and total timeouts run from now.
func (h *httpAPI) openStream(ctx context.Context, path, model string, body any, w wire) (*Stream, error) {
	start := time.Now()
	a, resp, err := h.send(ctx, http.MethodPost, path, body, w)
	if err != nil {
		return nil, err
	}
	a.body = resp.Body
	a.dec = w.decoder(resp.Body)
	return newStream(h.name, model, start, a), nil
}

// modelFor returns the model a request asks for.
func (h *httpAPI) modelFor(override string) string {
	if override != "" {
		return override
	}
	return h.model
}

// getJSON fetches path (doctor's model lists) and decodes the JSON answer.
func (h *httpAPI) getJSON(ctx context.Context, path string, w wire, out any) error {
	a, resp, err := h.send(ctx, http.MethodGet, path, nil, w)
	if err != nil {
		return err
	}
	defer a.close()
	return a.readJSON(resp, "GET "+path, out)
}

// listIDs fetches a model list of the {"data":[{"id":…}]} shape that the
// OpenAI-compatible and Anthropic APIs share, and returns the ids.
func (h *httpAPI) listIDs(ctx context.Context, path string, w wire) ([]string, error) {
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := h.getJSON(ctx, path, w, &list); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		out = append(out, m.ID)
	}
	return out, nil
}

// postJSON posts body and decodes a whole (unstreamed) JSON answer (the
// embedding endpoints).
func (h *httpAPI) postJSON(ctx context.Context, path string, body any, w wire, out any) error {
	a, resp, err := h.send(ctx, http.MethodPost, path, body, w)
	if err != nil {
		return err
	}
	defer a.close()
	a.firstOutput() // a whole answer has no first token: from here the stall timeout bounds the body
	return a.readJSON(resp, "POST "+path, out)
}
