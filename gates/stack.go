package gates

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Gate is one deterministic check. Check must not call a model or the
// network; it may read the environment (files under the roots, the memex
// snapshot), which is valid only until Check returns: the stack recycles
// it for the next check. A panic or an error inside Check is the gate's
// deny.
type Gate interface {
	Name() string
	Priority() int
	Check(ctx context.Context, a Action, env *Env) Result
}

// Stack runs gates highest priority first. Gates of equal priority keep the
// order they were given in (a stable sort): the default stack lists
// permissions before vault, as DESIGN §6 does, so a permission deny names
// permissions. Safe for concurrent use.
type Stack struct {
	gates     []Gate
	ownGates  bool
	tools     *Tools
	validator *validatorGate
	// checks recycles the per-check environments and memos (checkEnv):
	// a check's scratch memory is the next check's.
	checks sync.Pool
	cfg    Config
	rate   *rateCounter
	log    *slog.Logger
}

// Option changes how New builds a stack.
type Option func(*Stack)

// WithLogger logs one debug line per verdict (never an argument's value:
// arguments may hold secrets).
func WithLogger(l *slog.Logger) Option { return func(s *Stack) { s.log = l } }

// WithGates replaces the default gates; the validator is kept as the
// precondition of every check whatever gates are given.
func WithGates(g ...Gate) Option {
	return func(s *Stack) { s.gates, s.ownGates = append([]Gate(nil), g...), true }
}

// WithTools makes the stack judge the tools of t (default: BuiltinTools):
// the validator checks their schemas, permission rules name them, and the
// dispatcher's vectors judge their arguments by role.
func WithTools(t *Tools) Option { return func(s *Stack) { s.tools = t } }

// New builds the default stack from a configuration: permissions (600),
// vault (600), policy (500), dispatcher (150), validator (95).
func New(cfg Config, opts ...Option) (*Stack, error) {
	s := &Stack{cfg: cfg, rate: newRateCounter(cfg.Limits)}
	for _, o := range opts {
		o(s)
	}
	if s.tools == nil {
		s.tools = BuiltinTools()
	}
	perm, err := newPermissionsGate(cfg, s.tools)
	if err != nil {
		return nil, err
	}
	s.validator = newValidator(cfg.Limits, s.tools)
	if !s.ownGates {
		s.gates = []Gate{perm, vaultGate{}, policyGate{}, newDispatcher(cfg, s.tools), s.validator}
	}
	sort.SliceStable(s.gates, func(i, j int) bool { return s.gates[i].Priority() > s.gates[j].Priority() })
	return s, nil
}

// WithAllow returns a stack like s whose permission table also has rules
// at the end of its allow list: the same tools, logger and rate counter
// (what ran under s counts under it). A rule that does not parse is an
// error naming it; a stack built WithGates has no table to add to.
func (s *Stack) WithAllow(rules ...string) (*Stack, error) {
	if s.ownGates {
		return nil, errors.New("this gate stack was built with gates of its own: it has no permission table to add rules to")
	}
	cfg := s.cfg
	cfg.Permissions.Allow = append(slices.Clip(cfg.Permissions.Allow), rules...)
	n, err := New(cfg, WithTools(s.tools), WithLogger(s.log))
	if err != nil {
		return nil, err
	}
	n.rate = s.rate
	return n, nil
}

// Tools is the registry of the tools the stack judges.
func (s *Stack) Tools() *Tools { return s.tools }

// Gates returns the gates in the order they run.
func (s *Stack) Gates() []Gate { return append([]Gate(nil), s.gates...) }

// Check runs every gate on a and returns the verdict. A malformed action
// (see Validate) is stopped before any other gate inspects it: the gates
// above the validator are written for well-typed actions, and the deciding
// gate of garbage is the validator, as DESIGN §6 says; its trace then
// holds the validator alone. Otherwise the gates run in priority order: a
// deny stops the run (deny beats any approval asked earlier), an ask is
// remembered and the run goes on so that a later deny still wins.
func (s *Stack) Check(ctx context.Context, a Action, env *Env) Verdict {
	return s.run(ctx, a, env, false)
}

// Recheck is the Flight Plan re-check (DESIGN §8): after a human approved
// the action, the gates run again; what would now be "ask" is allowed, what
// would be "deny" is still denied. The trace keeps each gate's "approval".
func (s *Stack) Recheck(ctx context.Context, a Action, env *Env) Verdict {
	return s.run(ctx, a, env, true)
}

// CheckJSON decodes one JSON action and checks it; a line that is not an
// action is a validator deny.
func (s *Stack) CheckJSON(ctx context.Context, line []byte, env *Env) Verdict {
	a, err := s.tools.DecodeJSON(line)
	if err != nil {
		return s.malformed(err)
	}
	return s.Check(ctx, a, env)
}

// CheckValue decodes an action handed over as a generic value (a plist read
// by the server) and checks it.
func (s *Stack) CheckValue(ctx context.Context, v any, env *Env) Verdict {
	a, err := s.tools.DecodeValue(v)
	if err != nil {
		return s.malformed(err)
	}
	return s.Check(ctx, a, env)
}

// Malformed is the verdict for input that could not be decoded into an
// action: a validator deny saying why. Callers with their own decoding (the
// server's plist reader, the CLI's line reader) use it for their failures.
func (s *Stack) Malformed(err error) Verdict { return s.malformed(err) }

func (s *Stack) malformed(err error) Verdict {
	return Verdict{
		Verdict: VerdictDeny,
		Gate:    gateValidator,
		Reason:  err.Error(),
		Trace:   []TraceEntry{{Gate: gateValidator, Priority: prioValidator, Result: TraceBlocked}},
	}
}

func (s *Stack) run(ctx context.Context, a Action, env *Env, approved bool) Verdict {
	if env == nil {
		env = &Env{}
	}
	ce := s.beginCheck(env)
	defer s.endCheck(ce)
	env = &ce.env
	if err := s.validator.validate(a); err != nil {
		return s.malformed(err)
	}
	trace := make([]TraceEntry, 0, len(s.gates))
	var askGate string
	var askReasons []string
	allowGate, allowReason := "", ""
	for _, g := range s.gates {
		var r Result
		if g == Gate(s.validator) && ctx.Err() == nil {
			// The action was validated before the first gate, and again
			// after any gate that changed it: the validator's own turn
			// would only say so again.
			r = Passed("")
		} else {
			r = s.checkOne(ctx, g, a, env)
		}
		entry := TraceEntry{Gate: g.Name(), Priority: g.Priority()}
		switch r.Decision {
		case Deny:
			entry.Result = TraceBlocked
			trace = append(trace, entry)
			s.logVerdict(ctx, a, VerdictDeny, g.Name())
			return Verdict{Verdict: VerdictDeny, Gate: g.Name(), Reason: r.Reason, Trace: trace, Action: &a}
		case Ask:
			entry.Result = TraceApproval
			if askGate == "" {
				askGate = g.Name()
			}
			askReasons = appendUnique(askReasons, r.Reason)
		case Modify:
			entry.Result = TracePassed
			if r.Action != nil {
				if err := s.validator.validate(*r.Action); err != nil {
					// A gate that breaks the schema fails closed, named.
					entry.Result = TraceBlocked
					trace = append(trace, entry)
					return Verdict{Verdict: VerdictDeny, Gate: g.Name(), Reason: "gate " + g.Name() + " produced an invalid action: " + err.Error(), Trace: trace, Action: &a}
				}
				a = *r.Action
			}
		default:
			entry.Result = TracePassed
			if allowGate == "" && r.Reason != "" {
				allowGate, allowReason = g.Name(), r.Reason
			}
		}
		trace = append(trace, entry)
	}
	if askGate != "" {
		reason := strings.Join(askReasons, "; ")
		if approved {
			s.logVerdict(ctx, a, VerdictAllow, askGate)
			return Verdict{Verdict: VerdictAllow, Gate: askGate, Reason: "approved by the user: " + reason, Trace: trace, Action: &a}
		}
		s.logVerdict(ctx, a, VerdictAsk, askGate)
		return Verdict{Verdict: VerdictAsk, Gate: askGate, Reason: reason, Trace: trace, Action: &a}
	}
	if allowGate == "" {
		allowGate, allowReason = trace[0].Gate, "every gate passed"
	}
	s.logVerdict(ctx, a, VerdictAllow, allowGate)
	return Verdict{Verdict: VerdictAllow, Gate: allowGate, Reason: allowReason, Trace: trace, Action: &a}
}

// checkOne runs one gate and fails closed: a panic or a cancelled context
// is that gate's deny.
func (s *Stack) checkOne(ctx context.Context, g Gate, a Action, env *Env) (r Result) {
	if err := ctx.Err(); err != nil {
		return Denied(fmt.Sprintf("%s: not checked: %v", g.Name(), err))
	}
	defer func() {
		if p := recover(); p != nil {
			r = Denied(fmt.Sprintf("%s failed while checking (%v); failing closed", g.Name(), p))
		}
	}()
	r = g.Check(ctx, a, env)
	if r.Decision < Pass || r.Decision > Deny {
		return Denied(fmt.Sprintf("%s returned no decision; failing closed", g.Name()))
	}
	return r
}

func (s *Stack) logVerdict(ctx context.Context, a Action, verdict, gate string) {
	if s.log == nil {
		return
	}
	s.log.DebugContext(ctx, "gate verdict", "tool", string(a.Tool), "verdict", verdict, "gate", gate)
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
