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
//
// A vector judges arguments by their role (see Role), never by the name of
// their tool: a tool is judged by every vector written for the roles of its
// arguments. Each vector says which roles it judges and which it leaves to
// others; a tool with an argument of a role a vector says neither of is
// denied, naming that vector, until the vector is taught the role.
type dispatcher struct {
	cfg     Config
	secrets *secretScanner
	vectors []vector
	// plans are, for each tool, the arguments each vector judges, made
	// from the roles of its arguments when the stack is built.
	plans map[Tool]*toolPlan
}

type vector struct {
	name string
	// judges are the roles of the arguments the check judges, in the order
	// it looks at them; late are those of the late part's.
	judges, lateJudges []Role
	// leaves are the roles the vector has nothing to say about (another
	// vector judges them, or it reads them with the argument they go
	// with: a command's folder, a URL's method, code's language).
	leaves []Role
	// perTool: the vector judges the tool, not its arguments (rate
	// limits), so every role is known to it.
	perTool bool
	check   func(ctx context.Context, a Action, args []arg, env *Env) Result
	// askOnly: the vector never denies, so once another vector denies
	// its answer cannot change the dispatcher's.
	askOnly bool
	// late, when set, is the vector's ask-only part: it runs (after the
	// check found nothing) only when no vector denied.
	late func(ctx context.Context, a Action, args []arg, env *Env) Result
}

// arg is one argument a vector judges, with its tool, for the arguments it
// is read with.
type arg struct {
	name string
	role Role
	tool *ToolSpec
}

// with returns the value of the tool's argument of role r, and whether the
// tool has one.
func (g arg) with(a Action, r Role) (string, bool) {
	s, ok := g.tool.ArgWith(r)
	if !ok {
		return "", false
	}
	return a.Arg(s.Name), true
}

// command is the command line of a command argument and the folder it
// runs in (the first root when its tool names none).
func (g arg) command(a Action) (cmd, cwd string) {
	cwd, ok := g.with(a, RoleWorkDir)
	if !ok {
		cwd = "."
	}
	return a.Arg(g.name), cwd
}

// toolPlan is what each vector judges of one tool's actions.
type toolPlan struct {
	vectors [len(vectorNames)]vectorPlan
}

type vectorPlan struct {
	// unknown says why the vector cannot judge the tool: an argument of a
	// role it was not written for.
	unknown    string
	args, late []arg
}

func newDispatcher(cfg Config, tools *Tools) *dispatcher {
	d := &dispatcher{cfg: cfg, secrets: newSecretScanner()}
	d.vectors = d.vectorTable()
	d.plans = d.plan(tools)
	return d
}

// vectorTable is the vectors in the order they run, with the roles each
// judges and leaves.
func (d *dispatcher) vectorTable() []vector {
	return []vector{
		{name: vecSecrets, check: d.secretsVector,
			judges: []Role{RoleCommand, RoleURL, RoleBody, RoleAnswer, RoleMessage, RoleRecipient, RoleCode, RoleContent},
			leaves: []Role{RoleWorkDir, RoleReadPath, RoleWritePath, RoleNodeID, RoleMethod, RoleChannel, RoleLang}},
		{name: vecPaths, check: d.pathsVector,
			judges: []Role{RoleReadPath, RoleWritePath, RoleWorkDir},
			leaves: []Role{RoleCommand, RoleContent, RoleNodeID, RoleMethod, RoleURL, RoleBody, RoleChannel, RoleRecipient, RoleMessage, RoleAnswer, RoleLang, RoleCode}},
		{name: vecShell, check: d.shellVector,
			judges: []Role{RoleCommand},
			leaves: []Role{RoleWorkDir, RoleReadPath, RoleWritePath, RoleContent, RoleNodeID, RoleMethod, RoleURL, RoleBody, RoleChannel, RoleRecipient, RoleMessage, RoleAnswer, RoleLang, RoleCode}},
		{name: vecEval, check: d.evalVectorFor,
			judges: []Role{RoleCode},
			leaves: []Role{RoleCommand, RoleWorkDir, RoleReadPath, RoleWritePath, RoleContent, RoleNodeID, RoleMethod, RoleURL, RoleBody, RoleChannel, RoleRecipient, RoleMessage, RoleAnswer, RoleLang}},
		{name: vecNetwork, check: d.networkVector,
			judges: []Role{RoleURL},
			leaves: []Role{RoleCommand, RoleWorkDir, RoleReadPath, RoleWritePath, RoleContent, RoleNodeID, RoleMethod, RoleBody, RoleChannel, RoleRecipient, RoleMessage, RoleAnswer, RoleLang, RoleCode}},
		{name: vecPrivacy, check: d.privacyVector, late: d.privacyQuotes,
			judges:     []Role{RoleCommand, RoleReadPath, RoleCode},
			lateJudges: []Role{RoleMessage, RoleBody, RoleURL, RoleCommand, RoleCode, RoleAnswer},
			leaves:     []Role{RoleWorkDir, RoleWritePath, RoleContent, RoleNodeID, RoleMethod, RoleChannel, RoleRecipient, RoleLang}},
		{name: vecImpact, check: d.impactVector,
			judges: []Role{RoleMessage, RoleBody, RoleRecipient, RoleMethod},
			leaves: []Role{RoleCommand, RoleWorkDir, RoleReadPath, RoleWritePath, RoleContent, RoleNodeID, RoleURL, RoleChannel, RoleAnswer, RoleLang, RoleCode}},
		{name: vecSelf, check: d.selfVector,
			judges: []Role{RoleCommand, RoleCode, RoleBody, RoleURL, RoleMessage, RoleNodeID, RoleWritePath, RoleContent},
			leaves: []Role{RoleWorkDir, RoleReadPath, RoleMethod, RoleChannel, RoleRecipient, RoleAnswer, RoleLang}},
		{name: vecLimits, check: d.limitsVector, perTool: true},
	}
}

// plan works out, for every tool, which of its arguments each vector
// judges, in the vector's order of roles (then the tool's order of
// arguments).
func (d *dispatcher) plan(tools *Tools) map[Tool]*toolPlan {
	plans := make(map[Tool]*toolPlan, len(tools.specs))
	for i := range tools.specs {
		spec := tools.spec(tools.specs[i].Name)
		tp := &toolPlan{}
		for vi, v := range d.vectors {
			vp := &tp.vectors[vi]
			if !v.perTool {
				var known [numRoles]bool
				for _, list := range [][]Role{v.judges, v.lateJudges, v.leaves} {
					for _, r := range list {
						known[r] = true
					}
				}
				for _, a := range spec.Args {
					if a.Role >= numRoles || !known[a.Role] {
						vp.unknown = fmt.Sprintf("it was not written for the role %s (argument %q of %s), so it cannot judge the action", a.Role, a.Name, spec.Name)
						break
					}
				}
			}
			pick := func(roles []Role) []arg {
				var out []arg
				for _, r := range roles {
					for _, a := range spec.Args {
						if a.Role == r {
							out = append(out, arg{name: a.Name, role: r, tool: spec})
						}
					}
				}
				return out
			}
			vp.args, vp.late = pick(v.judges), pick(v.lateJudges)
		}
		plans[spec.Name] = tp
	}
	return plans
}

func (*dispatcher) Name() string  { return gateDispatcher }
func (*dispatcher) Priority() int { return prioDispatcher }

func (d *dispatcher) Check(ctx context.Context, a Action, env *Env) Result {
	tp := d.plans[a.Tool]
	if tp == nil {
		return Denied(fmt.Sprintf("the vectors do not know the tool %q", a.Tool))
	}
	// The vectors that can deny run first, in order, and the first deny
	// decides; the ask-only ones run only when none denied. The asks are
	// then reported in the vectors' order, as if all had run in turn.
	var results [len(vectorNames)]Result
	for i, v := range d.vectors {
		vp := &tp.vectors[i]
		if vp.unknown != "" {
			return Denied(v.name + ": " + vp.unknown)
		}
		if v.askOnly {
			continue
		}
		r := v.check(ctx, a, vp.args, env)
		if r.Decision == Deny {
			return Denied(v.name + ": " + r.Reason)
		}
		results[i] = r
	}
	var asks []string
	for i, v := range d.vectors {
		vp := &tp.vectors[i]
		r := results[i]
		if v.askOnly {
			r = v.check(ctx, a, vp.args, env)
		}
		if v.late != nil && r.Decision == Pass {
			r = v.late(ctx, a, vp.late, env)
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
func (d *dispatcher) pathsVector(_ context.Context, a Action, args []arg, env *Env) Result {
	for _, g := range args {
		p := a.Arg(g.name)
		if why, bad := suspiciousText(p); bad {
			if g.role == RoleWorkDir {
				return Denied(fmt.Sprintf("the working directory %q %s", printable(p), why))
			}
			return Denied(fmt.Sprintf("the path %q %s", printable(p), why))
		}
		l := env.locate(p, ".")
		switch g.role {
		case RoleReadPath:
			switch l.class {
			case pathCredential:
				return Denied(fmt.Sprintf("reads %s: %s", p, l.why))
			case pathOutside:
				return Asked(fmt.Sprintf("reads %s, outside the roots", p))
			case pathDynamic:
				return Asked(fmt.Sprintf("reads %s, a path that %s", p, l.why))
			}
		case RoleWritePath:
			switch l.class {
			case pathCredential:
				return Denied(fmt.Sprintf("writes %s: %s", p, l.why))
			case pathOutside:
				return Denied(fmt.Sprintf("writes %s, outside the roots", p))
			case pathDynamic:
				return Denied(fmt.Sprintf("writes %s, a path that %s", p, l.why))
			case pathProtected:
				return Denied(fmt.Sprintf("writes %s: %s", p, l.why))
			}
		case RoleWorkDir:
			switch l.class {
			case pathCredential:
				return Denied(fmt.Sprintf("runs in %s: %s", p, l.why))
			case pathOutside, pathDynamic:
				return Asked(fmt.Sprintf("runs in %s, outside the roots", p))
			}
		}
	}
	return Passed("")
}

func (d *dispatcher) shellVector(ctx context.Context, a Action, args []arg, env *Env) Result {
	for _, g := range args {
		cmd, cwd := g.command(a)
		rep := shellOf(ctx, env, cmd, cwd)
		if len(rep.denies) > 0 {
			return Denied(strings.Join(limitList(rep.denies, 3), "; "))
		}
		if len(rep.asks) > 0 {
			return Asked(strings.Join(limitList(rep.asks, 4), "; "))
		}
	}
	return Passed("")
}

func (d *dispatcher) evalVectorFor(ctx context.Context, a Action, args []arg, env *Env) Result {
	for _, g := range args {
		lang, ok := g.with(a, RoleLang)
		if !ok {
			return Denied(fmt.Sprintf("the code of %s comes without a language to read it in", a.Tool))
		}
		return d.evalVector(ctx, lang, a.Arg(g.name), env)
	}
	return Passed("")
}

func (d *dispatcher) networkVector(ctx context.Context, a Action, args []arg, env *Env) Result {
	for _, g := range args {
		method, ok := g.with(a, RoleMethod)
		if !ok {
			return Denied(fmt.Sprintf("the url of %s comes without a method to tell a read from a change", a.Tool))
		}
		return d.httpVector(ctx, method, a.Arg(g.name), env)
	}
	return Passed("")
}

// impactVector asks before anything that cannot be taken back: sending a
// message to someone, changing state on a server (payments, deletes,
// shares, invitations).
func (d *dispatcher) impactVector(_ context.Context, a Action, args []arg, _ *Env) Result {
	var out strings.Builder
	for _, g := range args {
		if g.role == RoleMessage || g.role == RoleBody {
			out.WriteString(a.Arg(g.name))
		}
	}
	if out.Len() > 0 {
		if why, ok := bulkData(out.String()); ok {
			return Denied(why)
		}
	}
	for _, g := range args {
		if g.role == RoleBody {
			if why, ok := tokenPayment(a.Arg(g.name)); ok {
				return Denied(why)
			}
		}
	}
	var asks []string
	for _, g := range args {
		switch g.role {
		case RoleRecipient:
			what := "message"
			if ch, ok := g.with(a, RoleChannel); ok {
				what = strings.ToLower(ch)
			}
			asks = append(asks, fmt.Sprintf("sends a %s to %s; a sent message cannot be taken back", what, a.Arg(g.name)))
		case RoleMethod:
			m := strings.ToUpper(a.Arg(g.name))
			if m == "GET" || m == "HEAD" || m == "OPTIONS" {
				continue
			}
			url, _ := g.with(a, RoleURL)
			body, _ := g.with(a, RoleBody)
			what := "changes state on a server"
			low := strings.ToLower(url + " " + body)
			for _, k := range []string{"payment", "transaction", "transfer", "money", "invoice", "checkout", "order", "purchase", "amount"} {
				if strings.Contains(low, k) {
					what = "may move money"
					break
				}
			}
			if m == "DELETE" {
				what = "deletes something on a server"
			}
			asks = append(asks, fmt.Sprintf("%s %s %s", a.Tool, m, what))
		}
	}
	if len(asks) > 0 {
		return Asked(strings.Join(asks, "; "))
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
func (d *dispatcher) selfVector(ctx context.Context, a Action, args []arg, env *Env) Result {
	// What leaves by the network or a message is read as one text.
	var out []string
	for _, g := range args {
		switch g.role {
		case RoleCommand:
			cmd, cwd := g.command(a)
			if rep := shellOf(ctx, env, cmd, cwd); len(rep.self) > 0 {
				return Denied(strings.Join(limitList(rep.self, 2), "; "))
			}
			if what, ok := bridgeApproval(a.Arg(g.name)); ok {
				return Denied(fmt.Sprintf("the command carries %s: only a human approves a Flight Plan", what))
			}
		case RoleCode:
			if what, ok := env.selfMention(a.Arg(g.name)); ok {
				return Denied(fmt.Sprintf("the code names %s: code that reaches the Flight Plans, the journal or pp-lsp's own files could approve a plan", what))
			}
		case RoleBody, RoleURL, RoleMessage:
			out = append(out, a.Arg(g.name))
		}
	}
	if len(out) > 0 {
		if what, ok := bridgeApproval(strings.Join(out, "\n")); ok {
			return Denied(fmt.Sprintf("the %s carries %s: only a human approves a Flight Plan", a.Tool, what))
		}
	}
	for _, g := range args {
		switch g.role {
		case RoleNodeID:
			id := a.Arg(g.name)
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
			switch l := env.locate(file, "."); l.class {
			case pathCredential, pathOutside:
				return Denied(fmt.Sprintf("node %q lives in %s, outside the roots", id, file))
			case pathProtected:
				return Denied(fmt.Sprintf("node %q lives in %s: %s", id, file, l.why))
			}
		case RoleWritePath:
			p := a.Arg(g.name)
			if l := env.locate(p, "."); l.class == pathProtected || l.class == pathCredential {
				return Denied(fmt.Sprintf("writes %s: %s", p, l.why))
			}
		}
	}
	if why, ok := d.skillWriteAsk(ctx, a, args, env); ok {
		return Asked(why)
	}
	for _, g := range args {
		if g.role == RoleContent {
			if why, ok := env.editorCodeAsk(a, g); ok {
				return Asked(why)
			}
		}
	}
	return Passed("")
}

// limitsVector judges the tool: how many of its actions (and of all) ran
// in the last minute.
func (d *dispatcher) limitsVector(_ context.Context, a Action, _ []arg, env *Env) Result {
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
