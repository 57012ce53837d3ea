package bridge

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"pp-lsp/server/plist"
)

// errStreamClosed is what emit returns once its request has been answered.
var errStreamClosed = errors.New("the request is already answered (cancelled?)")

// actionList names the actions for the unknown-action error.
const actionList = ":ASK :CONTEXT :APPROVE :REJECT :PLANS :UNDO :CANCEL :STATUS :PING"

// dispatch serves one message from an authenticated client. Nothing a
// client sends here closes the connection: a message that is not a request
// gets a :LOG, a bad request an error :RESPONSE.
func (c *conn) dispatch(p plist.Plist) {
	env, err := parseEnvelope(p)
	if err != nil {
		c.sendLog(levelWarn, "ignored a message: "+err.Error())
		return
	}
	switch env.typ {
	case typeRequest:
	case typeEvent:
		if a, _ := env.payload.Keyword(kAction); a == actHandshake {
			c.sendLog(levelWarn, "ignored a handshake: the connection is already authenticated")
			return
		}
		c.sendLog(levelWarn, "ignored an :EVENT: the daemon serves :REQUEST messages")
		return
	default:
		c.sendLog(levelWarn, fmt.Sprintf("ignored a :%s message: the daemon serves :REQUEST messages", env.typ))
		return
	}
	id, _ := env.meta.Get(kRequestID)
	key, err := requestKey(id)
	if err != nil {
		c.sendLog(levelError, "ignored a request: "+err.Error())
		return
	}
	action, ok := env.payload.Keyword(kAction)
	if !ok {
		c.respond(id, "", statusError, "the :PAYLOAD has no :ACTION keyword", nil)
		return
	}
	if env.depth > maxDepth {
		c.refuse(id, action, fmt.Sprintf("the request's :DEPTH is above %d: dropped to stop a loop", maxDepth))
		return
	}
	switch action {
	case actPing:
		c.s.served.Add(1)
		c.respond(id, action, statusOK, "pong", nil)
	case actCancel:
		c.s.served.Add(1)
		c.cancelRequest(id, env.payload)
	case actStatus, actAsk, actContext, actPlans, actApprove, actReject, actUndo:
		c.start(id, key, action, env)
	case actHandshake:
		c.respond(id, action, statusError, "the connection is already authenticated", nil)
	default:
		c.respond(id, action, statusError, fmt.Sprintf("unknown action :%s; the actions are %s", action, actionList), nil)
	}
}

// respond queues a :RESPONSE: :ACTION (echoed), :STATUS, :TEXT when given,
// then the extra keys (except those three). An answer that cannot be sent
// (unprintable, or too large for a frame) becomes an error answer saying so.
func (c *conn) respond(id any, action, status plist.Keyword, text string, extra plist.Plist) {
	payload := make(plist.Plist, 0, 3+len(extra))
	if action != "" {
		payload = payload.Add(kAction, action)
	}
	payload = payload.Add(kStatus, status)
	if text != "" {
		payload = payload.Add(kText, text)
	}
	for _, kv := range extra {
		if kv.Key == kAction || kv.Key == kStatus || text != "" && kv.Key == kText {
			continue
		}
		payload = append(payload, kv)
	}
	f, err := encode(message(typeResponse, answerMeta(id), payload))
	if err != nil {
		c.log.Error("bridge answer could not be sent", "action", string(action), "err", err)
		f, err = encode(message(typeResponse, answerMeta(id), plist.Plist{}.Add(kAction, action).
			Add(kStatus, statusError).Add(kText, "the answer could not be sent: "+err.Error())))
		if err != nil {
			return
		}
	}
	_ = c.out.push(c.ctx, f)
}

// refuse answers a request that will not run; an :ASK's answer is a stream,
// so its terminator comes first.
func (c *conn) refuse(id any, action plist.Keyword, text string) {
	if action == actAsk {
		_ = c.send(message(typeChunk, answerMeta(id), plist.Plist{}.Add(kText, "")))
	}
	c.respond(id, action, statusError, text, nil)
}

// call is one running request.
type call struct {
	c      *conn
	id     any
	key    string
	action plist.Keyword
	ctx    context.Context
	cancel context.CancelFunc

	mu   sync.Mutex // held while a chunk is queued, so none follows the answer
	done bool       // answered: no more chunks
	// cancelled is set by a :CANCEL before it ends ctx: the request's
	// answer is then the :CANCEL's to give (:STATUS :CANCELLED), never the
	// error the backend returns when its context ends.
	cancelled atomic.Bool
	// left is set once the request no longer counts as in flight: when
	// it is answered (before the answer goes out), or when its goroutine
	// ends unanswered.
	left atomic.Bool
}

// leave takes the request out of the count of those in flight, once.
func (k *call) leave() {
	if k.left.CompareAndSwap(false, true) {
		k.c.s.inFlight.Add(-1)
	}
}

// emit sends streamed text as :STREAM-CHUNK frames (the Backend's emit).
func (k *call) emit(chunk string) error {
	if chunk == "" {
		return nil // the empty chunk ends the stream; only finish sends it
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done {
		return errStreamClosed
	}
	for _, piece := range splitChunk(chunk) {
		f, err := encode(message(typeChunk, answerMeta(k.id), plist.Plist{}.Add(kText, piece)))
		if err != nil {
			return err
		}
		if err := k.c.out.push(k.ctx, f); err != nil {
			return err
		}
	}
	return nil
}

// finish answers the request once: for :ASK the empty chunk that ends the
// stream, then the :RESPONSE. It reports whether this call answered.
func (k *call) finish(status plist.Keyword, text string, extra plist.Plist) bool {
	k.mu.Lock()
	if k.done {
		k.mu.Unlock()
		return false
	}
	k.done = true
	k.mu.Unlock()
	// The id is free again, and the request counted out of those in
	// flight, before the answer goes out: a client may reuse the id, and
	// ask for the status, as soon as it reads the answer.
	k.c.forget(k)
	k.leave()
	if k.action == actAsk {
		_ = k.c.send(message(typeChunk, answerMeta(k.id), plist.Plist{}.Add(kText, "")))
	}
	k.c.respond(k.id, k.action, status, text, extra)
	k.c.s.served.Add(1)
	return true
}

// start runs a request in its own goroutine, so that a slow backend never
// holds up the connection's other requests (or a :CANCEL of this one).
func (c *conn) start(id any, key string, action plist.Keyword, env envelope) {
	c.mu.Lock()
	if _, dup := c.calls[key]; dup {
		c.mu.Unlock()
		c.refuse(id, action, fmt.Sprintf("request %s is already running on this connection", key))
		return
	}
	if len(c.calls) >= c.s.cfg.MaxInFlight {
		c.mu.Unlock()
		c.refuse(id, action, fmt.Sprintf("%d requests are already running on this connection; wait for one to finish", c.s.cfg.MaxInFlight))
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	k := &call{c: c, id: id, key: key, action: action, ctx: ctx, cancel: cancel}
	c.calls[key] = k
	c.wg.Add(1)
	c.mu.Unlock()
	c.s.inFlight.Add(1)

	go func() {
		defer func() {
			cancel()
			c.forget(k)
			k.leave()
			c.wg.Done()
		}()
		defer func() {
			if r := recover(); r != nil {
				c.log.Error("bridge backend panicked", "action", string(action), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				k.finish(statusError, "internal error while serving :"+string(action)+"; see the daemon's log", nil)
			}
		}()
		res, err := c.serve(k, env)
		if k.cancelled.Load() {
			return // cancelRequest answers it
		}
		if err != nil {
			k.finish(statusError, err.Error(), nil)
			return
		}
		k.finish(statusOK, "", res)
	}()
}

// forget removes k from the running requests, if it is still there.
func (c *conn) forget(k *call) {
	c.mu.Lock()
	if c.calls[k.key] == k {
		delete(c.calls, k.key)
	}
	c.mu.Unlock()
}

// cancelRequest serves :CANCEL: the request whose :REQUEST-ID is the
// payload's :TARGET is cancelled — its context ends, its stream gets its
// terminator and it is answered with :STATUS :CANCELLED, all before the
// :CANCEL's own answer, which says (:CANCELLED t) if it stopped a running
// request and (:CANCELLED nil) if there was none by that id (finished
// already, or never sent): cancelling is idempotent.
func (c *conn) cancelRequest(id any, payload plist.Plist) {
	target, present := payload.Get(kTarget)
	if !present {
		c.respond(id, actCancel, statusError, ":CANCEL needs :TARGET, the :REQUEST-ID of the request to cancel", nil)
		return
	}
	tkey, err := requestKey(target)
	if err != nil {
		c.respond(id, actCancel, statusError, ":TARGET is not a request id: "+err.Error(), nil)
		return
	}
	c.mu.Lock()
	k := c.calls[tkey]
	if k != nil {
		delete(c.calls, tkey) // the id is free again at once
	}
	c.mu.Unlock()
	cancelled := false
	if k != nil {
		k.cancelled.Store(true)
		k.cancel()
		ikey, _ := requestKey(id)
		cancelled = k.finish(statusCancelled, "cancelled by request "+ikey, nil)
	}
	c.respond(id, actCancel, statusOK, "", plist.Plist{}.Add(kTarget, target).Add(kCancelled, cancelled))
}

// serve runs one request against the daemon or the backend.
func (c *conn) serve(k *call, env envelope) (plist.Plist, error) {
	b := c.s.cfg.Backend
	p := env.payload
	switch k.action {
	case actStatus:
		return c.status(k.ctx), nil
	case actAsk:
		text, ok := p.String(kText)
		if !ok || text == "" {
			return nil, errors.New(":ASK needs :TEXT, the question, as a non-empty string")
		}
		file, line, err := position(p, false)
		if err != nil {
			return nil, err
		}
		session, ok := env.meta.String(kSessionID)
		if !ok {
			session = c.session
		}
		req := AskRequest{Text: text, File: file, Line: line, SessionID: session, Depth: env.depth, Payload: p}
		if v, ok := p.Get(kChat); ok && v != nil {
			if req.Chat, ok = v.(string); !ok || req.Chat == "" {
				return nil, errors.New(":ASK's :CHAT must be the conversation's file, a non-empty string")
			}
		}
		if v, ok := p.Get(kNoChat); ok && v != nil {
			req.NoChat = true
		}
		return b.Ask(k.ctx, req, k.emit)
	case actContext:
		file, line, err := position(p, true)
		if err != nil {
			return nil, err
		}
		budget := 0
		if v, present := p.Get(kBudget); present && v != nil {
			n, ok := v.(int64)
			if !ok || n <= 0 || n > 1<<30 {
				return nil, errors.New(":BUDGET must be a positive integer")
			}
			budget = int(n)
		}
		return b.Context(k.ctx, ContextRequest{File: file, Line: line, Budget: budget, Payload: p})
	case actPlans:
		return b.Plans(k.ctx)
	case actUndo:
		u, ok := b.(Undoer)
		if !ok {
			return nil, errors.New("this server keeps no changes to undo")
		}
		var id string
		if v, present := p.Get(kID); present && v != nil {
			if id, ok = v.(string); !ok || id == "" {
				return nil, errors.New(":ID must be a change's ID, as a string (or absent: the latest change)")
			}
		}
		switch list, _ := p.Get(kList); list {
		case nil, false:
			return u.Undo(k.ctx, id)
		case true:
			if id != "" {
				return nil, errors.New(":LIST t takes no :ID")
			}
			return u.Changes(k.ctx)
		default:
			return nil, errors.New(":LIST must be t or nil")
		}
	case actApprove, actReject:
		planID, ok := p.String(kID)
		if !ok || planID == "" {
			return nil, fmt.Errorf(":%s needs :ID, the Flight Plan's id, as a string", k.action)
		}
		if k.action != actApprove {
			return b.Reject(k.ctx, planID) // rejecting runs nothing: a :HASH is not checked
		}
		var always bool
		switch v, _ := p.Get(kAlways); v {
		case nil, false:
		case true:
			always = true
		default:
			return nil, errors.New(":ALWAYS must be t or nil")
		}
		if v, present := p.Get(kHash); present && v != nil {
			hash, ok := v.(string)
			if !ok || hash == "" {
				return nil, errors.New(":HASH must be the plan's action hash as :PLANS lists it (\"sha256:…\"), as a string")
			}
			var revision string
			if v, present := p.Get(kRevision); present && v != nil {
				if revision, ok = v.(string); !ok || revision == "" {
					return nil, errors.New(":REVISION must be the plan's revision as :PLANS lists it (\"hmac-sha256:…\"), as a string")
				}
			}
			sa, ok := b.(SeenApprover)
			if !ok {
				return nil, errors.New("this server cannot check the plan you saw (:HASH): nothing was approved")
			}
			return sa.ApproveSeen(k.ctx, planID, hash, revision, always)
		}
		if always {
			aa, ok := b.(AlwaysApprover)
			if !ok {
				return nil, errors.New("this server cannot approve and allow similar actions (:ALWAYS)")
			}
			return aa.ApproveAlways(k.ctx, planID)
		}
		return b.Approve(k.ctx, planID)
	}
	return nil, fmt.Errorf("unknown action :%s", k.action)
}

// position reads :FILE and :LINE (1-based); with required unset both may be
// absent (or nil), but not one without the other.
func position(p plist.Plist, required bool) (string, int, error) {
	fv, _ := p.Get(kFile)
	lv, _ := p.Get(kLine)
	if !required && fv == nil && lv == nil {
		return "", 0, nil
	}
	file, ok := fv.(string)
	if !ok || file == "" {
		return "", 0, errors.New(":FILE must be a file name (a non-empty string) with :LINE")
	}
	line, ok := lv.(int64)
	if !ok || line < 1 || line > 1<<31 {
		return "", 0, errors.New(":LINE must be a positive integer (1-based) with :FILE")
	}
	return file, int(line), nil
}

// status is the :STATUS answer: the daemon's figures, and the backend's
// under :MEMEX when it has any.
func (c *conn) status(ctx context.Context) plist.Plist {
	st := c.s.Stats()
	p := plist.Plist{}.
		Add(kVersion, c.s.cfg.Version).
		Add("WIRE", 1).
		Add("UPTIME-SECONDS", int64(st.Uptime.Seconds())).
		Add("CONNECTIONS", st.Connections).
		Add("HANDSHAKING", st.Handshaking).
		Add("IN-FLIGHT", st.InFlight).
		Add("SERVED", st.Served).
		Add(kSessionID, c.session)
	if r, ok := c.s.cfg.Backend.(StatusReporter); ok {
		m, err := r.Status(ctx)
		if err != nil {
			p = p.Add("MEMEX-ERROR", err.Error())
		} else {
			p = p.Add("MEMEX", m)
		}
	}
	return p
}
