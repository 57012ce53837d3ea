package lsp

import (
	"context"
	"errors"
	"strings"

	"go.lsp.dev/protocol"

	"pp-lsp/server/agent"
)

// askArgs are {"uri", "position", "text"}: the question, and where it was
// asked from (optional).
type askArgs struct {
	URI      string             `json:"uri"`
	Position *protocol.Position `json:"position"`
	Text     string             `json:"text"`
}

// askResult is the answer of passepartout.ask: how the pipeline ended,
// what the model said (also streamed), and what it proposed.
type askResult struct {
	Outcome string `json:"outcome"`
	Text    string `json:"text"`
	Tool    string `json:"tool,omitempty"`
	Verdict string `json:"verdict,omitempty"`
	Gate    string `json:"gate,omitempty"`
	Reason  string `json:"reason,omitempty"`
	PlanID  string `json:"planId,omitempty"`
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
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	rep := s.beginProgress(ctx, token, "Passepartout", cancel)
	res, err := v.agent.Ask(ctx, agent.AskRequest{Source: agent.SourceLSP, File: path, Line: line, Character: char, Text: a.Text}, func(chunk string) error {
		rep.report(chunk)
		return nil
	})
	if ctx.Err() != nil {
		rep.end("cancelled")
		return nil, protocol.ErrRequestCancelled
	}
	if err != nil {
		rep.end(err.Error())
		if errors.Is(err, agent.ErrNoProvider) {
			return nil, &userError{msg: err.Error()}
		}
		return nil, err
	}
	rep.end(res.Summary)
	s.answer.set(res.Text)
	return askResultOf(res), nil
}

// askResultOf is the agent's answer as passepartout.ask's result.
func askResultOf(res agent.AskResult) askResult {
	return askResult{
		Outcome: string(res.Status), Text: res.Text, Tool: string(res.Tool),
		Verdict: res.Verdict.Verdict, Gate: res.Verdict.Gate, Reason: res.Verdict.Reason,
		PlanID: res.PlanID, Summary: res.Summary, Passes: len(res.Passes), Tries: res.Tries,
	}
}
