package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"pp-lsp/internal/testenv"
	"pp-lsp/server/agent"
	"pp-lsp/server/flightplan"
	"pp-lsp/server/journal"
)

// Scenario tests: each testdata/*.txtar file is a session with the agent
// through its API alone, opened as the commands open it (agent.Open), over a
// memex in a temporary folder, with a replay transcript as the model. What
// each step printed and the audit journal's text are the expected output,
// so that the agent's insides may be reshaped freely.
//
// The archive's comment is description. Files named memex/… are the memex;
// replay.jsonl is the model's transcript (PASSEPARTOUT_PROVIDERS=replay:it),
// where $PLAN stands for the ID of the last plan filed when the agent is
// opened (see reopen); config.json is the configuration file. Paths in
// commands are relative to the scenario's folder ($TMP in outputs). The
// file "script" is run by testenv.Script:
//
//	ask FILE:LINE|- "TEXT" [depth=N]   Ask (LINE 1-based): each pass as agent.Describe reports it, then
//	                                   what was said and the summary, or the error
//	approve|reject|always last|N|ID    Approve, Reject or ApproveAlways the last plan filed, the Nth (from
//	                                   1), or one by its ID: STATE ran=BOOL: SUMMARY (and the rule added),
//	                                   or the error
//	pickup                             Pickup: each plan handled as agent.DescribeRun reports it
//	plans                              Plans: STATE TOOL GATE TITLE [edited] [problem]
//	hover last                         PlanHover over the last plan's headline in flightplans.org
//	changes                            Changes: N. TITLE: FILES [plan], newest first
//	undo [N|ID|plan-of N]              Undo the latest change, the Nth of "changes", one by its ID, or
//	                                   the latest of the plan that made the Nth: its summary or the error
//	replace FILE "OLD" "NEW"           on disk, the first OLD in FILE becomes NEW
//	disk FILE                          FILE's text, or (absent)
//	journal [titles]                   the journal's entries since the last "journal" (but the starts,
//	                                   which say how this machine confines commands), its chain verified;
//	                                   :TIME:, :SESSION: and :PREV_HASH: are written <time>, <session>, <hash>;
//	                                   with titles, only each entry's headline
//	reopen                             the agent closed and opened again, as at a restart
func TestScenarios(t *testing.T) { testenv.Scenarios(t, "testdata/*.txtar", runScenario) }

type scenario struct {
	t      *testing.T
	dir    string
	root   string
	env    map[string]string
	replay string // the transcript, $PLAN unreplaced
	agent  *agent.Agent
	// plans are the IDs of the plans filed, in order; journalled counts
	// the journal entries a "journal" command showed.
	plans      []string
	journalled int
}

func runScenario(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	require.NoError(t, err)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	sc := &scenario{t: t, dir: dir, root: filepath.Join(dir, "memex")}
	sc.env = map[string]string{
		"HOME": filepath.Join(dir, "home"), "XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"XDG_RUNTIME_DIR": filepath.Join(dir, "run"), "PASSEPARTOUT_DATA_DIR": filepath.Join(dir, "data"),
		"PATH": os.Getenv("PATH"), "LANG": "C.UTF-8",
	}
	files := map[string]string{"memex/.keep": "", "home/.keep": ""}
	for _, f := range ar.Files {
		switch f.Name {
		case "script":
		case "replay.jsonl":
			sc.replay = string(f.Data)
			sc.env["PASSEPARTOUT_PROVIDERS"] = "replay:" + filepath.Join(dir, f.Name)
		case "config.json":
			files["config/passepartout/config.json"] = string(f.Data)
		default:
			files[f.Name] = string(f.Data)
		}
	}
	testenv.WriteTree(t, dir, files)
	sc.open()
	t.Cleanup(func() { sc.agent.Close(context.Background()) })
	testenv.Script{Do: sc.do, Normalize: testenv.NormalizeIn(dir)}.Run(t, file, ar)
}

// open opens the agent as `pp-lsp ask` does, the transcript written with
// the last plan's ID for $PLAN.
func (sc *scenario) open() {
	if sc.replay != "" {
		require.NoError(sc.t, os.WriteFile(filepath.Join(sc.dir, "replay.jsonl"), []byte(strings.ReplaceAll(sc.replay, "$PLAN", sc.plan("last"))), 0o644))
	}
	a, err := agent.Open(context.Background(), agent.Setup{Roots: []string{sc.root}, Getenv: func(k string) string { return sc.env[k] }})
	require.NoError(sc.t, err)
	sc.agent = a
}

// plan names a plan: "last" filed, the Nth filed (from 1), or its ID.
func (sc *scenario) plan(name string) string {
	if n, err := strconv.Atoi(name); err == nil && n >= 1 && n <= len(sc.plans) {
		return sc.plans[n-1]
	}
	if name == "last" {
		if len(sc.plans) == 0 {
			return ""
		}
		return sc.plans[len(sc.plans)-1]
	}
	return name
}

func (sc *scenario) path(rel string) string { return filepath.Join(sc.dir, filepath.FromSlash(rel)) }

func (sc *scenario) do(args []string) []string {
	t := sc.t
	ctx := context.Background()
	switch args[0] {
	case "ask":
		return sc.ask(args[1:])
	case "approve", "reject", "always":
		require.Len(t, args, 2, "%s last|N|ID", args[0])
		id := sc.plan(args[1])
		decide := map[string]func(context.Context, string) (agent.PlanRun, error){
			"approve": sc.agent.Approve, "reject": sc.agent.Reject, "always": sc.agent.ApproveAlways,
		}[args[0]]
		run, err := decide(ctx, id)
		if err != nil {
			return []string{"error: " + err.Error()}
		}
		out := []string{fmt.Sprintf("%s ran=%v: %s", run.State, run.Ran, run.Summary)}
		if run.Rule != "" {
			out = append(out, "rule added: "+run.Rule)
		}
		return out
	case "pickup":
		runs, err := sc.agent.Pickup(ctx)
		if err != nil {
			return []string{"error: " + err.Error()}
		}
		var b strings.Builder
		for _, r := range runs {
			agent.DescribeRun(&b, r)
		}
		return lines(b.String(), "(none)")
	case "plans":
		plans, err := sc.agent.Plans(ctx)
		if err != nil {
			return []string{"error: " + err.Error()}
		}
		var out []string
		for _, p := range plans {
			l := fmt.Sprintf("%s %s %s %s", p.State, p.Tool, p.Gate, p.Title)
			if p.Edited {
				l += " [edited]"
			}
			if p.Problem != "" {
				l += " [" + p.Problem + "]"
			}
			out = append(out, l)
		}
		return out
	case "changes":
		list, err := sc.agent.Changes(ctx)
		if err != nil {
			return []string{"error: " + err.Error()}
		}
		var out []string
		for i, c := range list {
			l := fmt.Sprintf("%d. %s: %s", i+1, c.Title, strings.Join(c.Files, ", "))
			if c.PlanID != "" {
				l += " [plan]"
			}
			out = append(out, l)
		}
		return lines(strings.Join(out, "\n"), "(none)")
	case "undo":
		id := ""
		if len(args) > 2 && args[1] == "plan-of" {
			// undo plan-of N: the plan whose run made the Nth change.
			n, err := strconv.Atoi(args[2])
			require.NoError(t, err)
			list, err := sc.agent.Changes(ctx)
			require.NoError(t, err)
			require.LessOrEqual(t, n, len(list))
			require.NotEmpty(t, list[n-1].PlanID, "change %d was no plan's", n)
			id = list[n-1].PlanID
		} else if len(args) > 1 {
			id = args[1]
			if n, err := strconv.Atoi(args[1]); err == nil {
				list, err := sc.agent.Changes(ctx)
				require.NoError(t, err)
				require.LessOrEqual(t, n, len(list))
				id = list[n-1].ID
			}
		}
		res, err := sc.agent.Undo(ctx, id)
		if err != nil {
			return []string{"error: " + err.Error()}
		}
		return []string{res.Summary}
	case "hover":
		text, err := os.ReadFile(sc.agent.PlansPath())
		require.NoError(t, err)
		p, err := flightplan.Find(flightplan.Parse(text), sc.plan("last"))
		require.NoError(t, err)
		h, ok := sc.agent.PlanHover(text, p.Line)
		if !ok {
			return []string{"(none)"}
		}
		return lines(h, "")
	case "replace":
		require.Len(t, args, 4, "replace FILE OLD NEW")
		b, err := os.ReadFile(sc.path(args[1]))
		require.NoError(t, err)
		require.Contains(t, string(b), args[2])
		require.NoError(t, os.WriteFile(sc.path(args[1]), []byte(strings.Replace(string(b), args[2], args[3], 1)), 0o644))
		return nil
	case "disk":
		b, err := os.ReadFile(sc.path(args[1]))
		if os.IsNotExist(err) {
			return []string{"(absent)"}
		}
		require.NoError(t, err)
		return lines(string(b), "")
	case "journal":
		return sc.journal(len(args) > 1 && args[1] == "titles")
	case "reopen":
		require.NoError(t, sc.agent.Close(ctx))
		sc.open()
		return nil
	}
	t.Fatalf("unknown command %q", args[0])
	return nil
}

// ask is the ask command.
func (sc *scenario) ask(args []string) []string {
	t := sc.t
	require.GreaterOrEqual(t, len(args), 2, "ask FILE:LINE|- TEXT [depth=N]")
	req := agent.AskRequest{Source: agent.SourceCLI, Text: args[1]}
	if args[0] != "-" {
		file, line, ok := strings.Cut(args[0], ":")
		require.True(t, ok, "FILE:LINE")
		n, err := strconv.Atoi(line)
		require.NoError(t, err)
		req.File, req.Line = sc.path(file), n-1
	}
	for _, a := range args[2:] {
		d, ok := strings.CutPrefix(a, "depth=")
		require.True(t, ok, "unknown option %q", a)
		n, err := strconv.Atoi(d)
		require.NoError(t, err)
		req.Depth = n
	}
	var streamed strings.Builder
	res, err := sc.agent.Ask(context.Background(), req, func(s string) error {
		streamed.WriteString(s)
		return nil
	})
	var b strings.Builder
	for _, p := range res.Passes {
		agent.Describe(&b, p)
	}
	if res.Text != "" {
		fmt.Fprintf(&b, "said %q\n", res.Text)
	}
	require.Equal(t, streamed.String(), res.Text, "what was said is what streamed")
	if res.Status != "" {
		fmt.Fprintf(&b, "%s: %s\n", res.Status, res.Summary)
	}
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	if res.PlanID != "" {
		sc.plans = append(sc.plans, res.PlanID)
	}
	return lines(b.String(), "")
}

// journal is the journal command: the entries since the last one, but the
// starts.
func (sc *scenario) journal(titles bool) []string {
	t := sc.t
	p := sc.agent.JournalPath()
	rep, err := journal.Verify(context.Background(), p, sc.env["PASSEPARTOUT_DATA_DIR"])
	require.NoError(t, err)
	require.True(t, rep.OK(), "the journal's chain is broken: %+v", rep.Broken)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	var entries [][]string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "* ") {
			entries = append(entries, nil)
		}
		if len(entries) == 0 {
			continue // the header
		}
		for prop, mask := range journalMasks {
			if v, ok := strings.CutPrefix(l, prop); ok {
				l = l[:len(l)-len(strings.TrimSpace(v))] + mask
			}
		}
		entries[len(entries)-1] = append(entries[len(entries)-1], l)
	}
	var out []string
	for _, e := range entries[sc.journalled:] {
		switch {
		case slices.ContainsFunc(e, func(l string) bool {
			k, ok := strings.CutPrefix(l, ":KIND:")
			return ok && strings.TrimSpace(k) == string(journal.KindStart)
		}):
		case titles:
			out = append(out, e[0])
		default:
			out = append(out, e...)
		}
	}
	sc.journalled = len(entries)
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	if len(out) == 0 {
		return []string{"(none)"}
	}
	return out
}

// journalMasks are the journal's properties that differ from run to run,
// and how the journal command writes them.
var journalMasks = map[string]string{":TIME:": "<time>", ":SESSION:": "<session>", ":PREV_HASH:": "<hash>"}

// lines splits a text into its lines; an empty text is empty, or the line
// given.
func lines(s, empty string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		if empty == "" {
			return nil
		}
		return []string{empty}
	}
	return strings.Split(s, "\n")
}
