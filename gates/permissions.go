package gates

import (
	"context"
	"fmt"
	"strings"
)

// builtinAllow are the day-one rules: reading anything inside the roots,
// writing notes and documents (Org, Markdown, plain text, office files)
// inside the roots — not programs or configuration, which ask —, editing
// memex nodes, messages to the user, and read-only commands. Everything
// else — shell beyond these, http, send, eval, anything outside the roots
// — matches no rule and gets the configured default (ask).
var builtinAllow = []string{
	"file_read(**)",
	"file_write(**/*.org)", "file_write(**/*.md)", "file_write(**/*.markdown)", "file_write(**/*.txt)",
	"file_write(**/*.rst)", "file_write(**/*.tex)", "file_write(**/*.bib)", "file_write(**/*.csv)",
	"file_write(**/*.tsv)", "file_write(**/*.docx)", "file_write(**/*.xlsx)", "file_write(**/*.pptx)",
	"file_write(**/*.odt)", "file_write(**/*.ods)", "file_write(**/*.odp)", "file_write(**/*.rtf)",
	"memory_edit", "message",
	"shell(ls:*)", "shell(cat:*)", "shell(grep:*)", "shell(egrep:*)", "shell(fgrep:*)", "shell(rg:*)",
	"shell(find:*)", "shell(head:*)", "shell(tail:*)", "shell(wc:*)", "shell(du:*)", "shell(df:*)",
	"shell(stat:*)", "shell(file:*)", "shell(sort:*)", "shell(uniq:*)", "shell(tree:*)", "shell(echo:*)",
	"shell(pwd:*)", "shell(printf:*)", "shell(true:*)", "shell(false:*)", "shell(basename:*)", "shell(dirname:*)",
	"shell(realpath:*)", "shell(readlink:*)", "shell(cut:*)", "shell(nl:*)", "shell(tac:*)", "shell(column:*)",
	"shell(comm:*)", "shell(cmp:*)", "shell(diff:*)", "shell(date:*)", "shell(wc:*)", "shell(md5sum:*)",
	"shell(sha256sum:*)", "shell(sha1sum:*)", "shell(whoami:*)", "shell(id:*)", "shell(uname:*)", "shell(which:*)",
	"shell(tr:*)", "shell(jq:*)", "shell(cd:*)", "shell(test:*)", "shell([:*)", "shell(sleep:*)", "shell(seq:*)",
	"shell(git status:*)", "shell(git log:*)", "shell(git diff:*)", "shell(git show:*)", "shell(git blame:*)",
	"shell(git shortlog:*)", "shell(git ls-files:*)", "shell(git grep:*)", "shell(git rev-parse:*)", "shell(git describe:*)",
}

// permissionsGate applies the rule table, deny → ask → allow; an action no
// rule matches gets the configured default.
type permissionsGate struct {
	deny, ask, allow []rule
	dflt             Decision
	// The shell rules of allow by the first word they name (the index in
	// allow), and those that name none: a command is matched against the
	// few rules that can match it, in their order.
	shellAllowByWord map[string][]int
	shellAllowAny    []int
}

func newPermissionsGate(cfg Config, tools *Tools) (*permissionsGate, error) {
	g := &permissionsGate{dflt: Ask}
	if cfg.Default == "deny" {
		g.dflt = Deny
	}
	parse := func(list []string) ([]rule, error) {
		out := make([]rule, 0, len(list))
		for _, t := range list {
			r, err := parseRule(t, tools)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, nil
	}
	var err error
	if g.deny, err = parse(cfg.Permissions.Deny); err != nil {
		return nil, err
	}
	if g.ask, err = parse(cfg.Permissions.Ask); err != nil {
		return nil, err
	}
	if g.allow, err = parse(append(append([]string(nil), builtinAllow...), cfg.Permissions.Allow...)); err != nil {
		return nil, err
	}
	g.shellAllowByWord = map[string][]int{}
	for i, r := range g.allow {
		switch {
		case r.tool != ToolShell:
		case len(r.shellWords) == 0:
			g.shellAllowAny = append(g.shellAllowAny, i)
		default:
			g.shellAllowByWord[r.shellWords[0]] = append(g.shellAllowByWord[r.shellWords[0]], i)
		}
	}
	return g, nil
}

// firstShellAllow returns the first allow rule (in the table's order)
// matching one simple command. A rule naming words matches only a
// command whose program is its first word, so only those and the rules
// naming none are tried.
func (g *permissionsGate) firstShellAllow(argv []string) (rule, bool) {
	var byWord []int
	if len(argv) > 0 {
		byWord = g.shellAllowByWord[verbNameKeepRelative(argv[0])]
	}
	wild := g.shellAllowAny
	for len(byWord) > 0 || len(wild) > 0 {
		var i int
		if len(wild) == 0 || len(byWord) > 0 && byWord[0] < wild[0] {
			i, byWord = byWord[0], byWord[1:]
		} else {
			i, wild = wild[0], wild[1:]
		}
		if r := g.allow[i]; r.matchShellCmd(argv) {
			return r, true
		}
	}
	return rule{}, false
}

func (*permissionsGate) Name() string  { return gatePermissions }
func (*permissionsGate) Priority() int { return prioPermissions }

func (g *permissionsGate) Check(ctx context.Context, a Action, env *Env) Result {
	if r, ok := g.first(ctx, g.deny, a, env, true); ok {
		return Denied(fmt.Sprintf("the permission rule %s denies it", r.text))
	}
	if r, ok := g.firstNarrow(ctx, env.narrowDeny, a, env); ok {
		return Denied(fmt.Sprintf("the permission rule %s of %s denies it", r.text, r.source))
	}
	if r, ok := g.first(ctx, g.ask, a, env, true); ok {
		return Asked(fmt.Sprintf("the permission rule %s asks for approval", r.text))
	}
	if r, ok := g.firstNarrow(ctx, env.narrowAsk, a, env); ok {
		return Asked(fmt.Sprintf("the permission rule %s of %s asks for approval", r.text, r.source))
	}
	if a.Tool == ToolShell {
		if rules, ok := g.allShellAllowed(ctx, a, env); ok {
			return Passed("allowed by " + strings.Join(rules, ", "))
		}
	} else if r, ok := g.first(ctx, g.allow, a, env, false); ok {
		return Passed("allowed by the permission rule " + r.text)
	}
	why := fmt.Sprintf("no permission rule allows this %s action", a.Tool)
	if g.dflt == Deny {
		return Denied(why + " (default: deny)")
	}
	return Asked(why)
}

// first returns the first rule of list matching a. For shell, any matching
// simple command is enough (a deny or ask rule catches a command anywhere
// in a chain).
func (g *permissionsGate) first(ctx context.Context, list []rule, a Action, env *Env, anyCmd bool) (rule, bool) {
	for _, r := range list {
		if r.tool != a.Tool {
			continue
		}
		if g.match(ctx, r, a, env) {
			return r, true
		}
	}
	return rule{}, false
}

func (g *permissionsGate) match(ctx context.Context, r rule, a Action, env *Env) bool {
	switch a.Tool {
	case ToolShell:
		if !r.hasPattern {
			return true
		}
		rep := shellFor(ctx, env, a)
		for _, c := range rep.cmds {
			if r.matchShellCmd(c.argv) {
				return true
			}
		}
		return false
	case ToolFileRead, ToolFileWrite:
		return r.matchPath(env.locate(a.Arg("path"), "."), env.home)
	default:
		return r.matchOther(a)
	}
}

// allShellAllowed reports whether every simple command of a shell action
// matches an allow rule, and which rules did.
func (g *permissionsGate) allShellAllowed(ctx context.Context, a Action, env *Env) ([]string, bool) {
	rep := shellFor(ctx, env, a)
	if len(rep.cmds) == 0 || len(rep.denies) > 0 {
		return nil, false
	}
	var used []string
	for _, c := range rep.cmds {
		r, ok := g.firstShellAllow(c.argv)
		if !ok {
			return nil, false
		}
		used = appendUnique(used, r.text)
	}
	return used, true
}

// checkMemo holds one check's shell analysis: the command is parsed once
// per check, not once per gate.
type checkMemo struct {
	cmd, cwd string
	rep      *shellReport
}

func shellFor(ctx context.Context, env *Env, a Action) *shellReport {
	cmd, cwd := a.Shell()
	return shellOf(ctx, env, cmd, cwd)
}

// shellOf is the analysis of command line cmd run in cwd, made once per
// check whichever gates and vectors ask for it.
func shellOf(ctx context.Context, env *Env, cmd, cwd string) *shellReport {
	if env.check != nil {
		m := &env.check.shell
		if m.rep == nil || m.cmd != cmd || m.cwd != cwd {
			// The report is written into the check's own, so that the
			// next check reuses its list of commands.
			m.cmd, m.cwd, m.rep = cmd, cwd, analyzeShellInto(ctx, env, cmd, cwd, 0, &env.check.shellRep)
		}
		return m.rep
	}
	return analyzeShell(ctx, env, cmd, cwd)
}
