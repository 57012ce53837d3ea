package gates

import (
	"context"
	"fmt"
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
type validatorGate struct {
	limits Limits
	tools  *Tools
	// plans are what it checks of each tool's actions, made from the
	// roles of their arguments when the stack is built.
	plans map[Tool]*validation
}

// validation is what the validator checks of one tool's actions beyond
// their schema, in order.
type validation struct {
	spec *ToolSpec
	// unknown names an argument whose role the validator has no rule for:
	// every action of the tool is malformed.
	unknown string
	// noNUL are the arguments that may hold no NUL.
	noNUL []string
	// checks are the value checks of its arguments.
	checks []argCheck
}

type argCheck struct {
	arg   string
	check func(tool Tool, v string) error
}

// The validator's rules, by role. An argument of a role that is in none of
// these lists is one the validator was not written for: its tool's actions
// are malformed until it is.
var (
	// validatorNoNUL are the roles whose value names one thing (a path, a
	// node, a host, a recipient, a language), where a NUL would make the
	// gates read another thing than the actuator uses; in the order
	// checked.
	validatorNoNUL = []Role{RoleReadPath, RoleWritePath, RoleWorkDir, RoleNodeID, RoleURL, RoleMethod, RoleChannel, RoleRecipient, RoleLang}
	// validatorChecks are the value checks, in the order they run.
	validatorChecks = []struct {
		role  Role
		check func(tool Tool, v string) error
	}{
		{RoleCommand, notBlank("with an empty command")},
		{RoleReadPath, notBlank("with an empty path")},
		{RoleWritePath, notBlank("with an empty path")},
		{RoleMethod, func(tool Tool, m string) error {
			if !httpMethods[strings.ToUpper(m)] || m != strings.TrimSpace(m) {
				return decodeErrorf("%s method %q is not one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS", tool, m)
			}
			return nil
		}},
		{RoleURL, notBlank("with an empty url")},
		{RoleChannel, func(tool Tool, ch string) error {
			if !sendChannels[strings.ToLower(ch)] {
				return decodeErrorf("%s channel %q is not one of email, chat, sms, slack, matrix, signal, telegram", tool, ch)
			}
			return nil
		}},
		{RoleRecipient, notBlank("without a recipient")},
		{RoleLang, func(tool Tool, lang string) error {
			if evalLangs[strings.ToLower(lang)] == "" {
				return decodeErrorf("%s language %q is not one of python, elisp, lisp, js, sh", tool, lang)
			}
			return nil
		}},
		{RoleNodeID, notBlank("with an empty node id")},
	}
	// validatorFree are the roles whose values are free text: any string
	// within the size limits.
	validatorFree = []Role{RoleWorkDir, RoleContent, RoleBody, RoleMessage, RoleAnswer, RoleCode}
)

// notBlank is the check that a value is not empty or only spaces.
func notBlank(what string) func(Tool, string) error {
	return func(tool Tool, v string) error {
		if strings.TrimSpace(v) == "" {
			return decodeErrorf("%s action %s", tool, what)
		}
		return nil
	}
}

func newValidator(limits Limits, tools *Tools) *validatorGate {
	v := &validatorGate{limits: limits, tools: tools, plans: map[Tool]*validation{}}
	known := [numRoles]bool{}
	for _, r := range validatorNoNUL {
		known[r] = true
	}
	for _, c := range validatorChecks {
		known[c.role] = true
	}
	for _, r := range validatorFree {
		known[r] = true
	}
	for _, spec := range tools.specs {
		p := &validation{spec: tools.spec(spec.Name)}
		for _, a := range spec.Args {
			if a.Role >= numRoles || !known[a.Role] {
				p.unknown = fmt.Sprintf("the validator has no rule for the role %s (argument %q of %s)", a.Role, a.Name, spec.Name)
				break
			}
		}
		for _, r := range validatorNoNUL {
			for _, a := range spec.Args {
				if a.Role == r {
					p.noNUL = append(p.noNUL, a.Name)
				}
			}
		}
		for _, c := range validatorChecks {
			for _, a := range spec.Args {
				if a.Role == c.role {
					p.checks = append(p.checks, argCheck{arg: a.Name, check: c.check})
				}
			}
		}
		v.plans[spec.Name] = p
	}
	return v
}

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
	p, ok := v.plans[a.Tool]
	if !ok {
		return decodeErrorf("unknown tool %q", a.Tool)
	}
	if p.unknown != "" {
		return decodeErrorf("%s", p.unknown)
	}
	spec := p.spec.Args
	if len(a.Args) != len(spec) {
		for k := range a.Args {
			if _, ok := p.spec.Arg(k); !ok {
				return decodeErrorf("%s has no argument %q", a.Tool, k)
			}
		}
	}
	total := len(a.Explanation)
	for _, s := range spec {
		val, present := a.Args[s.Name]
		if !present {
			return decodeErrorf("%s action without its %q argument", a.Tool, s.Name)
		}
		if !utf8.ValidString(val) {
			return decodeErrorf("%s argument %q is not valid UTF-8", a.Tool, s.Name)
		}
		if len(val) > v.limits.MaxArgBytes {
			return decodeErrorf("%s argument %q is %d bytes, over the limit of %d", a.Tool, s.Name, len(val), v.limits.MaxArgBytes)
		}
		total += len(val)
	}
	if !utf8.ValidString(a.Explanation) {
		return decodeErrorf("the explanation is not valid UTF-8")
	}
	if total > v.limits.MaxActionBytes {
		return decodeErrorf("the action is %d bytes, over the limit of %d", total, v.limits.MaxActionBytes)
	}
	for _, name := range p.noNUL {
		if strings.ContainsRune(a.Args[name], 0) {
			return decodeErrorf("%s argument %q contains a NUL byte", a.Tool, name)
		}
	}
	for _, c := range p.checks {
		if err := c.check(a.Tool, a.Args[c.arg]); err != nil {
			return err
		}
	}
	return nil
}

// policyGate requires an explanation. It only ever denies or passes: a good
// explanation never makes anything allowed.
type policyGate struct{}

func (policyGate) Name() string  { return gatePolicy }
func (policyGate) Priority() int { return prioPolicy }

func (policyGate) Check(_ context.Context, a Action, _ *Env) Result {
	if !hasVisible(a.Explanation) {
		if a.Explanation == "" {
			return Denied("the action has no explanation; every action must say why it is proposed")
		}
		return Denied("the explanation is blank (only spaces or invisible characters); every action must say why it is proposed")
	}
	return Passed("")
}

// hasVisible says whether s has a character that shows: a letter, digit,
// mark, punctuation or symbol. Spaces, controls and invisible format
// characters (zero-width space, joiners, BOM) do not count. It stops at
// the first: an explanation is usually visible from its first byte.
func hasVisible(s string) bool {
	for _, r := range s {
		if isVisible(r) {
			return true
		}
	}
	return false
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
