package providers

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

// Ollama speaks Ollama's native API: POST {base}/api/chat with an NDJSON
// stream, GET {base}/api/tags for the models present.
type Ollama struct{ httpAPI }

// NewOllama makes an Ollama provider; client may be shared (nil: a new one).
func NewOllama(pc ProviderConfig, client *http.Client, t Timeouts, opts Options) *Ollama {
	return &Ollama{newHTTPAPI(pc, client, t, opts)}
}

type ollamaRequest struct {
	Model    string          `json:"model"`
	Messages []ollamaMessage `json:"messages"`
	Tools    []openaiTool    `json:"tools,omitempty"`
	Stream   bool            `json:"stream"`
	Options  *ollamaOptions  `json:"options,omitempty"`
}

type ollamaOptions struct {
	Temperature *float64 `json:"temperature,omitempty"`
	NumPredict  int      `json:"num_predict,omitempty"`
}

type ollamaMessage struct {
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	ToolCalls []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName  string           `json:"tool_name,omitempty"`
}

type ollamaToolCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// Stream asks Ollama and streams its answer.
func (o *Ollama) Stream(ctx context.Context, req Request) (*Stream, error) {
	body := ollamaRequest{Model: o.modelFor(req.Model), Stream: true, Tools: openaiTools(req.Tools)}
	if req.System != "" {
		body.Messages = append(body.Messages, ollamaMessage{Role: "system", Content: req.System})
	}
	for _, m := range req.Messages {
		om := ollamaMessage{Role: string(m.Role), Content: m.Content, ToolName: m.ToolName}
		for _, tc := range m.ToolCalls {
			var c ollamaToolCall
			c.Function.Name = tc.Name
			c.Function.Arguments = normalizeArgs(tc.Arguments)
			om.ToolCalls = append(om.ToolCalls, c)
		}
		body.Messages = append(body.Messages, om)
	}
	if req.Temperature != nil || req.MaxTokens > 0 {
		body.Options = &ollamaOptions{Temperature: req.Temperature, NumPredict: req.MaxTokens}
	}
	return o.openStream(ctx, "/api/chat", body.Model, body, ollamaWire{})
}

// Models lists the models Ollama has pulled (GET /api/tags), by name.
func (o *Ollama) Models(ctx context.Context) ([]string, error) {
	var tags struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if err := o.getJSON(ctx, "/api/tags", ollamaWire{}, &tags); err != nil {
		return nil, err
	}
	var out []string
	for _, m := range tags.Models {
		name := m.Name
		if name == "" {
			name = m.Model
		}
		out = append(out, name)
	}
	return out, nil
}

// hasOllamaModel reports whether want is among Ollama's names; a name
// without a tag means ":latest", as Ollama itself reads it.
func hasOllamaModel(names []string, want string) bool {
	if !strings.Contains(want, ":") {
		want += ":latest"
	}
	for _, n := range names {
		if !strings.Contains(n, ":") {
			n += ":latest"
		}
		if n == want {
			return true
		}
	}
	return false
}

type ollamaWire struct{}

// setHeaders sends a key only when one is configured (Ollama behind an
// authenticating proxy, or ollama.com): as a bearer token.
func (ollamaWire) setHeaders(h http.Header, key string) {
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}

func (ollamaWire) decoder(body io.Reader) decoder {
	return &ollamaDecoder{r: newNDJSONReader(body)}
}

// ollamaChunk is one NDJSON record of /api/chat.
type ollamaChunk struct {
	Message *struct {
		Content   string           `json:"content"`
		ToolCalls []ollamaToolCall `json:"tool_calls"`
	} `json:"message"`
	Done            bool            `json:"done"`
	DoneReason      string          `json:"done_reason"`
	PromptEvalCount int             `json:"prompt_eval_count"`
	EvalCount       int             `json:"eval_count"`
	TotalDuration   int64           `json:"total_duration"`
	Error           json.RawMessage `json:"error"`
}

type ollamaDecoder struct {
	r        *ndjsonReader
	done     bool
	sawTools bool
	sawLine  bool
}

func (d *ollamaDecoder) step() ([]Event, error) {
	if d.done {
		return nil, io.EOF
	}
	line, err := d.r.next()
	if err == io.EOF {
		if !d.sawLine {
			return nil, errNoRecords
		}
		return nil, errCut
	}
	if err != nil {
		return nil, err
	}
	d.sawLine = true
	var c ollamaChunk
	if err := json.Unmarshal(line, &c); err != nil {
		if d.r.truncated() {
			return nil, errCut
		}
		return nil, &Error{Kind: KindProtocol, Message: "a line of the stream is not Ollama's JSON: " + clip(string(line), 120)}
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return nil, &Error{Kind: KindServer, Message: clip(apiErrorMessage(line), 300)}
	}
	var evs []Event
	if c.Message != nil {
		if c.Message.Content != "" {
			evs = append(evs, Event{Kind: EventText, Text: c.Message.Content})
		}
		for _, tc := range c.Message.ToolCalls {
			d.sawTools = true
			evs = append(evs, Event{Kind: EventToolCall, ToolCall: ToolCall{
				ID: tc.ID, Name: tc.Function.Name, Arguments: normalizeArgs(tc.Function.Arguments),
			}})
		}
	}
	if c.Done {
		d.done = true
		evs = append(evs,
			Event{Kind: EventUsage, Usage: Usage{InputTokens: c.PromptEvalCount, OutputTokens: c.EvalCount, Duration: time.Duration(c.TotalDuration)}},
			Event{Kind: EventStop, Stop: ollamaStop(c.DoneReason, d.sawTools), RawStop: c.DoneReason})
	}
	return evs, nil
}

// ollamaStop maps done_reason; Ollama says "stop" even when the model
// called tools, so the calls decide.
func ollamaStop(reason string, sawTools bool) StopReason {
	switch {
	case reason == "length":
		return StopMaxTokens
	case sawTools:
		return StopToolUse
	case reason == "stop" || reason == "":
		return StopEnd
	}
	return StopOther
}
