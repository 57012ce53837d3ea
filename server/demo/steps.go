package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/memory/foveal"
	"pp-lsp/server/agent"
	"pp-lsp/server/journal"
)

// tourBudget is the context budget the tour shows: small, so that the
// view's priorities and folding are visible in a small memex.
const tourBudget = 700

// tour is one run of the tour: where it happens and what it has built.
type tour struct {
	out      io.Writer
	dir      string // the temporary directory
	root     string // the memex, a copy of examples/memex
	dataDir  string
	keep     bool
	recorded bool // the model is the recorded transcript
	agent    *agent.Agent
	memex    *memory.Memex
	renderer *foveal.Renderer
	step     int
	plan     string // the Flight Plan filed in the proposal step
	cursor   int    // the 1-based line of the tour's cursor
	// traceShown is set once the gate trace has been explained.
	traceShown bool
}

func (t *tour) printf(format string, a ...any) { fmt.Fprintf(t.out, format, a...) }

// heading starts a numbered step.
func (t *tour) heading(title string) {
	t.step++
	t.printf("\n%d. %s\n%s\n", t.step, title, strings.Repeat("─", len([]rune(title))+3))
}

// block prints text indented, as a quotation of a file or an answer.
func (t *tour) block(text string) {
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		t.printf("   │ %s\n", line)
	}
}

func (t *tour) intro(modelNote string) {
	t.printf("pp-lsp demo — a guided tour of Passepartout for editors\n\n")
	t.printf("Everything happens in a temporary copy of the example memex:\n   %s\n", t.root)
	if t.keep {
		t.printf("(kept afterwards, to explore).\n")
	} else {
		t.printf("(removed at the end; `pp-lsp demo --keep` keeps it).\n")
	}
	t.printf("%s\n", modelNote)
}

// outro closes the tour. With --keep it names what was kept and the
// commands that explore it, each of which works as printed; without, it
// says how to keep it, rather than pointing at files that are gone.
func (t *tour) outro() {
	t.printf("\nThat is the loop: the model proposes, deterministic gates decide, and what\n")
	t.printf("needs you waits in flightplans.org until you say so, in your own editor.\n")
	if !t.keep {
		t.printf("Next: set up your editor (README.md, \"Editors\"). `pp-lsp demo --keep` keeps the\n")
		t.printf("tour's memex and data, with the commands to explore them.\n")
		return
	}
	t.printf("\nThe tour's files are kept in %s:\n", t.dir)
	t.printf("   memex     %s\n", t.root)
	t.printf("   data dir  %s  (plan records, the journal's head, vectors)\n", t.dataDir)
	t.printf("Explore them from the memex, with the tour's data dir, so that the records read\n")
	t.printf("are the tour's:\n")
	t.printf("   cd %s\n", t.root)
	t.printf("   export %s=%s\n", memory.EnvDataDir, t.dataDir)
	t.printf("   pp-lsp outline --json %s\n", outlineFile)
	t.printf("   pp-lsp index\n")
	t.printf("   pp-lsp context %s:%d\n", cursorFile, t.cursor)
	t.printf("   pp-lsp plans\n")
	t.printf("   pp-lsp skills\n")
	t.printf("   pp-lsp doctor\n")
	t.printf("Next: set up your editor (README.md, \"Editors\") with that memex as its root.\n")
}

func (t *tour) rel(path string) string {
	if r, err := filepath.Rel(t.root, path); err == nil {
		return filepath.ToSlash(r)
	}
	return path
}

// outline shows one file as Emacs's parser reads it.
func (t *tour) outline(context.Context) error {
	t.heading("The outline, as Emacs sees it")
	file, ok := t.memex.Snapshot().File(filepath.Join(t.root, outlineFile))
	if !ok {
		return errStep("outline", "%s is not in the memex", outlineFile)
	}
	org := file.Org()
	t.printf("pp-lsp reads Org exactly as Emacs's own parser (org-element) does: the TODO\n")
	t.printf("keywords of the file's #+TODO: line (%s),\n", strings.Join(org.Todo.Keywords, " "))
	t.printf("priorities, tags, planning, property drawers, where each subtree ends.\n")
	t.printf("Here is %s:\n\n", outlineFile)
	for n := range file.Descendants() {
		kw, _ := n.Todo()
		var b strings.Builder
		b.WriteString(strings.Repeat("  ", n.Level()-1) + strings.Repeat("*", n.Level()) + " ")
		if kw != "" {
			b.WriteString(kw + " ")
		}
		if p := n.Priority(); p != 0 {
			fmt.Fprintf(&b, "[#%c] ", p)
		}
		b.WriteString(n.Title())
		if tags := n.Tags(); len(tags) > 0 {
			b.WriteString("  :" + strings.Join(tags, ":") + ":")
		}
		line := fmt.Sprintf("line %d", n.Line()+1)
		if id := n.ID(); id != "" {
			line += ", ID " + id[:min(8, len(id))] + "…"
		}
		t.printf("   %-58s %s\n", b.String(), line)
	}
	t.printf("\n`pp-lsp outline --json FILE` prints this as JSON, field for field what Emacs prints.\n")
	return nil
}

// figures shows what indexing the memex found.
func (t *tour) figures(context.Context) error {
	t.heading("The memex")
	snap := t.memex.Snapshot()
	f := snap.Figures()
	t.printf("Every Org file under the root is one memex: files and headlines are nodes, an\n")
	t.printf(":ID: property names a node, and links between nodes are indexed both ways.\n\n")
	t.printf("   %d files, %d headlines, %d IDs, %d links (%d of them id: links)\n", f.Files, f.Headlines, f.IDs, f.Links, f.IDLinks)
	t.printf("   %d private nodes (tagged @personal or private, or inheriting it)\n", f.PrivateNodes)
	t.printf("   %s, %s\n", plural(f.BrokenIDLinks, "broken id link"), plural(f.DuplicateIDs, "duplicate ID"))
	for _, fd := range snap.Findings() {
		if fd.Code == memory.CodeBrokenIDLink {
			t.printf("     %s:%d: %s\n", t.rel(fd.Path), fd.Line+1, fd.Message)
		}
	}
	t.printf("   root hash %x…\n\n", f.RootHash[:8])
	t.printf("The broken link is deliberate: inbox.org points at a note not written yet. Your\n")
	t.printf("editor shows it as a diagnostic. The root hash is a Merkle hash over every byte:\n")
	t.printf("it moves exactly when some Org text changes. `pp-lsp index --root DIR` prints these.\n")
	return nil
}

// cursorLine is the 0-based line of the tour's cursor.
func (t *tour) cursorLine() (string, int, error) {
	path := filepath.Join(t.root, cursorFile)
	file, ok := t.memex.Snapshot().File(path)
	if !ok {
		return "", 0, errStep("context", "%s is not in the memex", cursorFile)
	}
	for n := range file.Descendants() {
		if n.Title() == cursorTitle {
			t.cursor = n.Line() + 1
			return path, n.Line(), nil
		}
	}
	return "", 0, errStep("context", "no headline %q in %s", cursorTitle, cursorFile)
}

// foveal shows what the model would see from the cursor.
func (t *tour) foveal(ctx context.Context) error {
	t.heading("What the model sees from your cursor")
	path, line, err := t.cursorLine()
	if err != nil {
		return err
	}
	v, err := t.renderer.View(ctx, t.memex.Snapshot(), foveal.Cursor{Path: path, Line: line}, tourBudget)
	if err != nil {
		return errStep("context", "%v", err)
	}
	t.printf("Your cursor is on line %d of %s, in \"%s\".\n", line+1, cursorFile, cursorTitle)
	t.printf("The model is shown that node in full, its ancestors by title, related notes by\n")
	t.printf("score, the files and their top-level headlines, and the rest folded away —\n")
	t.printf("within a hard token budget (%d here, to keep the tour short; 4000 by default).\n", tourBudget)
	t.printf("Private nodes never appear, not even as a title:\n\n")
	t.block(v.Text)
	t.printf("\n   %d of %d tokens; the whole memex would be %d.\n", v.Tokens, v.Budget, v.FullTokens)
	t.printf("   nodes: %d in full, %d as outline, %d title only, %d folded, %d private (never shown)\n",
		v.Nodes.Full, v.Nodes.Outline, v.Nodes.TitleOnly, v.Nodes.Folded, v.Nodes.Private)
	for _, r := range v.Semantic {
		if n, ok := t.memex.Snapshot().NodeByKey(r.ID); ok {
			t.printf("   related: \"%s\" (%s), cosine %.2f — the embeddings found it, no model asked\n", n.Title(), n.RelPath(), r.Score)
		}
	}
	t.printf("\n`pp-lsp context --json --root DIR FILE:LINE` prints this with its figures.\n")
	return nil
}

// question asks about the node under the cursor. Whatever the model does
// — answer, propose an action, fail — is shown, and the tour goes on.
func (t *tour) question(ctx context.Context) error {
	t.heading("A question")
	path, line, err := t.cursorLine()
	if err != nil {
		return err
	}
	t.printf("You ask, from the cursor: %q\nThe answer streams as the model writes it:\n\n", question)
	out, err := t.ask(ctx, path, line, question)
	if err != nil {
		return err
	}
	switch out.Status {
	case agent.StatusAnswered:
		t.printf("\nWords are only shown (in your editor, offered into the node for you to accept).\n")
	default:
		t.printf("\nThe model did not answer in words:\n")
		t.describe(out.Passes)
		t.printf("Words would only be shown (in your editor, offered into the node for you to\naccept); anything else passes the gates first.\n")
	}
	return nil
}

// proposal asks for something that needs an action.
func (t *tour) proposal(ctx context.Context) error {
	t.heading("A proposal, gated")
	inbox := filepath.Join(t.root, "inbox.org")
	t.printf("You ask, from inbox.org: %q\n\n", request)
	out, err := t.ask(ctx, inbox, 0, request)
	if err != nil {
		return err
	}
	t.describe(out.Passes)
	if out.Status != agent.StatusFiled {
		t.printf("\nNo Flight Plan this time: %s.\n", noPlanBecause[out.Status])
		return nil
	}
	t.plan = out.PlanID
	t.printf("\nEvery gate ran without a single model token. The %s gate asked for\n", out.Verdict.Gate)
	t.printf("you: the action is not the model's to decide. It became a Flight Plan, an Org\n")
	t.printf("TODO in flightplans.org:\n\n")
	t.showPlan()
	return nil
}

// noPlanBecause says why a pass that ended so filed no plan.
var noPlanBecause = map[agent.Status]string{
	agent.StatusAnswered:  "the model answered in words, and words need no approval",
	agent.StatusRan:       "the gates allowed what the model proposed, so it ran",
	agent.StatusDenied:    "the gates denied every proposal, so nothing waits for you",
	agent.StatusFailed:    "the model gave no proposal",
	agent.StatusDropped:   "the passes went deeper than the limit and were dropped",
	agent.StatusCancelled: "the question was cancelled",
	"":                    "the model gave no proposal",
}

// describe shows what each pass did: each try with its verdict and gate
// trace, then how the pass ended.
func (t *tour) describe(passes []agent.Pass) {
	for _, p := range passes {
		for _, try := range p.Tries {
			t.describeTry(try)
		}
		switch p.Status {
		case agent.StatusAnswered:
			// the words were shown as they came
		case agent.StatusRan:
			summary := ""
			if p.Result != nil {
				summary = p.Result.Summary
			}
			t.printf("   → the gates allowed it, so it ran: %s\n", oneLine(summary))
		case agent.StatusFiled:
			t.printf("   → filed as Flight Plan %s, waiting for you\n", p.PlanID)
		case agent.StatusDenied:
			t.printf("   → denied after %d tries: nothing ran\n", len(p.Tries))
		case agent.StatusFailed:
			t.printf("   → no proposal: %s\n", oneLine(errText(p.Err)))
		case agent.StatusDropped:
			t.printf("   → dropped: it went deeper than %d passes\n", agent.MaxDepth)
		case agent.StatusCancelled:
			t.printf("   → cancelled\n")
		}
	}
}

func errText(err error) string {
	if err == nil {
		return "the model gave nothing the pipeline could use"
	}
	return err.Error()
}

func (t *tour) describeTry(try agent.Try) {
	what := oneLine(try.Proposal)
	if try.Action != nil {
		what = describeAction(*try.Action)
	}
	t.printf("   try %d: %s\n", try.N, clip(what, 160))
	t.printf("          → %s by %s: %s\n", strings.ToUpper(string(try.Verdict.Verdict)), try.Verdict.Gate, oneLine(try.Verdict.Reason))
	var trace []string
	for _, e := range try.Verdict.Trace {
		trace = append(trace, fmt.Sprintf("%s(%d) %s", e.Gate, e.Priority, e.Result))
	}
	t.printf("          trace: %s\n", strings.Join(trace, ", "))
	if !t.traceShown && len(try.Verdict.Trace) > 0 {
		t.traceShown = true
		t.printf("          (The trace lists every gate in the order it ran, highest priority\n")
		t.printf("          first: the number is the priority. Each gate says \"passed\", \"approval\"\n")
		t.printf("          — a human must approve — or \"blocked\". One block denies, whatever the\n")
		t.printf("          others said, so \"approval\" can stand in a DENY's trace: that gate would\n")
		t.printf("          have asked you, another refused outright.)\n")
	}
	if try.Verdict.Verdict == gates.VerdictDeny {
		t.printf("          (nothing ran; the model is shown this verdict and may try again)\n")
	}
}

func describeAction(a gates.Action) string {
	if a.Tool == gates.ToolShell {
		cmd, cwd := a.Shell()
		return fmt.Sprintf("shell `%s` in %s", cmd, cwd)
	}
	return string(a.CanonicalJSON())
}

// showPlan quotes the tour's plan from flightplans.org.
func (t *tour) showPlan() {
	text, err := os.ReadFile(t.agent.PlansPath())
	if err != nil {
		t.printf("   (flightplans.org cannot be read: %v)\n", err)
		return
	}
	t.block(planText(string(text), t.plan))
}

// planText cuts the headline holding :ID: id, and its body, out of the
// Flight Plans file.
func planText(text, id string) string {
	var out []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "* ") {
			if in {
				break
			}
			out = out[:0]
		}
		out = append(out, line)
		if strings.Contains(line, ":ID:") && strings.Contains(line, id) {
			in = true
		}
	}
	if !in {
		return "(plan " + id + " not found)"
	}
	return strings.Join(out, "\n")
}

// approval approves the plan the way a person does in an editor: by
// changing its keyword in the file.
func (t *tour) approval(ctx context.Context) error {
	t.heading("Approval")
	if t.plan == "" {
		t.printf("There is no plan to approve: the model's proposal above was not filed.\n")
		if !t.recorded {
			t.printf("(The recorded tour files one here; run `pp-lsp demo` without PASSEPARTOUT_PROVIDERS\nto see it.)\n")
		}
		return nil
	}
	t.printf("In your editor you switch PLAN to APPROVED and save the file, or approve it\n")
	t.printf("by command — M-x pp-lsp-approve in Emacs, :PassepartoutApprove in Neovim. The\n")
	t.printf("tour saves the file the same way, then lets the heartbeat pick it up:\n\n")
	path := t.agent.PlansPath()
	text, err := os.ReadFile(path)
	if err != nil {
		t.printf("   (flightplans.org cannot be read: %v)\n", err)
		return nil
	}
	plan := planText(string(text), t.plan)
	approved := strings.Replace(plan, "* PLAN ", "* APPROVED ", 1)
	if err := os.WriteFile(path, []byte(strings.Replace(string(text), plan, approved, 1)), 0o644); err != nil {
		return fmt.Errorf("cannot approve the demo's plan: %w", err)
	}
	runs, err := t.agent.Pickup(ctx)
	if err != nil {
		t.printf("   (the approved plan could not be run: %v)\n", err)
		return nil
	}
	for _, r := range runs {
		agent.DescribeRun(t.out, r)
	}
	t.printf("\nBefore running, pp-lsp checked its sealed filing record: the plan is one it\n")
	t.printf("filed, and the action is byte for byte the one filed (its sha256). It ran the\n")
	t.printf("gates again: an \"ask\" is fine now, a \"deny\" would still deny. The plan now\n")
	t.printf("reads:\n\n")
	t.showPlan()
	return nil
}

// journal shows the audit journal and verifies its chain.
func (t *tour) journal(ctx context.Context) error {
	t.heading("The audit journal")
	path := t.agent.JournalPath()
	text, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.printf("journal.org was not started: no proposal reached the gates this time. Every\n")
		t.printf("proposal, verdict, approval and result is appended to it, each entry carrying\n")
		t.printf("the hash of the one before.\n")
		return nil
	case err != nil:
		t.printf("journal.org cannot be read: %v\n", err)
		return nil
	}
	t.printf("Every proposal, verdict, approval and result was appended to journal.org, each\n")
	t.printf("entry carrying the hash of the one before:\n\n")
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "* ") {
			t.printf("   %s\n", line)
		}
	}
	rep, err := journal.Verify(ctx, path, t.dataDir)
	switch {
	case err != nil:
		t.printf("\nThe journal cannot be verified: %v\n", err)
	case rep.OK():
		t.printf("\nChain verified: %d entries. `pp-lsp doctor` re-computes it and names the first\n", rep.Entries)
		t.printf("entry that does not match, should anyone edit the past.\n")
	default:
		t.printf("\nThe chain does not verify: %+v\n", rep.Broken)
	}
	return nil
}

// ask runs one question through the pipeline, streaming the answer. Only
// an interruption is an error: a question that could not be handled at
// all is shown as a failed pass, and the tour goes on.
func (t *tour) ask(ctx context.Context, path string, line int, text string) (agent.AskResult, error) {
	col := 0 // 0: nothing written yet
	out, err := t.agent.Ask(ctx, agent.AskRequest{Source: agent.SourceCLI, File: path, Line: line, Text: text}, func(s string) error {
		for _, r := range s {
			if col == 0 {
				t.printf("   ")
				col = 3
			}
			if r == '\n' || col > 78 && r == ' ' {
				t.printf("\n   ")
				col = 3
				continue
			}
			t.printf("%c", r)
			col++
		}
		return nil
	})
	if col > 0 {
		t.printf("\n")
	}
	if ctx.Err() != nil {
		return out, fmt.Errorf("the tour was interrupted: %w", ctx.Err())
	}
	if err != nil {
		out.Passes = append(out.Passes, agent.Pass{Status: agent.StatusFailed, Err: err})
		out.Status = agent.StatusFailed
	}
	return out, nil
}

// errStep marks a step whose premise did not hold (the example memex
// changed, say); it names the step.
func errStep(step, format string, a ...any) error {
	return fmt.Errorf("demo step %q: %s", step, fmt.Sprintf(format, a...))
}

// plural writes n thing, or n things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip bounds what a model wrote to n characters for a line of the tour.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
