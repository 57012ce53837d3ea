package lsp

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"pp-lsp/memory/orgfeat"
	"pp-lsp/server/flightplan"
)

// codeAction is an LSP CodeAction.
type codeAction struct {
	Title       string                  `json:"title"`
	Kind        string                  `json:"kind,omitempty"`
	Edit        *protocol.WorkspaceEdit `json:"edit,omitempty"`
	Command     *command                `json:"command,omitempty"`
	IsPreferred bool                    `json:"isPreferred,omitempty"`
	Disabled    *disabledReason         `json:"disabled,omitempty"`
	// addID: the action adds an :ID:, which a client without code action
	// literals runs as the command passepartout.addId.
	addID bool
}

// command is an LSP Command.
type command struct {
	Title     string `json:"title"`
	Command   string `json:"command"`
	Arguments []any  `json:"arguments,omitempty"`
}

// placeArgs are the arguments of the commands that act at a place:
// {"uri", "position"}.
type placeArgs struct {
	URI      string            `json:"uri"`
	Position protocol.Position `json:"position"`
}

// codeAction offers, at the cursor: an :ID: for the headline (or the file)
// that has none; Approve and Reject on a Flight Plan waiting for approval
// (and "approve and allow similar" where the agent offers a rule);
// the notes' actions (noteActions): link an unlinked mention, create the
// node a link names.
func (s *Server) codeAction(ctx context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.CodeActionParams
	if err := decode(protocol.MethodTextDocumentCodeAction, params, &p); err != nil {
		return nil, err
	}
	f, err := v.file(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	off := offsetAt(f.org, p.Range.Start)
	var actions []codeAction
	if v.agent != nil && v.agent.IsPlansFile(f.path) {
		if plan := planAt(f.org.Src, int(p.Range.Start.Line)); plan != nil && plan.ID != "" && plan.State == flightplan.StatePlan {
			arg := map[string]string{"id": plan.ID}
			reject := codeAction{Title: "Reject the Flight Plan: " + plan.Title, Kind: string(protocol.CodeActionKindQuickFix),
				Command: &command{Title: "Reject", Command: CommandReject, Arguments: []any{arg}}}
			// An approval carries the hash of the action the buffer shows:
			// it runs only that action, whatever the plan holds by the
			// time the user picks it. A block that holds no action offers
			// none (it would be approved unseen once it held one).
			if plan.Action == nil {
				actions = append(actions, reject)
			} else {
				// And, for a plan with a diff, the revision shown beside it:
				// the filing the diff was made for.
				seen := map[string]string{"id": plan.ID, "hash": plan.Action.Hash()}
				if plan.Revision != "" {
					seen["revision"] = plan.Revision
				}
				actions = append(actions,
					codeAction{Title: "Approve the Flight Plan: " + plan.Title, Kind: string(protocol.CodeActionKindQuickFix),
						Command: &command{Title: "Approve", Command: CommandApprove, Arguments: []any{seen}}},
					reject)
				if rule, err := v.agent.SimilarRule(ctx, plan.ID); err == nil {
					actions = append(actions, codeAction{Title: "Approve and allow similar from now on (" + rule + "): " + plan.Title,
						Kind: string(protocol.CodeActionKindQuickFix), Command: &command{Title: "Approve and allow similar", Command: CommandApproveAlways, Arguments: []any{seen}}})
				}
			}
		}
	}
	if ch, ok := orgfeat.AddID(f.org, f.org.NodeAt(off), uuid.NewString()); ok {
		what := "this headline"
		if f.org.NodeAt(off) < 0 {
			what = "this file"
		}
		we := v.addEdits(protocol.WorkspaceEdit{}, f, []protocol.TextEdit{textEdit(f.org, ch)})
		actions = append(actions, codeAction{Title: "Add an :ID: to " + what, Kind: string(protocol.CodeActionKindRefactorRewrite), Edit: &we, addID: true})
	}
	actions = append(actions, s.noteActions(v, f, off)...)
	if !v.client.codeActionLiterals {
		cmds := []command{}
		for _, a := range actions {
			if a.Disabled != nil || (a.Command == nil && !a.addID) {
				continue // a command list has no place for an edit of its own
			}
			if a.Command != nil {
				cmds = append(cmds, command{Title: a.Title, Command: a.Command.Command, Arguments: a.Command.Arguments})
			} else {
				cmds = append(cmds, command{Title: a.Title, Command: CommandAddID,
					Arguments: []any{placeArgs{URI: string(f.uri), Position: p.Range.Start}}})
			}
		}
		return cmds, nil
	}
	if actions == nil {
		actions = []codeAction{}
	}
	return actions, nil
}

// planAt is the Flight Plan whose subtree holds the 0-based line.
func planAt(src []byte, line int) *flightplan.Plan {
	plans := flightplan.Parse(src)
	var at *flightplan.Plan
	for i := range plans {
		if plans[i].Line <= line {
			at = &plans[i]
		}
	}
	return at
}

// addID is the command passepartout.addId {uri, position}: the node at
// the position gets an :ID:, through workspace/applyEdit. It answers
// {"id": …}.
func (s *Server) addID(ctx context.Context, v *view, a placeArgs, _ protocol.ProgressToken) (any, error) {
	f, err := v.fileArg(a.URI)
	if err != nil {
		return nil, err
	}
	h := f.org.NodeAt(offsetAt(f.org, a.Position))
	id := uuid.NewString()
	ch, ok := orgfeat.AddID(f.org, h, id)
	if !ok {
		return nil, userErrorf("the node here has an :ID: already")
	}
	we := v.addEdits(protocol.WorkspaceEdit{}, f, []protocol.TextEdit{textEdit(f.org, ch)})
	want := map[string][]byte{}
	if f.doc != nil {
		want[f.path] = append(append(append([]byte(nil), f.org.Src[:ch.Start]...), ch.Text...), f.org.Src[ch.End:]...)
	}
	applied, err := s.applyEdit(ctx, "Add an :ID:", we, want)
	if err != nil {
		return nil, err
	}
	if !applied {
		return nil, fmt.Errorf("the editor did not add the :ID:")
	}
	return map[string]string{"id": id}, nil
}
