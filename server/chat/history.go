package chat

import (
	"encoding/json"
	"fmt"

	"pp-lsp/memory/foveal"
	"pp-lsp/providers"
)

// DefaultBudget is CHAT_BUDGET's default: the tokens of earlier turns sent
// with a follow-up.
const DefaultBudget = 2000

// Messages are one turn as a model's prior messages: the question (user),
// each action as the assistant's tool call and its result as the tool's
// answer, then the answer (assistant). n numbers the turn, so that tool
// call ids are unique across the conversation. A failed turn has none.
func (t Turn) Messages(n int) []providers.Message {
	if t.Failed != "" {
		return nil
	}
	out := []providers.Message{{Role: providers.RoleUser, Content: t.Question}}
	for i, a := range t.Actions {
		id := fmt.Sprintf("chat_%d_%d", n, i)
		args := json.RawMessage(compactArgs(a.Args))
		res := string(a.Verb)
		if a.Result != "" {
			res += ": " + a.Result
		}
		if a.PlanID != "" {
			res += " (Flight Plan " + a.PlanID + ")"
		}
		out = append(out,
			providers.Message{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: id, Name: a.Tool, Arguments: args}}},
			providers.Message{Role: providers.RoleTool, ToolCallID: id, ToolName: a.Tool, Content: res})
	}
	if t.Answer != "" {
		out = append(out, providers.Message{Role: providers.RoleAssistant, Content: t.Answer})
	}
	return out
}

// Tokens is what a turn's messages cost, by memory/foveal's one counter.
func Tokens(msgs []providers.Message) int {
	n := 0
	for _, m := range msgs {
		n += foveal.CountTokens(m.Content)
		for _, tc := range m.ToolCalls {
			n += foveal.CountTokens(tc.Name) + foveal.CountTokens(string(tc.Arguments))
		}
	}
	return n
}

// History is the conversation's turns as prior messages, oldest first,
// within budget tokens: the newest turns that fit whole, an older turn
// dropped before any newer one (a turn too big for the budget alone ends
// the history there). Failed turns are left out.
func (c *Chat) History(budget int) []providers.Message {
	var turns [][]providers.Message
	used, total := 0, 0
	for i := len(c.Turns) - 1; i >= 0; i-- {
		msgs := c.Turns[i].Messages(i)
		if len(msgs) == 0 {
			continue
		}
		n := Tokens(msgs)
		if used+n > budget {
			break
		}
		used += n
		total += len(msgs)
		turns = append(turns, msgs)
	}
	out := make([]providers.Message, 0, total)
	for i := len(turns) - 1; i >= 0; i-- {
		out = append(out, turns[i]...)
	}
	return out
}
