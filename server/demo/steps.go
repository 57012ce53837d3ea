package demo

import (
	"context"
	"fmt"
	"io"
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
	agent    *agent.Agent
	memex    *memory.Memex
	renderer *foveal.Renderer
	dataDir  string
	step     int
	plan     string // the Flight Plan filed in the proposal step
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

func (t *tour) intro(modelNote string, keep bool) {
	t.printf("pp-lsp demo — a guided tour of Passepartout for editors\n\n")
	t.printf("Everything happens in a temporary copy of the example memex:\n   %s\n", t.root)
	if keep {
		t.printf("(kept afterwards, to explore).\n")
	} else {
		t.printf("(removed at the end; `pp-lsp demo --keep` keeps it).\n")
	}
	t.printf("%s\n", modelNote)
}

func (t *tour) outro(keep bool) {
	t.printf("\nThat is the loop: the model proposes, deterministic gates decide, and what\n")
	t.printf("needs you waits in flightplans.org until you say so, in your own editor.\n")
	t.printf("Next: set up your editor (README.md, \"Editors\"), and `make test`.\n")
	if keep {
		t.printf("The tour's files are in %s.\n", t.dir)
	}
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
			line += ", ID " + id[:8] + "…"
		}
		t.printf("   %-58s %s\n", b.String(), line)
	}
	t.printf("\n`pp-lsp outline --json %s` prints this as JSON, field for field what Emacs prints.\n", outlineFile)
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
	t.printf("it moves exactly when some Org text changes. `pp-lsp index --json` prints these.\n")
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
			return path, n.Line(), nil
		}
	}
	return "", 0, errStep("context", "no headline %q in %s", cursorTitle, cursorFile)
}

// context shows what the model would see from the cursor.
func (t *tour) foveal(ctx context.Context) error {
	t.heading("What the model sees from your cursor")
	path, line, err := t.cursorLine()
	if err != nil {
		return err
	}
	v, err := t.renderer.View(ctx, t.memex.Snapshot(), foveal.Cursor{Path: path, Line: line}, tourBudget)
	if err != nil {
		return fmt.Errorf("demo step %q: %w", "context", err)
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
	t.printf("\n`pp-lsp context --json %s:%d` prints this with its figures.\n", cursorFile, line+1)
	return nil
}

// question asks about the node under the cursor.
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
	if last := out.Last(); last.Status != agent.StatusAnswered {
		t.printf("\n(The model proposed an action instead of answering: %s.)\n", last.Status)
	}
	t.printf("\nWords are only shown (in your editor, offered into the node for you to accept).\n")
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
	for _, p := range out.Passes {
		for _, try := range p.Tries {
			t.describeTry(try)
		}
	}
	last := out.Last()
	if last.Status != agent.StatusFiled {
		t.printf("\nNo Flight Plan this time (%s)", last.Status)
		if last.Err != nil {
			t.printf(": %v", last.Err)
		}
		t.printf(".\n")
		return nil
	}
	t.plan = last.PlanID
	t.printf("\nEvery gate ran without a single model token. A write inside your notes is not\n")
	t.printf("denied, but it is not the model's to decide: it became a Flight Plan, an Org TODO\n")
	t.printf("in flightplans.org:\n\n")
	return t.showPlan()
}

func (t *tour) describeTry(try agent.Try) {
	what := try.Proposal
	if try.Action != nil {
		what = describeAction(*try.Action)
	}
	t.printf("   try %d: %s\n", try.N, what)
	t.printf("          → %s by %s: %s\n", strings.ToUpper(try.Verdict.Verdict), try.Verdict.Gate, try.Verdict.Reason)
	var trace []string
	for _, e := range try.Verdict.Trace {
		trace = append(trace, fmt.Sprintf("%s(%d) %s", e.Gate, e.Priority, e.Result))
	}
	t.printf("          trace: %s\n", strings.Join(trace, ", "))
	if try.Verdict.Verdict == gates.VerdictDeny {
		t.printf("          (nothing ran; the model is shown this verdict and tries again)\n")
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
func (t *tour) showPlan() error {
	text, err := os.ReadFile(t.agent.PlansPath())
	if err != nil {
		return fmt.Errorf("demo: reading flightplans.org: %w", err)
	}
	t.block(planText(string(text), t.plan))
	return nil
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
		t.printf("There is no plan to approve.\n")
		return nil
	}
	t.printf("In your editor you switch PLAN to APPROVED and save the file (or run\n")
	t.printf("passepartout.approve). The tour saves the file the same way, then lets the\n")
	t.printf("heartbeat pick it up:\n\n")
	path := t.agent.PlansPath()
	text, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("demo: reading flightplans.org: %w", err)
	}
	plan := planText(string(text), t.plan)
	approved := strings.Replace(plan, "* PLAN ", "* APPROVED ", 1)
	if err := os.WriteFile(path, []byte(strings.Replace(string(text), plan, approved, 1)), 0o644); err != nil {
		return fmt.Errorf("demo: approving: %w", err)
	}
	runs, err := t.agent.Pickup(ctx)
	if err != nil {
		return fmt.Errorf("demo: running the approved plan: %w", err)
	}
	for _, r := range runs {
		agent.DescribeRun(t.out, r)
	}
	t.printf("\nBefore running, pp-lsp checked its sealed filing record: the plan is one it\n")
	t.printf("filed, and the action is byte for byte the one filed (its sha256). It ran the\n")
	t.printf("gates again: an \"ask\" is fine now, a \"deny\" would still deny. The plan now\n")
	t.printf("reads:\n\n")
	return t.showPlan()
}

// journal shows the audit journal and verifies its chain.
func (t *tour) journal(ctx context.Context) error {
	t.heading("The audit journal")
	path := t.agent.JournalPath()
	text, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("demo: reading journal.org: %w", err)
	}
	t.printf("Every proposal, verdict, approval and result was appended to journal.org, each\n")
	t.printf("entry carrying the hash of the one before:\n\n")
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "* ") {
			t.printf("   %s\n", line)
		}
	}
	rep, err := journal.Verify(ctx, path, t.dataDir)
	if err != nil {
		return fmt.Errorf("demo: verifying the journal: %w", err)
	}
	if rep.OK() {
		t.printf("\nChain verified: %d entries. `pp-lsp doctor` re-computes it and names the first\n", rep.Entries)
		t.printf("entry that does not match, should anyone edit the past.\n")
	} else {
		t.printf("\nThe chain does not verify: %+v\n", rep.Broken)
	}
	return nil
}

// ask runs one question through the pipeline, streaming the answer.
func (t *tour) ask(ctx context.Context, path string, line int, text string) (agent.Outcome, error) {
	t.printf("   ")
	col := 3
	out, err := t.agent.Handle(ctx, agent.FromCLI(path, line+1, text), func(s string) error {
		for _, r := range s {
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
	t.printf("\n")
	if err != nil {
		return out, fmt.Errorf("demo: asking %q: %w", text, err)
	}
	return out, nil
}

// plural writes n thing, or n things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
