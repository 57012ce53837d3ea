package lsp

import (
	"context"
	"errors"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"pp-lsp/server/agent"
)

// askArgs are {"uri", "position", "text", "chat"}: the question, where it
// was asked from (optional), and the conversation it continues (DESIGN
// §13; a URI or a path, optional: a question asked from a chat file
// continues that one, any other starts one unless "noChat" is true).
type askArgs struct {
	URI      string             `json:"uri"`
	Position *protocol.Position `json:"position"`
	Text     string             `json:"text"`
	Chat     string             `json:"chat"`
	NoChat   bool               `json:"noChat"`
}

// askResult is the answer of passepartout.ask: how the pipeline ended
// (status; outcome is the same word, as it was first called), what the
// model said (also streamed), the conversation it went into (a URI), the
// model that answered and the tokens it took, and what it proposed.
type askResult struct {
	Status  string      `json:"status"`
	Chat    string      `json:"chat,omitempty"`
	Model   string      `json:"model,omitempty"`
	Usage   agent.Usage `json:"usage"`
	Outcome string      `json:"outcome"`
	Text    string      `json:"text"`
	Tool    string      `json:"tool,omitempty"`
	Verdict string      `json:"verdict,omitempty"`
	Gate    string      `json:"gate,omitempty"`
	Reason  string      `json:"reason,omitempty"`
	PlanID  string      `json:"planId,omitempty"`
	// PlanURI is flightplans.org's, when a plan was filed: the editor
	// opens it there.
	PlanURI string `json:"planUri,omitempty"`
	Summary string `json:"summary,omitempty"`
	Passes  int    `json:"passes"`
	Tries   int    `json:"tries"`
}

// ask runs a question through the agent. What the model says streams as
// $/progress reports (each report's message is the next piece: their
// concatenation is the answer) on the request's workDoneToken, or on a
// token of the server's own when the client shows progress. $/cancelRequest
// and window/workDoneProgress/cancel both cancel it; it then answers
// RequestCancelled.
func (s *Server) ask(ctx context.Context, v *view, a askArgs, token protocol.ProgressToken) (any, error) {
	if strings.TrimSpace(a.Text) == "" {
		return nil, userErrorf("%s needs a question in \"text\"", CommandAsk)
	}
	var path string
	var line, char int
	if a.URI != "" {
		f, err := v.fileArg(a.URI)
		if err != nil {
			return nil, err
		}
		path = f.path
		if a.Position != nil {
			line, char = int(a.Position.Line), int(a.Position.Character)
		}
	}
	req := agent.AskRequest{Source: agent.SourceLSP, File: path, Line: line, Character: char, Text: a.Text, NewChat: !a.NoChat}
	if a.Chat != "" {
		req.Chat = a.Chat
		if strings.Contains(a.Chat, "://") {
			p, err := pathOf(uri.URI(a.Chat))
			if err != nil {
				return nil, err
			}
			req.Chat = p
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	rep := s.beginProgress(ctx, token, "Passepartout", cancel)
	res, err := v.agent.Ask(ctx, req, func(chunk string) error {
		rep.report(chunk)
		return nil
	})
	if ctx.Err() != nil {
		rep.end("cancelled")
		return nil, protocol.ErrRequestCancelled
	}
	if err != nil {
		rep.end(err.Error())
		if errors.Is(err, agent.ErrNoProvider) || errors.Is(err, agent.ErrUsage) {
			return nil, &userError{msg: err.Error()}
		}
		return nil, err
	}
	rep.end(res.Summary)
	out := askResultOf(res)
	if out.PlanID != "" && v.agent.PlansPath() != "" {
		out.PlanURI = string(uri.File(v.agent.PlansPath()))
	}
	s.answer.set(res.Text)
	return out, nil
}

// askResultOf is the agent's answer as passepartout.ask's result.
func askResultOf(res agent.AskResult) askResult {
	chat := ""
	if res.Chat != "" {
		chat = string(uri.File(res.Chat))
	}
	return askResult{
		Status: string(res.Status), Chat: chat, Model: res.Model, Usage: res.Usage,
		Outcome: string(res.Status), Text: res.Text, Tool: string(res.Tool),
		Verdict: res.Verdict.Verdict, Gate: res.Verdict.Gate, Reason: res.Verdict.Reason,
		PlanID: res.PlanID, Summary: res.Summary, Passes: len(res.Passes), Tries: res.Tries,
	}
}
