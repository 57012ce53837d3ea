// Package bridge is the framed-TCP daemon that editors (the elisp bridge)
// and other clients speak to: wire 1 of DESIGN §9.
//
// Invariant: nothing is served before a client presents the token; a client
// can only ever hurt its own connection — a malformed frame closes that
// connection alone (after a :LOG saying why), and a client that stops reading
// only blocks its own requests — and the daemon never closes a healthy
// authenticated connection first (except at shutdown, with a :LOG).
// Connections that have not authenticated cost a bounded amount and can never
// lock a genuine client out: they are at most MaxHandshaking, each closed
// after the handshake timeout, the oldest evicted by a newcomer. Tokens and
// payloads are never logged.
//
// # The protocol as served
//
// A frame is 6 hex digits (the payload's length in bytes) and a payload that
// is one property list (package plist). On connect the daemon sends
//
//	(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :VERSION "x.y.z" :NONCE "…" :PROOF "…"))
//
// :PROOF proves the daemon knows the token before the client gives it: the
// hex HMAC-SHA256, keyed with the SHA-256 of the token, of
// "pp-lsp bridge daemon proof", the nonce, the client's end of the
// connection and the daemon's, each followed by a zero byte; an end is
// the IP's bytes in hex (4 for IPv4, 16 for IPv6), ":" and the port in
// decimal. Any local process can listen on the port an editor connects
// to when the daemon is not there; a client that checks the proof (the
// elisp bridge does) gives such a process nothing, nor one that relays
// the daemon's handshake, whose proof names the relay's own connection.
//
// and the client's first message must be
//
//	(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :TOKEN "…" :CAPABILITIES (…)))
//
// within the handshake timeout (2s), in a frame of at most 64 KiB. The
// token is the file LoadOrCreateToken manages (see TokenPath); it is compared
// in constant time. A good token is acknowledged with
//
//	(:TYPE :STATUS :META (:SOURCE :DAEMON) :PAYLOAD (:ACTION :HANDSHAKE :STATUS :OK :SESSION-ID "…" :VERSION "…"))
//
// A bad or missing token, another first message, or no handshake in time gets
// a :LOG and the connection is closed.
//
// # Connections that do not authenticate
//
// Any local process can open connections to the port. Until its token is
// checked a connection holds one of MaxHandshaking places (64): when a
// connection arrives and they are all taken, the one that has waited longest
// is evicted — it gets (:LEVEL :ERROR :TEXT "handshake refused: more than 64
// connections were waiting to authenticate …") and is closed — so a genuine
// client always gets a place, however many idle connections are held. It
// keeps it for as long as 63 newer connections take to arrive, ample for its
// one round trip unless a process reopens evicted connections as fast as it
// can; then an evicted client connects again (the package's benchmark
// measures how often). Once authenticated a client is never evicted. At most
// MaxConnections clients (64) are authenticated at once: beyond, a client is
// told so after its handshake and closed. A connection closed before it
// authenticated lingers at most 250 ms for its last :LOG, and not at all if
// it never sent a byte.
//
// A request is (:TYPE :REQUEST :META (:REQUEST-ID id …) :PAYLOAD (:ACTION :X …)).
// The id is a string, integer or symbol, unique among the connection's
// running requests. Every request gets exactly one
//
//	(:TYPE :RESPONSE :META (:SOURCE :DAEMON :REQUEST-ID id) :PAYLOAD (:ACTION :X :STATUS s …))
//
// where s is :OK, :ERROR (with :TEXT, one sentence saying why) or :CANCELLED.
// An :ASK is answered as a stream: any number of
// (:TYPE :STREAM-CHUNK :META (… :REQUEST-ID id) :PAYLOAD (:TEXT "…")), then one
// with :TEXT "" (always, even when the ask failed or was cancelled), then the
// :RESPONSE. The actions:
//
//	:PING                         answered (:STATUS :OK :TEXT "pong")
//	:STATUS                       :VERSION :WIRE :UPTIME-SECONDS :CONNECTIONS (authenticated) :HANDSHAKING :IN-FLIGHT :SERVED :SESSION-ID, and :MEMEX from the backend
//	:CANCEL :TARGET id            see below
//	:ASK :TEXT q [:FILE f :LINE n] the backend's answer, streamed
//	:CONTEXT :FILE f :LINE n [:BUDGET n]  the backend's rendering, as :TEXT
//	:PLANS                        the backend's Flight Plans, as :PLANS
//	:APPROVE :ID plan / :REJECT :ID plan  the backend's verdict
//	:APPROVE :ID plan :ALWAYS t   approve and allow similar actions from then on (AlwaysApprover)
//	:APPROVE :ID plan :HASH h [:REVISION r] [:ALWAYS t]  only if the plan still holds the
//	                              action whose hash h (as :PLANS lists it) the user saw, and, with
//	                              :REVISION (listed for a plan with a diff: the filing its diff was
//	                              made for), is still that filing — a plan filed afresh because its
//	                              file changed keeps :HASH, not :REVISION (SeenApprover); else an
//	                              error, "the plan changed since you saw it: look again", journalled
//	:UNDO [:ID change]            take back the latest (or the named) change an action made (Undoer);
//	                              :LIST t lists the changes instead
//
// :CANCEL names the request to cancel by its :REQUEST-ID in :TARGET (its own
// :REQUEST-ID is its own). The target's context ends, its stream gets its
// empty chunk and it is answered :STATUS :CANCELLED — all before the
// :CANCEL's answer, (:STATUS :OK :TARGET id :CANCELLED t). If no request by
// that id is running (it finished first, or never was) the answer is
// (:CANCELLED nil): cancelling is idempotent and race-free for the client.
//
// An unknown action, a missing field or a backend error is an error
// :RESPONSE; :DEPTH above 10 is refused. A message that is not a :REQUEST is
// answered with a :LOG. None of these closes the connection. What does —
// a header that is not 6 hex digits, a length over the maximum (4 MiB by
// default), a payload that is not one readable property list (#-syntax
// included), a frame that stalls mid-way past the stall timeout — is
// answered with (:TYPE :LOG :PAYLOAD (:LEVEL :ERROR :TEXT "malformed frame: …")).
// End of input from the client is the client leaving: its requests are
// cancelled.
//
// # Concurrency and backpressure
//
// Each connection has a reader (which serves :PING and :CANCEL itself), a
// writer draining a queue bounded in bytes, and one goroutine per backend
// request. When a client does not read, its queue fills and whatever queues
// to it waits: a streaming backend's emit blocks, which slows that client's
// own stream, and nothing else. The accept loop and the other connections
// never wait on a client. At most MaxInFlight requests run per connection
// and MaxConnections authenticated connections at once; past either, the
// client is told so.
package bridge
