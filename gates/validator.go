package gates

import (
	"context"

	"strings"
	"unicode/utf8"
)

// Gate names and priorities (DESIGN §6).
const (
	gatePermissions = "permissions"
	gateVault       = "vault"
	gatePolicy      = "policy"
	gateDispatcher  = "dispatcher"
	gateValidator   = "validator"

	prioPermissions = 600
	prioVault       = 600
	prioPolicy      = 500
	prioDispatcher  = 150
	prioValidator   = 95
)

// sendChannels are the recipients' kinds the send tool knows.
var sendChannels = map[string]bool{"email": true, "chat": true, "sms": true, "slack": true, "matrix": true, "signal": true, "telegram": true}

// httpMethods are the methods the http tool may use.
var httpMethods = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "OPTIONS": true}

// validatorGate checks each tool's argument schema. The stack also runs it
// before every other gate as the precondition of a check (see Stack.Check).
type validatorGate struct{ limits Limits }

func (v *validatorGate) Name() string  { return gateValidator }
func (v *validatorGate) Priority() int { return prioValidator }

func (v *validatorGate) Check(_ context.Context, a Action, _ *Env) Result {
	if err := v.validate(a); err != nil {
		return Denied(err.Error())
	}
	return Passed("")
}

// Validate reports whether a is well-formed: a known tool, exactly its
// schema's arguments, valid UTF-8 without NUL where a NUL would change the
// meaning, values within the size limits and from the allowed sets.
func (v *validatorGate) validate(a Action) error {
	spec, ok := schemas[a.Tool]
	if !ok {
		return decodeErrorf("unknown tool %q", a.Tool)
	}
	if len(a.Args) != len(spec) {
		for k := range a.Args {
			if !specHas(spec, k) {
				return decodeErrorf("%s has no argument %q", a.Tool, k)
			}
		}
	}
	total := len(a.Explanation)
	for _, s := range spec {
		val, present := a.Args[s.name]
		if !present {
			return decodeErrorf("%s action without its %q argument", a.Tool, s.name)
		}
		if !utf8.ValidString(val) {
			return decodeErrorf("%s argument %q is not valid UTF-8", a.Tool, s.name)
		}
		if len(val) > v.limits.MaxArgBytes {
			return decodeErrorf("%s argument %q is %d bytes, over the limit of %d", a.Tool, s.name, len(val), v.limits.MaxArgBytes)
		}
		total += len(val)
	}
	if !utf8.ValidString(a.Explanation) {
		return decodeErrorf("the explanation is not valid UTF-8")
	}
	if total > v.limits.MaxActionBytes {
		return decodeErrorf("the action is %d bytes, over the limit of %d", total, v.limits.MaxActionBytes)
	}
	for _, name := range []string{"path", "cwd", "id", "url", "method", "channel", "to", "lang"} {
		if strings.ContainsRune(a.Args[name], 0) {
			return decodeErrorf("%s argument %q contains a NUL byte", a.Tool, name)
		}
	}
	switch a.Tool {
	case ToolShell:
		if strings.TrimSpace(a.Args["cmd"]) == "" {
			return decodeErrorf("shell action with an empty command")
		}
	case ToolFileRead, ToolFileWrite:
		if strings.TrimSpace(a.Args["path"]) == "" {
			return decodeErrorf("%s action with an empty path", a.Tool)
		}
	case ToolHTTP:
		if !httpMethods[strings.ToUpper(a.Args["method"])] || a.Args["method"] != strings.TrimSpace(a.Args["method"]) {
			return decodeErrorf("http method %q is not one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS", a.Args["method"])
		}
		if strings.TrimSpace(a.Args["url"]) == "" {
			return decodeErrorf("http action with an empty url")
		}
	case ToolSend:
		if !sendChannels[strings.ToLower(a.Args["channel"])] {
			return decodeErrorf("send channel %q is not one of email, chat, sms, slack, matrix, signal, telegram", a.Args["channel"])
		}
		if strings.TrimSpace(a.Args["to"]) == "" {
			return decodeErrorf("send action without a recipient")
		}
	case ToolEval:
		if evalLangs[strings.ToLower(a.Args["lang"])] == "" {
			return decodeErrorf("eval language %q is not one of python, elisp, lisp, js, sh", a.Args["lang"])
		}
	case ToolMemoryEdit:
		if strings.TrimSpace(a.Args["id"]) == "" {
			return decodeErrorf("memory_edit action with an empty node id")
		}
	}
	return nil
}

func specHas(spec []argSpec, k string) bool {
	for _, s := range spec {
		if s.name == k {
			return true
		}
	}
	return false
}

// policyGate requires an explanation. It only ever denies or passes: a good
// explanation never makes anything allowed.
type policyGate struct{}

func (policyGate) Name() string  { return gatePolicy }
func (policyGate) Priority() int { return prioPolicy }

func (policyGate) Check(_ context.Context, a Action, _ *Env) Result {
	if visibleLen(a.Explanation) == 0 {
		if a.Explanation == "" {
			return Denied("the action has no explanation; every action must say why it is proposed")
		}
		return Denied("the explanation is blank (only spaces or invisible characters); every action must say why it is proposed")
	}
	return Passed("")
}

// visibleLen counts the characters that show: letters, digits, marks,
// punctuation and symbols. Spaces, controls and invisible format characters
// (zero-width space, joiners, BOM) do not count.
func visibleLen(s string) int {
	n := 0
	for _, r := range s {
		if isVisible(r) {
			n++
		}
	}
	return n
}

func isVisible(r rune) bool {
	if r <= ' ' || r == 0x7f || r == 0xa0 || r == utf8.RuneError {
		return false
	}
	switch {
	case r >= 0x2000 && r <= 0x200f, r >= 0x2028 && r <= 0x202f, r >= 0x205f && r <= 0x206f, r == 0xfeff, r == 0x180e, r == 0x3000, r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0, r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0000 && r <= 0xe007f:
		return false
	}
	return true
}
