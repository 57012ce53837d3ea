package bridge

import (
	"context"
	"errors"

	"pp-lsp/server/plist"
)

// Backend serves the actions the daemon does not answer itself: :ASK,
// :CONTEXT, :PLANS, :APPROVE and :REJECT. ForAgent and ForHost make one of
// the agent (agent.go).
//
// The daemon calls it from many connections at once, so it must be safe for
// concurrent use. Every ctx is cancelled when the client cancels the request,
// disconnects, or the daemon shuts down; a backend returns promptly then (its
// result is dropped). The plist a method returns is added to the :PAYLOAD of
// the :RESPONSE, after the daemon's own :ACTION and :STATUS (which it cannot
// override). An error becomes a :RESPONSE with :STATUS :ERROR and the error's
// text as :TEXT, so it should be one clear sentence fit for the user.
type Backend interface {
	// Ask answers a question, streaming the answer through emit as it is
	// produced. emit blocks while the client's queue is full (backpressure)
	// and fails once the request is cancelled; an empty chunk is ignored.
	Ask(ctx context.Context, req AskRequest, emit func(chunk string) error) (plist.Plist, error)
	// Context renders the foveal-peripheral context around a file position
	// (DESIGN §5); the result's :TEXT is shown to the user.
	Context(ctx context.Context, req ContextRequest) (plist.Plist, error)
	// Plans lists the Flight Plans (DESIGN §8), conventionally as
	// (:PLANS ((:ID "…" :STATE "PLAN" :TITLE "…" …) …)).
	Plans(ctx context.Context) (plist.Plist, error)
	// Approve approves the Flight Plan with the given :ID.
	Approve(ctx context.Context, planID string) (plist.Plist, error)
	// Reject rejects the Flight Plan with the given :ID.
	Reject(ctx context.Context, planID string) (plist.Plist, error)
}

// AlwaysApprover is implemented by a Backend that can approve a plan and
// allow similar actions from then on (:APPROVE :ID plan :ALWAYS t).
type AlwaysApprover interface {
	ApproveAlways(ctx context.Context, planID string) (plist.Plist, error)
}

// SeenApprover is implemented by a Backend that approves a plan only if it
// still holds the action the user saw: (:APPROVE :ID plan :HASH "sha256:…"
// [:REVISION "hmac-sha256:…"] [:ALWAYS t]), the hash and revision as :PLANS
// lists them (the revision, of a plan with a diff, names the filing whose
// diff was shown: a plan filed afresh because its file changed keeps its
// hash but not its revision). An :APPROVE with a :HASH to a Backend
// without it is refused, never run unchecked.
type SeenApprover interface {
	ApproveSeen(ctx context.Context, planID, hash, revision string, always bool) (plist.Plist, error)
}

// Undoer is implemented by a Backend that keeps what actions changed:
// (:ACTION :UNDO [:ID change]) takes the latest (or the named) change back,
// (:ACTION :UNDO :LIST t) lists the changes.
type Undoer interface {
	Undo(ctx context.Context, changeID string) (plist.Plist, error)
	Changes(ctx context.Context) (plist.Plist, error)
}

// StatusReporter is implemented by a Backend that has figures for :STATUS
// (the memex's files, headlines, root hash…); they are sent as :MEMEX.
type StatusReporter interface {
	Status(ctx context.Context) (plist.Plist, error)
}

// AskRequest is an :ASK request's payload.
type AskRequest struct {
	// Text is the question (:TEXT), never empty.
	Text string
	// File and Line (:FILE, :LINE) place the question in the memex; File is
	// empty and Line 0 when the client sent no position.
	File string
	Line int
	// SessionID is the :SESSION-ID of the request's :META, or else the
	// connection's own session id.
	SessionID string
	// Depth is the envelope's :DEPTH (loop prevention, DESIGN §7).
	Depth int
	// Chat (:CHAT) is the conversation the question continues (DESIGN
	// §13), a file; NoChat (:NO-CHAT t) keeps the question out of any.
	// Without either the question starts a conversation, unless it is
	// asked from a chat file, which it continues.
	Chat   string
	NoChat bool
	// Payload is the whole :PAYLOAD, for keys this struct does not name.
	Payload plist.Plist
}

// ContextRequest is a :CONTEXT request's payload.
type ContextRequest struct {
	// File and Line (1-based) are the cursor position.
	File string
	Line int
	// Budget is the token budget (:BUDGET); 0 means the configured default.
	Budget int
	// Payload is the whole :PAYLOAD.
	Payload plist.Plist
}

// Unavailable is a Backend that answers every action with the same error:
// a daemon with nothing behind it, whose protocol, handshake and own
// actions work and which says plainly why nothing else does (the agent's
// backends, ForAgent and ForHost, answer with the agent).
type Unavailable struct {
	// Reason is the error text every action answers with.
	Reason string
}

func (u Unavailable) err() error { return errors.New(u.Reason) }

// Ask implements Backend.
func (u Unavailable) Ask(context.Context, AskRequest, func(string) error) (plist.Plist, error) {
	return nil, u.err()
}

// Context implements Backend.
func (u Unavailable) Context(context.Context, ContextRequest) (plist.Plist, error) {
	return nil, u.err()
}

// Plans implements Backend.
func (u Unavailable) Plans(context.Context) (plist.Plist, error) { return nil, u.err() }

// Approve implements Backend.
func (u Unavailable) Approve(context.Context, string) (plist.Plist, error) { return nil, u.err() }

// Reject implements Backend.
func (u Unavailable) Reject(context.Context, string) (plist.Plist, error) { return nil, u.err() }
