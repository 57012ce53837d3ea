// Package gates verifies every action a language model proposes before
// anything runs: the action model and its decoders (JSON, plist-shaped
// values, model tool calls), the gate interface, the stack that runs the
// gates in priority order and records a trace, and the gates themselves
// (permissions, vault, policy, the nine-vector dispatcher, validator).
//
// Invariant: a verdict is a pure function of the action, the configuration
// and the environment (roots, home, memex snapshot, vault) — no model, no
// network, no token is ever spent — and every failure inside a gate (an
// error, a panic, a cancelled context, an input it cannot decode) is a
// deny naming that gate. Nothing is allowed because a gate could not
// decide; "allow" only ever means every gate positively passed it.
package gates
