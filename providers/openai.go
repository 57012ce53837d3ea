package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// OpenAI speaks the OpenAI-compatible chat completions API that llama.cpp's
// server, vLLM, LM Studio, OpenRouter and OpenAI itself serve: POST
// {base}/chat/completions with an SSE stream, GET {base}/models.
type OpenAI struct{ httpAPI }

// NewOpenAI makes an OpenAI-compatible provider; client may be shared (nil:
// a new one).
func NewOpenAI(pc ProviderConfig, client *http.Client, t Timeouts, opts Options) *OpenAI {
	return &OpenAI{newHTTPAPI(pc, client, t, opts)}
}

type openaiRequest struct {
	Model         string          `json:"model"`
	Messages      []openaiMessage `json:"messages"`
	Tools         []openaiTool    `json:"tools,omitempty"`
	Stream        bool            `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           int      `json:"max_tokens,omitempty"`
	MaxCompletionTokens int      `json:"max_completion_tokens,omitempty"`
	Temperature         *float64 `json:"temperature,omitempty"`
}

type openaiMessage struct {
	Role string `json:"role"`
	// Content is null on an assistant turn that only called tools.
	Content    *string          `json:"content"`
	ToolCalls  []openaiToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

type openaiToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// openaiTool is a function tool; Ollama takes the same shape.
type openaiTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// emptySchema is the parameters of a tool that takes none.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

func schemaOrEmpty(s json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(s)) == 0 {
		return emptySchema
	}
	return s
}

func openaiTools(tools []Tool) []openaiTool {
	var out []openaiTool
	for _, t := range tools {
		var ot openaiTool
		ot.Type = "function"
		ot.Function.Name, ot.Function.Description = t.Name, t.Description
		ot.Function.Parameters = schemaOrEmpty(t.Parameters)
		out = append(out, ot)
	}
	return out
}

// Stream asks the server and streams its answer.
func (o *OpenAI) Stream(ctx context.Context, req Request) (*Stream, error) {
	body := openaiRequest{Model: o.modelFor(req.Model), Stream: true, Tools: openaiTools(req.Tools), Temperature: req.Temperature}
	body.StreamOptions.IncludeUsage = true
	if req.MaxTokens > 0 {
		// OpenAI's own API has replaced max_tokens (which its reasoning models
		// refuse); the servers that imitate it know max_tokens best.
		if o.isOpenAIProper() {
			body.MaxCompletionTokens = req.MaxTokens
		} else {
			body.MaxTokens = req.MaxTokens
		}
	}
	if req.System != "" {
		sys := req.System
		body.Messages = append(body.Messages, openaiMessage{Role: "system", Content: &sys})
	}
	for _, m := range req.Messages {
		om := openaiMessage{Role: string(m.Role), ToolCallID: m.ToolCallID}
		content := m.Content
		if content != "" || m.Role != RoleAssistant || len(m.ToolCalls) == 0 {
			om.Content = &content
		}
		for _, tc := range m.ToolCalls {
			var c openaiToolCall
			c.ID, c.Type = tc.ID, "function"
			c.Function.Name = tc.Name
			c.Function.Arguments = string(normalizeArgs(tc.Arguments))
			om.ToolCalls = append(om.ToolCalls, c)
		}
		body.Messages = append(body.Messages, om)
	}
	return o.openStream(ctx, "/chat/completions", body.Model, body, openaiWire{})
}

// isOpenAIProper reports whether the base URL is OpenAI's own API.
func (o *OpenAI) isOpenAIProper() bool {
	u, err := url.Parse(o.base)
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

// Models lists the server's models (GET /models), by id.
func (o *OpenAI) Models(ctx context.Context) ([]string, error) {
	return o.listIDs(ctx, "/models", openaiWire{})
}

type openaiWire struct{}

// setHeaders sends the key as a bearer token; a local server needs none.
func (openaiWire) setHeaders(h http.Header, key string) {
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}

func (openaiWire) decoder(body io.Reader) decoder {
	return &openaiDecoder{r: newSSEReader(body), byIndex: map[int]*partialCall{}}
}

// openaiChunk is one chat.completion.chunk (or a mid-stream error).
type openaiChunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// partialCall is a tool call being assembled from its fragments.
type partialCall struct {
	index int
	id    string
	name  string
	args  []byte
}

type openaiDecoder struct {
	r       *sseReader
	byIndex map[int]*partialCall
	last    *partialCall
	finish  string
	sawStop bool // finish_reason arrived
	sawTool bool
	usage   *Usage
	// sawEvent tells a stream cut short from an answer that was never a
	// stream of events (an HTML page, a wrong base URL).
	sawEvent bool
	done     bool
}

func (d *openaiDecoder) step() ([]Event, error) {
	if d.done {
		return nil, io.EOF
	}
	ev, err := d.r.next()
	if err == io.EOF {
		switch {
		case d.sawStop: // a server that ends without [DONE]: the answer was whole
			return d.end(), nil
		case !d.sawEvent:
			return nil, errNoEvents
		}
		return nil, errCut
	}
	if err != nil {
		return nil, err
	}
	d.sawEvent = true
	data := bytes.TrimSpace(ev.data)
	if string(data) == "[DONE]" {
		return d.end(), nil
	}
	var c openaiChunk
	if err := json.Unmarshal(data, &c); err != nil {
		if d.r.truncated() {
			return nil, errCut
		}
		return nil, &Error{Kind: KindProtocol, Message: "an event of the stream is not a chat.completion.chunk: " + clip(string(data), 120)}
	}
	if (len(c.Error) > 0 && string(c.Error) != "null") || ev.name == "error" {
		return nil, &Error{Kind: KindServer, Message: clip(apiErrorMessage(data), 300)}
	}
	if c.Usage != nil {
		d.usage = &Usage{InputTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens}
	}
	var evs []Event
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		if ch.Delta.Content != nil && *ch.Delta.Content != "" {
			evs = append(evs, Event{Kind: EventText, Text: *ch.Delta.Content})
		}
		for _, f := range ch.Delta.ToolCalls {
			d.fragment(f.Index, f.ID, f.Function.Name, f.Function.Arguments)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			d.finish, d.sawStop = *ch.FinishReason, true
			evs = append(evs, d.flushCalls()...)
		}
	}
	return evs, nil
}

// fragment adds one tool-call fragment. The index says which call it
// belongs to; servers that leave it out start a new call with a new id and
// continue the last one otherwise.
func (d *openaiDecoder) fragment(index *int, id, name string, args json.RawMessage) {
	d.sawTool = true
	var pc *partialCall
	switch {
	case index != nil:
		pc = d.byIndex[*index]
		if pc == nil {
			pc = &partialCall{index: *index}
			d.byIndex[*index] = pc
		}
	case d.last == nil || (id != "" && d.last.id != "" && id != d.last.id):
		pc = &partialCall{index: len(d.byIndex)}
		for d.byIndex[pc.index] != nil {
			pc.index++
		}
		d.byIndex[pc.index] = pc
	default:
		pc = d.last
	}
	d.last = pc
	if id != "" && pc.id == "" {
		pc.id = id
	}
	if name != "" && pc.name == "" {
		pc.name = name
	}
	if len(args) > 0 && string(args) != "null" {
		var piece string
		if json.Unmarshal(args, &piece) == nil {
			pc.args = append(pc.args, piece...)
		} else { // an object instead of a string: some servers send it whole
			pc.args = append(pc.args, args...)
		}
	}
}

// flushCalls emits the assembled calls in index order.
func (d *openaiDecoder) flushCalls() []Event {
	if len(d.byIndex) == 0 {
		return nil
	}
	calls := make([]*partialCall, 0, len(d.byIndex))
	for _, pc := range d.byIndex {
		calls = append(calls, pc)
	}
	sort.Slice(calls, func(i, j int) bool { return calls[i].index < calls[j].index })
	evs := make([]Event, 0, len(calls))
	for _, pc := range calls {
		evs = append(evs, Event{Kind: EventToolCall, ToolCall: ToolCall{ID: pc.id, Name: pc.name, Arguments: normalizeArgs(pc.args)}})
	}
	clear(d.byIndex)
	d.last = nil
	return evs
}

// end closes the answer: calls not yet flushed, usage, stop.
func (d *openaiDecoder) end() []Event {
	d.done = true
	evs := d.flushCalls()
	if d.usage != nil {
		evs = append(evs, Event{Kind: EventUsage, Usage: *d.usage})
	}
	return append(evs, Event{Kind: EventStop, Stop: openaiStop(d.finish, d.sawTool), RawStop: d.finish})
}

func openaiStop(reason string, sawTools bool) StopReason {
	switch {
	case reason == "length":
		return StopMaxTokens
	case reason == "tool_calls" || reason == "function_call" || (sawTools && (reason == "stop" || reason == "")):
		return StopToolUse
	case reason == "stop" || reason == "":
		return StopEnd
	}
	return StopOther
}
