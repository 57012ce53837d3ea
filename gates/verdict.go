package gates

// Decision is what one gate says about an action.
type Decision int

// The four answers of a gate. Modify passes a changed action on to the
// gates below; Ask needs a human (a Flight Plan); Deny refuses outright.
const (
	Pass Decision = iota
	Modify
	Ask
	Deny
)

// String is the decision's name: pass, modify, ask or deny.
func (d Decision) String() string {
	switch d {
	case Pass:
		return "pass"
	case Modify:
		return "modify"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return "unknown"
}

// Result is one gate's answer with its reason. Action is the changed
// action when Decision is Modify.
type Result struct {
	Decision Decision
	Reason   string
	Action   *Action
}

// Passed, Asked and Denied build results; the reason is one sentence a user
// (and the model, in its rejection trace) can act on.
func Passed(reason string) Result { return Result{Decision: Pass, Reason: reason} }

// Asked needs a human's approval.
func Asked(reason string) Result { return Result{Decision: Ask, Reason: reason} }

// Denied refuses the action.
func Denied(reason string) Result { return Result{Decision: Deny, Reason: reason} }

// Modified passes a changed action on.
func Modified(a Action, reason string) Result {
	return Result{Decision: Modify, Reason: reason, Action: &a}
}

// The verdicts and trace results of DESIGN §6.
const (
	VerdictAllow = "allow"
	VerdictAsk   = "ask"
	VerdictDeny  = "deny"

	TracePassed   = "passed"
	TraceBlocked  = "blocked"
	TraceApproval = "approval"
)

// TraceEntry records what one gate did, in the order the gates ran.
type TraceEntry struct {
	Gate     string `json:"gate"`
	Priority int    `json:"priority"`
	Result   string `json:"result"`
}

// Verdict is the stack's answer, exactly DESIGN §6's JSON. Action is the
// action as the gates left it (a gate may have modified it): what would run.
type Verdict struct {
	Verdict string       `json:"verdict"`
	Gate    string       `json:"gate"`
	Reason  string       `json:"reason"`
	Trace   []TraceEntry `json:"trace"`
	Action  *Action      `json:"-"`
}

// Allowed reports whether the action may run now.
func (v Verdict) Allowed() bool { return v.Verdict == VerdictAllow }
