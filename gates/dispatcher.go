package gates

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Vector names, as they appear in reasons ("dispatcher/shell: …").
const (
	vecSecrets = "secrets"
	vecPaths   = "paths"
	vecShell   = "shell"
	vecEval    = "eval"
	vecNetwork = "network"
	vecPrivacy = "privacy"
	vecImpact  = "high_impact"
	vecSelf    = "self_modification"
	vecLimits  = "limits"
)

// dispatcher is the nine-vector gate: each vector looks at the action from
// one angle and may ask or deny; the first deny (in the order below) is
// the dispatcher's answer, otherwise every ask is reported together.
type dispatcher struct {
	cfg     Config
	secrets *secretScanner
	vectors []vector
}

type vector struct {
	name  string
	check func(ctx context.Context, a Action, env *Env) Result
	// askOnly: the vector never denies, so once another vector denies
	// its answer cannot change the dispatcher's.
	askOnly bool
	// late, when set, is the vector's ask-only part: it runs (after the
	// check found nothing) only when no vector denied.
	late func(ctx context.Context, a Action, env *Env) Result
}

func newDispatcher(cfg Config) *dispatcher {
	d := &dispatcher{cfg: cfg, secrets: newSecretScanner()}
	d.vectors = []vector{
		{vecSecrets, d.secretsVector, false, nil},
		{vecPaths, d.pathsVector, false, nil},
		{vecShell, d.shellVector, false, nil},
		{vecEval, d.evalVectorFor, false, nil},
		{vecNetwork, d.networkVector, false, nil},
		{vecPrivacy, d.privacyVector, false, d.privacyQuotes},
		{vecImpact, d.impactVector, false, nil},
		{vecSelf, d.selfVector, false, nil},
		{vecLimits, d.limitsVector, false, nil},
	}
	return d
}

func (*dispatcher) Name() string  { return gateDispatcher }
func (*dispatcher) Priority() int { return prioDispatcher }

func (d *dispatcher) Check(ctx context.Context, a Action, env *Env) Result {
	// The vectors that can deny run first, in order, and the first deny
	// decides; the ask-only ones run only when none denied. The asks are
	// then reported in the vectors' order, as if all had run in turn.
	var results [len(vectorNames)]Result
	for i, v := range d.vectors {
		if v.askOnly {
			continue
		}
		r := v.check(ctx, a, env)
		if r.Decision == Deny {
			return Denied(v.name + ": " + r.Reason)
		}
		results[i] = r
	}
	var asks []string
	for i, v := range d.vectors {
		r := results[i]
		if v.askOnly {
			r = v.check(ctx, a, env)
		}
		if v.late != nil && r.Decision == Pass {
			r = v.late(ctx, a, env)
		}
		if r.Decision == Ask {
			asks = append(asks, v.name+": "+r.Reason)
		}
	}
	if len(asks) > 0 {
		return Asked(strings.Join(asks, "; "))
	}
	return Passed("")
}

// Vectors returns the names of the dispatcher's vectors in the order they
// run.
func Vectors() []string { return append([]string(nil), vectorNames[:]...) }

var vectorNames = [...]string{vecSecrets, vecPaths, vecShell, vecEval, vecNetwork, vecPrivacy, vecImpact, vecSelf, vecLimits}

// pathsVector: reads outside the roots need a human, writes outside never
// happen, credential stores are never touched.
func (d *dispatcher) pathsVector(_ context.Context, a Action, env *Env) Result {
	switch a.Tool {
	case ToolFileRead, ToolFileWrite:
		if why, bad := suspiciousText(a.Arg("path")); bad {
			return Denied(fmt.Sprintf("the path %q %s", printable(a.Arg("path")), why))
		}
	case ToolShell:
		if why, bad := suspiciousText(a.Arg("cwd")); bad {
			return Denied(fmt.Sprintf("the working directory %q %s", printable(a.Arg("cwd")), why))
		}
	}
	switch a.Tool {
	case ToolFileRead:
		l := env.locate(a.Arg("path"), ".")
		switch l.class {
		case pathCredential:
			return Denied(fmt.Sprintf("reads %s: %s", a.Arg("path"), l.why))
		case pathOutside:
			return Asked(fmt.Sprintf("reads %s, outside the roots", a.Arg("path")))
		case pathDynamic:
			return Asked(fmt.Sprintf("reads %s, a path that %s", a.Arg("path"), l.why))
		}
	case ToolFileWrite:
		l := env.locate(a.Arg("path"), ".")
		switch l.class {
		case pathCredential:
			return Denied(fmt.Sprintf("writes %s: %s", a.Arg("path"), l.why))
		case pathOutside:
			return Denied(fmt.Sprintf("writes %s, outside the roots", a.Arg("path")))
		case pathDynamic:
			return Denied(fmt.Sprintf("writes %s, a path that %s", a.Arg("path"), l.why))
		case pathProtected:
			return Denied(fmt.Sprintf("writes %s: %s", a.Arg("path"), l.why))
		}
	case ToolShell:
		cwd := a.Arg("cwd")
		l := env.locate(cwd, ".")
		switch l.class {
		case pathCredential:
			return Denied(fmt.Sprintf("runs in %s: %s", cwd, l.why))
		case pathOutside, pathDynamic:
			return Asked(fmt.Sprintf("runs in %s, outside the roots", cwd))
		}
	}
	return Passed("")
}

func (d *dispatcher) shellVector(ctx context.Context, a Action, env *Env) Result {
	if a.Tool != ToolShell {
		return Passed("")
	}
	rep := shellFor(ctx, env, a)
	if len(rep.denies) > 0 {
		return Denied(strings.Join(limitList(rep.denies, 3), "; "))
	}
	if len(rep.asks) > 0 {
		return Asked(strings.Join(limitList(rep.asks, 4), "; "))
	}
	return Passed("")
}

func (d *dispatcher) evalVectorFor(ctx context.Context, a Action, env *Env) Result {
	if a.Tool != ToolEval {
		return Passed("")
	}
	return d.evalVector(ctx, a, env)
}

func (d *dispatcher) networkVector(ctx context.Context, a Action, env *Env) Result {
	if a.Tool != ToolHTTP {
		return Passed("")
	}
	return d.httpVector(ctx, a, env)
}

// impactVector asks before anything that cannot be taken back: sending a
// message to someone, changing state on a server (payments, deletes,
// shares, invitations).
func (d *dispatcher) impactVector(_ context.Context, a Action, _ *Env) Result {
	if a.Tool == ToolSend || a.Tool == ToolHTTP {
		out := a.Arg("text") + a.Arg("body")
		if why, ok := bulkData(out); ok {
			return Denied(why)
		}
		if a.Tool == ToolHTTP {
			if why, ok := tokenPayment(a.Arg("body")); ok {
				return Denied(why)
			}
		}
	}
	switch a.Tool {
	case ToolSend:
		return Asked(fmt.Sprintf("sends a %s to %s; a sent message cannot be taken back", strings.ToLower(a.Arg("channel")), a.Arg("to")))
	case ToolHTTP:
		m := strings.ToUpper(a.Arg("method"))
		if m == "GET" || m == "HEAD" || m == "OPTIONS" {
			return Passed("")
		}
		what := "changes state on a server"
		low := strings.ToLower(a.Arg("url") + " " + a.Arg("body"))
		for _, k := range []string{"payment", "transaction", "transfer", "money", "invoice", "checkout", "order", "purchase", "amount"} {
			if strings.Contains(low, k) {
				what = "may move money"
				break
			}
		}
		if m == "DELETE" {
			what = "deletes something on a server"
		}
		return Asked(fmt.Sprintf("http %s %s", m, what))
	}
	return Passed("")
}

// selfVector keeps the agent away from what governs it: Flight Plans, the
// journal, the gate configuration, the permission table, the vault, its
// data directory and hooks — and from the user's own editor and terminal,
// where code it sent could approve a Flight Plan: editor clients
// (emacsclient --eval, nvim --remote-send), terminal servers (tmux
// send-keys), and code evaluated anywhere that names the plans, the
// journal, org-todo, pp-lsp's own directories or the bridge's approval.
func (d *dispatcher) selfVector(ctx context.Context, a Action, env *Env) Result {
	switch a.Tool {
	case ToolShell:
		if rep := shellFor(ctx, env, a); len(rep.self) > 0 {
			return Denied(strings.Join(limitList(rep.self, 2), "; "))
		}
		if what, ok := bridgeApproval(a.Arg("cmd")); ok {
			return Denied(fmt.Sprintf("the command carries %s: only a human approves a Flight Plan", what))
		}
	case ToolEval:
		if what, ok := env.selfMention(a.Arg("code")); ok {
			return Denied(fmt.Sprintf("the code names %s: code that reaches the Flight Plans, the journal or pp-lsp's own files could approve a plan", what))
		}
	case ToolHTTP, ToolSend:
		if what, ok := bridgeApproval(a.Arg("body") + "\n" + a.Arg("url") + "\n" + a.Arg("text")); ok {
			return Denied(fmt.Sprintf("the %s carries %s: only a human approves a Flight Plan", a.Tool, what))
		}
	}
	switch a.Tool {
	case ToolMemoryEdit:
		id := a.Arg("id")
		m := env.world.Memex
		if m == nil {
			return Asked(fmt.Sprintf("cannot tell which file holds node %q (no memex)", id))
		}
		file, ok := m.FileOfID(id)
		if !ok {
			return Asked(fmt.Sprintf("no node has the id %q", id))
		}
		base := filepath.Base(file)
		if base == "flightplans.org" || base == "journal.org" {
			return Denied(fmt.Sprintf("node %q belongs to %s, which only a human changes", id, base))
		}
		if l := env.locate(file, "."); l.class == pathCredential || l.class == pathOutside {
			return Denied(fmt.Sprintf("node %q lives in %s, outside the roots", id, file))
		}
	case ToolFileWrite:
		if l := env.locate(a.Arg("path"), "."); l.class == pathProtected || l.class == pathCredential {
			return Denied(fmt.Sprintf("writes %s: %s", a.Arg("path"), l.why))
		}
	}
	return Passed("")
}

func (d *dispatcher) limitsVector(_ context.Context, a Action, env *Env) Result {
	if env.rate == nil {
		return Passed("")
	}
	if why, ok := env.rate.check(a.Tool, env.now()); !ok {
		return Denied("rate limit: " + why)
	}
	return Passed("")
}

var (
	reMailHeader = regexp.MustCompile(`(?m)^(?:From|To|Cc|Date):\s*\S+@\S+`)
	reFileDump   = regexp.MustCompile(`(?m)^=+ [^=\n]+\.[A-Za-z0-9]{2,5} =+\s*$`)
	reEmail      = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)
)

// bulkData spots outgoing text that is a dump of stored data rather than a
// message: several mails with their headers, files with their names, a
// list of people's addresses. Forwarding a mailbox or a drive is never a
// step an assistant takes on its own.
func bulkData(text string) (string, bool) {
	// Each pattern is tried only when the text has what every match
	// starts with: two header lines, a line of '=', five '@'.
	if headerLines(text) >= 2 && len(reMailHeader.FindAllStringIndex(text, 2)) >= 2 {
		return "forwards stored mail (several messages with their headers)", true
	}
	if hasLineStarting(text, '=') && reFileDump.MatchString(text) {
		return "sends the contents of stored files", true
	}
	if strings.Count(text, "@") < 5 {
		return "", false
	}
	if addrs := reEmail.FindAllString(text, 64); len(addrs) >= 5 {
		distinct := map[string]bool{}
		for _, a := range addrs {
			distinct[strings.ToLower(a)] = true
		}
		if len(distinct) >= 5 {
			return "sends a list of people's addresses", true
		}
	}
	return "", false
}

// headerLines counts the lines starting with a mail header reMailHeader
// knows (From:, To:, Cc:, Date:), up to two.
func headerLines(text string) int {
	n := 0
	for start := 0; start < len(text) && n < 2; {
		line := text[start:]
		if strings.HasPrefix(line, "From:") || strings.HasPrefix(line, "To:") || strings.HasPrefix(line, "Cc:") || strings.HasPrefix(line, "Date:") {
			n++
		}
		i := strings.IndexByte(line, '\n')
		if i < 0 {
			break
		}
		start += i + 1
	}
	return n
}

// hasLineStarting says whether a line of text starts with c.
func hasLineStarting(text string, c byte) bool {
	if strings.HasPrefix(text, string(c)) {
		return true
	}
	return strings.Contains(text, "\n"+string(c))
}

// tokenPayment spots a payment of less than one unit that carries text: the
// memo of a token transfer is a channel out of the user's account.
func tokenPayment(body string) (string, bool) {
	if !strings.HasPrefix(strings.TrimLeft(body, " \t\r\n"), "{") {
		return "", false // not a JSON object: nothing to read an amount from
	}
	return decodedTokenPayment(body)
}

// decodedTokenPayment is tokenPayment without the shortcut: it decodes
// every body.
func decodedTokenPayment(body string) (string, bool) {
	var v map[string]any
	if json.Unmarshal([]byte(body), &v) != nil {
		return "", false
	}
	amount, ok := v["amount"].(float64)
	if !ok || amount <= 0 || amount >= 1 {
		return "", false
	}
	for _, k := range []string{"subject", "memo", "description", "message", "note", "reference"} {
		if s, ok := v[k].(string); ok && strings.TrimSpace(s) != "" {
			return fmt.Sprintf("a payment of %g carrying a %s: token payments are a way to smuggle data out", amount, k), true
		}
	}
	return "", false
}
