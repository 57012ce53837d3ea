package providertest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Answer describes a model's answer; the *Frames functions render it in one
// API's stream format, record for record as that API's reference shows it.
type Answer struct {
	Model string
	// Text is streamed piece by piece, in order.
	Text []string
	// Calls are the tool calls, after the text.
	Calls []Call
	// Stop is the API's own stop reason; empty picks the API's usual one
	// (tool calls or end).
	Stop         string
	InputTokens  int
	OutputTokens int
}

// Call is one tool call. Args is its arguments' JSON text; OpenAI and
// Anthropic stream it in Pieces fragments (at least 1).
type Call struct {
	ID     string
	Name   string
	Args   string
	Pieces int
}

// split cuts s into n pieces of about equal byte length (the last takes the
// rest); fragments need not end on a JSON token, as real streams show.
func split(s string, n int) []string {
	if n < 1 {
		n = 1
	}
	size := (len(s) + n - 1) / n
	if size == 0 {
		return []string{s}
	}
	var out []string
	for len(s) > size {
		out = append(out, s[:size])
		s = s[size:]
	}
	return append(out, s)
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only ever called with marshalable values built here
	}
	return string(b)
}

// OllamaFrames renders a as POST /api/chat's NDJSON stream: one record per
// text piece, one record carrying the tool calls (arguments as objects),
// and the final done record with its counts and durations.
func OllamaFrames(a Answer) []string {
	const created = "2023-08-04T08:52:19.385406455-07:00"
	var out []string
	for _, p := range a.Text {
		out = append(out, fmt.Sprintf(`{"model":%s,"created_at":%q,"message":{"role":"assistant","content":%s},"done":false}`+"\n",
			js(a.Model), created, js(p)))
	}
	if len(a.Calls) > 0 {
		var calls []string
		for _, c := range a.Calls {
			calls = append(calls, fmt.Sprintf(`{"function":{"name":%s,"arguments":%s}}`, js(c.Name), c.Args))
		}
		out = append(out, fmt.Sprintf(`{"model":%s,"created_at":%q,"message":{"role":"assistant","content":"","tool_calls":[%s]},"done":false}`+"\n",
			js(a.Model), created, strings.Join(calls, ",")))
	}
	stop := a.Stop
	if stop == "" {
		stop = "stop"
	}
	out = append(out, fmt.Sprintf(`{"model":%s,"created_at":"2023-08-04T19:22:45.499127Z","message":{"role":"assistant","content":""},"done_reason":%s,"done":true,"total_duration":4883583458,"load_duration":1334875,"prompt_eval_count":%d,"prompt_eval_duration":342546000,"eval_count":%d,"eval_duration":4535599000}`+"\n",
		js(a.Model), js(stop), a.InputTokens, a.OutputTokens))
	return out
}

// OpenAIFrames renders a as a chat.completion.chunk SSE stream with
// stream_options.include_usage: the role chunk, a chunk per text piece,
// each tool call as a first fragment (index, id, type, name, empty
// arguments) and its argument fragments, the finish_reason chunk, the usage
// chunk with empty choices, and data: [DONE].
func OpenAIFrames(a Answer) []string {
	head := fmt.Sprintf(`"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":%s,"system_fingerprint":"fp_44709d6fcb"`, js(a.Model))
	chunk := func(delta, finish string) string {
		return fmt.Sprintf("data: {%s,\"choices\":[{\"index\":0,\"delta\":%s,\"logprobs\":null,\"finish_reason\":%s}],\"usage\":null}\n\n", head, delta, finish)
	}
	out := []string{chunk(`{"role":"assistant","content":""}`, "null")}
	for _, p := range a.Text {
		out = append(out, chunk(fmt.Sprintf(`{"content":%s}`, js(p)), "null"))
	}
	for i, c := range a.Calls {
		out = append(out, chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%s,"type":"function","function":{"name":%s,"arguments":""}}]}`, i, js(c.ID), js(c.Name)), "null"))
		for _, piece := range split(c.Args, c.Pieces) {
			out = append(out, chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, i, js(piece)), "null"))
		}
	}
	stop := a.Stop
	if stop == "" {
		stop = "stop"
		if len(a.Calls) > 0 {
			stop = "tool_calls"
		}
	}
	out = append(out, chunk(`{}`, js(stop)))
	out = append(out, fmt.Sprintf("data: {%s,\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":%d,\"total_tokens\":%d}}\n\n",
		head, a.InputTokens, a.OutputTokens, a.InputTokens+a.OutputTokens))
	return append(out, "data: [DONE]\n\n")
}

// AnthropicFrames renders a as the Messages API's SSE stream: message_start
// (with the input tokens), a ping, the text block (start, text_delta per
// piece, stop), each tool_use block (start with empty input, an empty
// input_json_delta, then the argument fragments, stop), message_delta with
// the stop reason and output tokens, and message_stop.
func AnthropicFrames(a Answer) []string {
	ev := func(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }
	out := []string{
		ev("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY","type":"message","role":"assistant","content":[],"model":%s,"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":1}}}`, js(a.Model), a.InputTokens)),
	}
	index := 0
	if len(a.Text) > 0 {
		out = append(out, ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
			ev("ping", `{"type": "ping"}`))
		for _, p := range a.Text {
			out = append(out, ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%s}}`, js(p))))
		}
		out = append(out, ev("content_block_stop", `{"type":"content_block_stop","index":0}`))
		index++
	}
	for _, c := range a.Calls {
		out = append(out,
			ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%s,"name":%s,"input":{}}}`, index, js(c.ID), js(c.Name))),
			ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":""}}`, index)))
		for _, piece := range split(c.Args, c.Pieces) {
			out = append(out, ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, index, js(piece))))
		}
		out = append(out, ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, index)))
		index++
	}
	stop := a.Stop
	if stop == "" {
		stop = "end_turn"
		if len(a.Calls) > 0 {
			stop = "tool_use"
		}
	}
	return append(out,
		ev("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%s,"stop_sequence":null},"usage":{"output_tokens":%d}}`, js(stop), a.OutputTokens)),
		ev("message_stop", `{"type":"message_stop"}`))
}

// The error bodies each API sends with a non-2xx status.

// OllamaError is {"error":"…"}.
func OllamaError(msg string) string { return js(map[string]string{"error": msg}) }

// OpenAIError is {"error":{"message","type","param","code"}}.
func OpenAIError(msg, typ, code string) string {
	return fmt.Sprintf(`{"error":{"message":%s,"type":%s,"param":null,"code":%s}}`, js(msg), js(typ), js(code))
}

// AnthropicError is {"type":"error","error":{"type","message"},"request_id"}.
func AnthropicError(typ, msg string) string {
	return fmt.Sprintf(`{"type":"error","error":{"type":%s,"message":%s},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`, js(typ), js(msg))
}

// Variation makes frames look like another real server's: Windows line
// ends, keep-alive comments between events, or an event: line on
// OpenAI-compatible events (some servers send them).
type Variation struct {
	CRLF       bool
	KeepAlive  bool
	EventLines string // when set, "event: EventLines" goes before each data: line
}

// Vary applies v to SSE or NDJSON frames.
func Vary(frames []string, v Variation) []string {
	out := make([]string, 0, 2*len(frames))
	for _, f := range frames {
		if v.EventLines != "" && strings.HasPrefix(f, "data: ") {
			f = "event: " + v.EventLines + "\n" + f
		}
		if v.KeepAlive {
			out = append(out, ": keep-alive\n\n")
		}
		out = append(out, f)
	}
	if v.CRLF {
		for i, f := range out {
			out[i] = strings.ReplaceAll(f, "\n", "\r\n")
		}
	}
	return out
}
