package actuate

import (
	"context"

	"pp-lsp/gates"
)

// message shows the answer to the user: it stays in the front end's answer
// view and is never written into a note (DESIGN §13). The user puts it
// into a note when they ask to (the language server's
// passepartout.insertAnswer).
func (a *Actuators) message(_ context.Context, req Request) (Result, error) {
	text := req.Action.Typed().(gates.MessageArgs).Text
	return Result{OK: true, Summary: "answer shown", Shown: text}, nil
}
