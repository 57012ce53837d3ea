// Package gates verifies every action a language model proposes before
// anything runs: the action model and its decoders (JSON, plist-shaped
// values, model tool calls), the gate interface, the stack that runs the
// gates in priority order and records a trace, and the gates themselves
// (permissions, vault, policy, the nine-vector dispatcher, validator).
//
// Invariant: a verdict is a pure function of the action, the configuration
// and the environment (roots, home, memex snapshot, vault, and the files
// under the roots as they are when it is checked) — no model, no network,
// no token is ever spent — and every failure inside a gate (an error, a
// panic, a cancelled context, an input it cannot decode) is a deny naming
// that gate. Nothing is allowed because a gate could not decide; "allow"
// only ever means every gate positively passed it.
//
// The tools are a registry (Tools, BuiltinTools): each one defined once,
// as a ToolSpec — its arguments with their roles (a command, a path read
// or written, a URL, code, a node's ID, text for the user or for someone
// else…), whether it needs a human's approval, and what the model is told
// about it — and passed to the stack (WithTools), the actuators and the
// prompt. The validator and the dispatcher's vectors judge an argument by
// its role, never by its tool's name, so a tool added to the registry
// meets every check written for what its arguments are; an argument of a
// role a check was not written for is denied, naming that check.
//
// A shell command is read as bash reads it, and each program in it as the
// program reads its own command line: the grammars of grammars.go, data
// held to the installed programs by grammar_real_test.go, say which words
// are options (by every spelling getopt takes), which of them read, write
// or run something, and what each operand is. An option a grammar does not
// know is never allowed.
//
// Speed (p99 under 50 µs an action is the budget) comes from doing each
// piece of work once and only where it can matter, never from remembering
// verdicts: a text is searched for every keyword of the secret and code
// rules in one automaton pass, and the patterns run only on the lines
// holding their keywords; a check locates each path, asks the file system
// about each directory and analyses its shell command once, whichever
// gates ask, and forgets all of it when it ends, so the next check sees
// the disk as it is then; the dispatcher stops at the first vector that
// denies (the ask-only privacy vector runs only when none does). Each
// shortcut is tested against the straightforward code it replaced
// (fastpath_test.go).
package gates
