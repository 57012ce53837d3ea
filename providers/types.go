package providers

import (
	"context"
	"encoding/json"
	"time"
)

// Provider is one language model behind one API. Stream sends req and
// returns the answer as it arrives; the answer's HTTP exchange lives as long
// as the returned Stream (cancel ctx or Close the stream to end it at once).
// An error from Stream itself means no answer was started.
type Provider interface {
	// Name identifies the provider in logs, errors and answers, e.g.
	// "ollama:llama3.2@http://127.0.0.1:11434" or "replay:demo.jsonl". It
	// never holds a key.
	Name() string
	Stream(ctx context.Context, req Request) (*Stream, error)
}

// Role says who wrote a Message.
type Role string

// The roles a conversation holds. The system prompt is not a message: it is
// Request.System, because Anthropic carries it outside the message list.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool carries a tool's result back to the model; ToolCallID and
	// ToolName say which call it answers.
	RoleTool Role = "tool"
)

// Message is one turn of the conversation.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant turn made (history replayed to
	// the model).
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID and ToolName, on a RoleTool message, name the call answered.
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
}

// Tool is a function the model may call: DESIGN §6's tools (shell,
// file_read, …), each with its arguments as a JSON Schema object.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// ToolCall is one call the model made. Arguments is always valid JSON: the
// object the model sent, {} when it sent nothing, or — when what it sent was
// not JSON — that text as a JSON string, so that whoever validates the call
// sees exactly what the model produced and can reject it.
type ToolCall struct {
	// ID is the API's call id; the stream invents a unique "call_XXXXXXXX_N"
	// when the API gives none (Ollama), so that a tool result can always
	// name its call.
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Request is one question to a model.
type Request struct {
	System   string
	Messages []Message
	Tools    []Tool
	// Model, when set, replaces the provider's configured model (the
	// selector's rules set it per provider).
	Model string
	// MaxTokens bounds the answer; 0 leaves it to the API, except Anthropic,
	// which requires one (DefaultAnthropicMaxTokens).
	MaxTokens int
	// Temperature is sent only when set.
	Temperature *float64
	// Task labels the request for the selector's rules ("propose", "chat",
	// "summarise", …); providers themselves ignore it.
	Task string
	// Provider, when set, restricts a cascade to the providers it names
	// (by Name, alias, "kind:model" or kind, as a rule's route does): a
	// conversation's own choice of model.
	Provider string
	// LocalOnly restricts a cascade to the providers marked local
	// (ProviderConfig.IsLocal): the request carries a private
	// conversation's history.
	LocalOnly bool
}

// StopReason says why a model stopped, the same across APIs.
type StopReason string

// The stop reasons. Response.RawStopReason keeps the API's own word.
const (
	StopEnd       StopReason = "end"        // the model finished (stop, end_turn, stop_sequence)
	StopToolUse   StopReason = "tool_use"   // the model called tools (tool_calls, tool_use)
	StopMaxTokens StopReason = "max_tokens" // the answer hit MaxTokens (length, max_tokens)
	StopOther     StopReason = "other"      // anything else (content_filter, refusal, …)
)

// Usage is what the API reported about token counts.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	// Duration is the server's own generation time where the API reports it
	// (Ollama's total_duration), else 0.
	Duration time.Duration `json:"duration,omitempty"`
}

// EventKind says what an Event carries.
type EventKind uint8

// The event kinds, in the order a complete answer produces them: any number
// of EventText and EventToolCall, then at most one EventUsage, then one
// EventStop.
const (
	EventText EventKind = iota + 1
	EventToolCall
	EventUsage
	EventStop
)

// String names the kind for logs and test failures.
func (k EventKind) String() string {
	switch k {
	case EventText:
		return "text"
	case EventToolCall:
		return "tool_call"
	case EventUsage:
		return "usage"
	case EventStop:
		return "stop"
	}
	return "unknown"
}

// Event is one step of a streamed answer.
type Event struct {
	Kind     EventKind
	Text     string     // EventText: the next piece of the answer's text
	ToolCall ToolCall   // EventToolCall: a call, complete (fragments are assembled first)
	Usage    Usage      // EventUsage
	Stop     StopReason // EventStop
	RawStop  string     // EventStop: the API's own stop reason
}

// isOutput reports whether the event is model output (what, once delivered,
// ties the answer to its provider).
func (e Event) isOutput() bool {
	return (e.Kind == EventText && e.Text != "") || e.Kind == EventToolCall
}

// Response is a whole answer: the sum of its events.
type Response struct {
	// Provider names who answered (Provider.Name); a replay answer says
	// "replay:FILE" here.
	Provider      string
	Model         string
	Text          string
	ToolCalls     []ToolCall
	Usage         Usage
	StopReason    StopReason
	RawStopReason string
	// FirstOutput is the time from the request to the first output;
	// Elapsed from the request to the end of the answer. Both are measured
	// here, on the client.
	FirstOutput time.Duration
	Elapsed     time.Duration
}
