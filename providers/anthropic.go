package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// AnthropicVersion is the API version header this package speaks.
const AnthropicVersion = "2023-06-01"

// DefaultAnthropicMaxTokens is max_tokens when the request sets none: the
// Messages API requires one.
const DefaultAnthropicMaxTokens = 4096

// Anthropic speaks Anthropic's Messages API: POST {base}/v1/messages with an
// SSE stream of typed events, GET {base}/v1/models.
type Anthropic struct{ httpAPI }

// NewAnthropic makes an Anthropic provider; client may be shared (nil: a new
// one).
func NewAnthropic(pc ProviderConfig, client *http.Client, t Timeouts, opts Options) *Anthropic {
	return &Anthropic{newHTTPAPI(pc, client, t, opts)}
}

type anthropicRequest struct {
	Model       string             `json:"model"`
	MaxTokens   int                `json:"max_tokens"`
	System      string             `json:"system,omitempty"`
	Messages    []anthropicMessage `json:"messages"`
	Tools       []anthropicTool    `json:"tools,omitempty"`
	Stream      bool               `json:"stream"`
	Temperature *float64           `json:"temperature,omitempty"`
}

// anthropicMessage's Content is a string (one text) or a list of blocks.
type anthropicMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
}

type anthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Stream asks Anthropic and streams its answer.
func (a *Anthropic) Stream(ctx context.Context, req Request) (*Stream, error) {
	body := anthropicRequest{
		Model: a.modelFor(req.Model), MaxTokens: req.MaxTokens, System: req.System,
		Messages: anthropicMessages(req.Messages), Stream: true, Temperature: req.Temperature,
	}
	if body.MaxTokens <= 0 {
		body.MaxTokens = DefaultAnthropicMaxTokens
	}
	for _, t := range req.Tools {
		body.Tools = append(body.Tools, anthropicTool{Name: t.Name, Description: t.Description, InputSchema: schemaOrEmpty(t.Parameters)})
	}
	return a.openStream(ctx, "/v1/messages", body.Model, body, anthropicWire{})
}

// anthropicMessages maps the conversation: tool results travel as user
// turns of tool_result blocks, tool calls as tool_use blocks, and turns of
// the same role are merged, since the API wants them alternating.
func anthropicMessages(msgs []Message) []anthropicMessage {
	type turn struct {
		role   string
		blocks []anthropicBlock
	}
	var turns []turn
	add := func(role string, bs ...anthropicBlock) {
		if len(bs) == 0 {
			return
		}
		if n := len(turns); n > 0 && turns[n-1].role == role {
			turns[n-1].blocks = append(turns[n-1].blocks, bs...)
			return
		}
		turns = append(turns, turn{role: role, blocks: bs})
	}
	for _, m := range msgs {
		switch m.Role {
		case RoleTool:
			add("user", anthropicBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.Content})
		case RoleAssistant:
			var bs []anthropicBlock
			if m.Content != "" {
				bs = append(bs, anthropicBlock{Type: "text", Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				input := normalizeArgs(tc.Arguments)
				if !bytes.HasPrefix(input, []byte("{")) { // the API takes only an object
					input = json.RawMessage(`{}`)
				}
				bs = append(bs, anthropicBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: input})
			}
			add("assistant", bs...)
		default:
			if m.Content != "" {
				add(string(m.Role), anthropicBlock{Type: "text", Text: m.Content})
			}
		}
	}
	out := make([]anthropicMessage, len(turns))
	for i, t := range turns {
		if len(t.blocks) == 1 && t.blocks[0].Type == "text" {
			out[i] = anthropicMessage{Role: t.role, Content: t.blocks[0].Text}
		} else {
			out[i] = anthropicMessage{Role: t.role, Content: t.blocks}
		}
	}
	return out
}

// Models lists the models the key may use (GET /v1/models), by id.
func (a *Anthropic) Models(ctx context.Context) ([]string, error) {
	return a.listIDs(ctx, "/v1/models?limit=1000", anthropicWire{})
}

type anthropicWire struct{}

func (anthropicWire) setHeaders(h http.Header, key string) {
	h.Set("x-api-key", key)
	h.Set("anthropic-version", AnthropicVersion)
}

func (anthropicWire) decoder(body io.Reader) decoder {
	return &anthropicDecoder{r: newSSEReader(body), blocks: map[int]*anthropicOpenBlock{}}
}

// anthropicEvent is the data of any Messages stream event.
type anthropicEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		Model string         `json:"model"`
		Usage anthropicUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *anthropicUsage `json:"usage"`
}

type anthropicUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// input is every input token, cached or not.
func (u anthropicUsage) input() int {
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

// anthropicOpenBlock is a tool_use block between its start and its stop.
type anthropicOpenBlock struct {
	id, name string
	input    json.RawMessage // from content_block_start
	partial  []byte          // the input_json_delta pieces
}

type anthropicDecoder struct {
	r      *sseReader
	blocks map[int]*anthropicOpenBlock
	usage  Usage
	stop   string
	done   bool
	// sawEvent tells a stream cut short from an answer that was never a
	// stream of events.
	sawEvent bool
}

func (d *anthropicDecoder) step() ([]Event, error) {
	if d.done {
		return nil, io.EOF
	}
	ev, err := d.r.next()
	if err == io.EOF {
		switch {
		case d.stop != "": // message_delta said why it stopped; only message_stop is missing
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
	var e anthropicEvent
	if err := json.Unmarshal(ev.data, &e); err != nil {
		if d.r.truncated() {
			return nil, errCut
		}
		return nil, &Error{Kind: KindProtocol, Message: "an event of the stream is not the Messages API's JSON: " + clip(string(ev.data), 120)}
	}
	name := ev.name
	if name == "" {
		name = e.Type
	}
	switch name {
	case "error":
		return nil, &Error{Kind: KindServer, Message: clip(apiErrorMessage(ev.data), 300)}
	case "message_start":
		if e.Message != nil {
			d.usage.InputTokens = e.Message.Usage.input()
			d.usage.OutputTokens = e.Message.Usage.OutputTokens
		}
	case "content_block_start":
		if cb := e.ContentBlock; cb != nil {
			switch cb.Type {
			case "tool_use":
				d.blocks[e.Index] = &anthropicOpenBlock{id: cb.ID, name: cb.Name, input: cb.Input}
			case "text":
				if cb.Text != "" {
					return []Event{{Kind: EventText, Text: cb.Text}}, nil
				}
			}
		}
	case "content_block_delta":
		if e.Delta == nil {
			break
		}
		switch e.Delta.Type {
		case "text_delta":
			if e.Delta.Text != "" {
				return []Event{{Kind: EventText, Text: e.Delta.Text}}, nil
			}
		case "input_json_delta":
			if b := d.blocks[e.Index]; b != nil {
				if len(b.partial)+len(e.Delta.PartialJSON) > maxAnswer {
					return nil, &Error{Kind: KindProtocol, Message: "a tool call's input exceeds the answer's bound"}
				}
				b.partial = append(b.partial, e.Delta.PartialJSON...)
			}
		}
	case "content_block_stop":
		if b := d.blocks[e.Index]; b != nil {
			delete(d.blocks, e.Index)
			args := b.partial
			if len(bytes.TrimSpace(args)) == 0 {
				args = b.input
			}
			return []Event{{Kind: EventToolCall, ToolCall: ToolCall{ID: b.id, Name: b.name, Arguments: normalizeArgs(args)}}}, nil
		}
	case "message_delta":
		if e.Delta != nil && e.Delta.StopReason != "" {
			d.stop = e.Delta.StopReason
		}
		if e.Usage != nil {
			if in := e.Usage.input(); in > 0 {
				d.usage.InputTokens = in
			}
			d.usage.OutputTokens = e.Usage.OutputTokens
		}
	case "message_stop":
		return d.end(), nil
	}
	// ping, thinking and signature deltas, and event types added later are
	// read and let pass, as the API's versioning policy asks.
	return nil, nil
}

func (d *anthropicDecoder) end() []Event {
	d.done = true
	return []Event{
		{Kind: EventUsage, Usage: d.usage},
		{Kind: EventStop, Stop: anthropicStop(d.stop), RawStop: d.stop},
	}
}

func anthropicStop(reason string) StopReason {
	switch strings.TrimSpace(reason) {
	case "end_turn", "stop_sequence", "":
		return StopEnd
	case "tool_use":
		return StopToolUse
	case "max_tokens":
		return StopMaxTokens
	}
	return StopOther
}
