package lsp

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"pp-lsp/server/agent"
)

// scenarioCommand is one command of the scenario language (see the
// package's scenario doc in scenario_test.go, which lists them all).
type scenarioCommand struct {
	// args is how many words the command line needs at least, the
	// command's name included.
	args int
	// run performs it and returns its output lines.
	run func(sc *scenario, args []string) []string
}

// scenarioCommands is the scenario language: each command by name, in the
// style of gopls's marker actions.
func scenarioCommands() map[string]scenarioCommand {
	return map[string]scenarioCommand{
		"open":           {2, (*scenario).cmdOpen},
		"close":          {2, (*scenario).cmdClose},
		"save":           {2, (*scenario).cmdSave},
		"edit":           {3, (*scenario).cmdEdit},
		"type":           {3, (*scenario).cmdEdit},
		"write":          {3, (*scenario).cmdWrite},
		"symbols":        {2, (*scenario).cmdSymbols},
		"wsymbols":       {1, (*scenario).cmdWsymbols},
		"definition":     {2, (*scenario).cmdDefinition},
		"references":     {2, (*scenario).cmdDefinition},
		"hover":          {2, (*scenario).cmdHover},
		"complete":       {2, (*scenario).cmdComplete},
		"folding":        {2, (*scenario).cmdFolding},
		"diagnostics":    {2, (*scenario).cmdDiagnostics},
		"prepare-rename": {2, (*scenario).cmdPrepareRename},
		"rename":         {3, (*scenario).cmdRename},
		"actions":        {2, (*scenario).cmdActions},
		"apply-action":   {2, (*scenario).cmdActions},
		"hold-actions":   {2, (*scenario).cmdActions},
		"apply-held":     {2, (*scenario).cmdApplyHeld},
		"context":        {2, (*scenario).cmdContext},
		"ask":            {3, (*scenario).cmdAsk},
		"chat-ask":       {3, (*scenario).cmdAsk},
		"ask-cancel":     {4, (*scenario).cmdAskCancel},
		"approve":        {2, (*scenario).cmdApprove},
		"reject":         {2, (*scenario).cmdApprove},
		"undo":           {1, (*scenario).cmdUndo},
		"sleep":          {2, (*scenario).cmdSleep},
		"text":           {2, (*scenario).cmdText},
		"disk":           {2, (*scenario).cmdText},
		"notify":         {3, (*scenario).cmdNotify},
		"request":        {2, (*scenario).cmdRequest},
		"mark":           {4, (*scenario).cmdMark},
		"messages":       {1, (*scenario).cmdMessages},
		"echo":           {1, (*scenario).cmdEcho},
		"settle":         {1, (*scenario).cmdSettle},
		"wait-embedded":  {1, (*scenario).cmdWaitEmbedded},
		"lenses":         {2, (*scenario).cmdLenses},
		"doclinks":       {2, (*scenario).cmdDocLinks},
		"backlinks":      {2, (*scenario).cmdBacklinks},
		"unlinked":       {2, (*scenario).cmdBacklinks},
		"daily":          {1, (*scenario).cmdDaily},
		"create-node":    {2, (*scenario).cmdCreateNode},
		"will-rename":    {3, (*scenario).cmdWillRename},
		"skills":         {1, (*scenario).cmdSkills},
		"run-skill":      {2, (*scenario).cmdRunSkill},
		"editor-edits":   {2, (*scenario).cmdEditorEdits},
	}
}

// TestScenarioDocListsEveryCommand: the scenario doc (scenario_test.go's
// comment) names exactly the commands of the table.
func TestScenarioDocListsEveryCommand(t *testing.T) {
	src, err := os.ReadFile("scenario_test.go")
	require.NoError(t, err)
	doc := string(src)
	doc = doc[strings.Index(doc, `// The file "script" is the session`):strings.Index(doc, "// mark is a marked place")]
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^//\t(.+?)  +\S`).FindAllStringSubmatch(doc, -1) {
		for _, usage := range strings.Split(m[1], " / ") {
			listed = append(listed, strings.Split(strings.Fields(usage)[0], "|")...)
		}
	}
	assert.Equal(t, slices.Sorted(maps.Keys(scenarioCommands())), slices.Sorted(slices.Values(listed)))
}

// do performs a command and returns its output lines.
func (sc *scenario) do(args []string) []string {
	sc.t.Helper()
	cmd, ok := sc.commands[args[0]]
	if !ok {
		sc.t.Fatalf("unknown command %q", args[0])
	}
	sc.need(args, cmd.args)
	return cmd.run(sc, args)
}

// docOf is the params {"textDocument": {"uri"}} naming file.
func (sc *scenario) docOf(file string) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri.File(sc.abs(file))}}
}

// need fails the scenario when a command has fewer than n words.
func (sc *scenario) need(args []string, n int) {
	sc.t.Helper()
	require.GreaterOrEqual(sc.t, len(args), n, "%s needs %d arguments", args[0], n-1)
}

// cmdOpen serves "open".
func (sc *scenario) cmdOpen(args []string) []string {
	c := sc.c
	c.open(sc.abs(args[1]))
	return nil
}

// cmdClose serves "close".
func (sc *scenario) cmdClose(args []string) []string {
	c := sc.c
	c.closeDoc(sc.abs(args[1]))
	return nil
}

// cmdSave serves "save".
func (sc *scenario) cmdSave(args []string) []string {
	t, c := sc.t, sc.c
	p := sc.abs(args[1])
	text, ok := c.text(p)
	require.True(t, ok)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	c.saved(p)
	c.notify(protocol.MethodTextDocumentDidSave, map[string]any{"textDocument": map[string]any{"uri": uri.File(p)}})
	return nil
}

// cmdEdit serves "edit" and "type".
func (sc *scenario) cmdEdit(args []string) []string {
	c := sc.c
	m := sc.mark(args[1])
	p := sc.abs(m.path)
	if args[0] == "edit" {
		s, e := m.start, m.end
		c.edit(p, s, e, args[2])
		sc.shift(p, s, e, args[2])
		return nil
	}
	for _, r := range args[2] {
		s, e := m.start, m.end
		c.edit(p, s, e, string(r))
		sc.shift(p, s, e, string(r))
	}
	return nil
}

// cmdWrite serves "write".
func (sc *scenario) cmdWrite(args []string) []string {
	t, c := sc.t, sc.c
	data, ok := sc.files[args[2]]
	require.True(t, ok, "no section %s", args[2])
	p := sc.abs(args[1])
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(sc.strip(args[1], string(data))), 0o644))
	c.mu.Lock()
	c.wrote = append(c.wrote, p)
	c.mu.Unlock()
	sc.watched()
	return nil
}

// cmdSymbols serves "symbols".
func (sc *scenario) cmdSymbols(args []string) []string {
	c := sc.c
	var syms []documentSymbolResult
	c.mustCall(protocol.MethodTextDocumentDocumentSymbol, sc.docOf(args[1]), &syms)
	var out []string
	var walk func([]documentSymbolResult, string)
	walk = func(ss []documentSymbolResult, indent string) {
		for _, s := range ss {
			l := indent + s.Name
			if s.Detail != "" {
				l += " [" + s.Detail + "]"
			}
			l += fmt.Sprintf(" %s (%d-%d)", sc.place(uri.File(sc.abs(args[1])), s.SelectionRange), s.Range.Start.Line, s.Range.End.Line)
			out = append(out, l)
			walk(s.Children, indent+"  ")
		}
	}
	walk(syms, "")
	return out
}

// cmdWsymbols serves "wsymbols".
func (sc *scenario) cmdWsymbols(args []string) []string {
	c := sc.c
	query := ""
	if len(args) > 1 {
		query = args[1]
	}
	var syms []symbolInformation
	c.mustCall(protocol.MethodWorkspaceSymbol, map[string]any{"query": query}, &syms)
	var out []string
	for _, s := range syms {
		out = append(out, fmt.Sprintf("%s (%s) %s", s.Name, s.ContainerName, sc.place(s.Location.URI, s.Location.Range)))
	}
	return out
}

// cmdDefinition serves "definition" and "references".
func (sc *scenario) cmdDefinition(args []string) []string {
	c := sc.c
	params := sc.docParams(sc.mark(args[1]))
	method := protocol.MethodTextDocumentDefinition
	if args[0] == "references" {
		method = protocol.MethodTextDocumentReferences
		params["context"] = map[string]any{"includeDeclaration": len(args) > 2 && args[2] == "decl"}
	}
	var locs []protocol.Location
	c.mustCall(method, params, &locs)
	if locs == nil {
		return []string{"(none)"}
	}
	var out []string
	for _, l := range locs {
		out = append(out, sc.place(l.URI, l.Range))
	}
	return out
}

// cmdHover serves "hover".
func (sc *scenario) cmdHover(args []string) []string {
	c := sc.c
	var h *hoverResult
	c.mustCall(protocol.MethodTextDocumentHover, sc.docParams(sc.mark(args[1])), &h)
	if h == nil {
		return []string{"(none)"}
	}
	out := strings.Split(strings.TrimRight(h.Contents.Value, "\n"), "\n")
	if h.Range != nil {
		out = append(out, "@ "+sc.place(uri.File(sc.abs(sc.mark(args[1]).path)), *h.Range))
	}
	return out
}

// cmdComplete serves "complete".
func (sc *scenario) cmdComplete(args []string) []string {
	c := sc.c
	m := sc.mark(args[1])
	var list completionList
	c.mustCall(protocol.MethodTextDocumentCompletion, sc.docParams(m), &list)
	var out []string
	if list.IsIncomplete {
		out = append(out, "incomplete")
	}
	for _, it := range list.Items {
		out = append(out, fmt.Sprintf("%s => %q @ %s", it.Label, it.TextEdit.NewText, sc.place(uri.File(sc.abs(m.path)), it.TextEdit.Range)))
	}
	return out
}

// cmdFolding serves "folding".
func (sc *scenario) cmdFolding(args []string) []string {
	c := sc.c
	var fs []foldingRange
	c.mustCall(protocol.MethodTextDocumentFoldingRange, sc.docOf(args[1]), &fs)
	var out []string
	for _, f := range fs {
		l := fmt.Sprintf("%d-%d", f.StartLine, f.EndLine)
		if f.Kind != "" {
			l += " " + f.Kind
		}
		out = append(out, l)
	}
	return out
}

// cmdDiagnostics serves "diagnostics".
func (sc *scenario) cmdDiagnostics(args []string) []string {
	c := sc.c
	p := sc.abs(args[1])
	pub, ok := c.diagnosticsOf(p)
	if !ok {
		return []string{"(not published)"}
	}
	if _, open := c.text(p); open && (pub.Version == nil || *pub.Version != c.docVersion(p)) {
		return []string{"(stale)"}
	}
	var out []string
	sev := map[int]string{1: "error", 2: "warning", 3: "information", 4: "hint"}
	for _, d := range pub.Diagnostics {
		out = append(out, fmt.Sprintf("%s %s %s: %s", sc.place(pub.URI, d.Range), sev[d.Severity], d.Code, d.Message))
		for _, r := range d.RelatedInformation {
			out = append(out, "  related "+sc.place(r.Location.URI, r.Location.Range))
		}
	}
	return out
}

// cmdPrepareRename serves "prepare-rename".
func (sc *scenario) cmdPrepareRename(args []string) []string {
	c := sc.c
	m := sc.mark(args[1])
	var r *prepareRenameResult
	c.mustCall(protocol.MethodTextDocumentPrepareRename, sc.docParams(m), &r)
	if r == nil {
		return []string{"(none)"}
	}
	return []string{sc.place(uri.File(sc.abs(m.path)), r.Range) + " " + r.Placeholder}
}

// cmdRename serves "rename".
func (sc *scenario) cmdRename(args []string) []string {
	t, c := sc.t, sc.c
	params := sc.docParams(sc.mark(args[1]))
	params["newName"] = args[2]
	var raw json.RawMessage
	if err := c.call(protocol.MethodTextDocumentRename, params, &raw); err != nil {
		return []string{"error " + errText(err)}
	}
	out := sc.describeEdit(raw)
	require.NoError(t, c.applyWorkspaceEdit(raw))
	sc.watched()
	return out
}

// cmdActions serves "actions" and "apply-action".
func (sc *scenario) cmdActions(args []string) []string {
	t, c := sc.t, sc.c
	m := sc.mark(args[1])
	p := sc.docParams(m)
	params := map[string]any{"textDocument": p["textDocument"], "range": map[string]any{"start": p["position"], "end": p["position"]}, "context": map[string]any{"diagnostics": []any{}}}
	var actions []struct {
		Title   string          `json:"title"`
		Kind    string          `json:"kind"`
		Edit    json.RawMessage `json:"edit"`
		Command *command        `json:"command"`
	}
	c.mustCall(protocol.MethodTextDocumentCodeAction, params, &actions)
	if args[0] == "hold-actions" {
		sc.held = nil
		for _, a := range actions {
			sc.held = append(sc.held, a.Command)
		}
	}
	if args[0] == "actions" || args[0] == "hold-actions" {
		var out []string
		for _, a := range actions {
			l := fmt.Sprintf("%s [%s]", a.Title, a.Kind)
			if a.Edit != nil {
				l += " edit"
			}
			if a.Command != nil {
				l += " command " + a.Command.Command
			}
			out = append(out, l)
		}
		return out
	}
	sc.need(args, 3)
	n, err := strconv.Atoi(args[2])
	require.NoError(t, err)
	require.Less(t, n, len(actions))
	a := actions[n]
	if a.Edit != nil {
		require.NoError(t, c.applyWorkspaceEdit(a.Edit))
		return nil
	}
	var res json.RawMessage
	if err := c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": a.Command.Command, "arguments": a.Command.Arguments}, &res); err != nil {
		return []string{"error " + errText(err)}
	}
	return sc.describeDecision(res)
}

// cmdApplyHeld serves "apply-held N": the N-th code action of the last
// "hold-actions" runs now, its arguments as they were offered.
func (sc *scenario) cmdApplyHeld(args []string) []string {
	t := sc.t
	n, err := strconv.Atoi(args[1])
	require.NoError(t, err)
	require.Less(t, n, len(sc.held))
	cmd := sc.held[n]
	require.NotNil(t, cmd, "the held action %d is no command", n)
	var res json.RawMessage
	if err := sc.c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": cmd.Command, "arguments": cmd.Arguments}, &res); err != nil {
		return []string{"error " + errText(err)}
	}
	return sc.describeDecision(res)
}

// cmdContext serves "context".
func (sc *scenario) cmdContext(args []string) []string {
	c := sc.c
	m := sc.mark(args[1])
	arg := map[string]any{"uri": uri.File(sc.abs(m.path)), "position": sc.position(m)}
	if len(args) > 2 {
		b, _ := strconv.Atoi(args[2])
		arg["budget"] = b
	}
	var v struct {
		Foveal struct {
			ID, File, Title string
			Line            int
		} `json:"foveal"`
		Text       string         `json:"text"`
		Tokens     int            `json:"tokens"`
		Budget     int            `json:"budget"`
		FullTokens int            `json:"full_tokens"`
		Nodes      map[string]int `json:"nodes"`
	}
	c.mustCall(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": CommandContext, "arguments": []any{arg}}, &v)
	out := []string{
		fmt.Sprintf("foveal %s %s:%d %s", v.Foveal.ID, sc.rel(v.Foveal.File), v.Foveal.Line, v.Foveal.Title),
		fmt.Sprintf("within budget %v (budget %d), full memex larger %v", v.Tokens <= v.Budget, v.Budget, v.FullTokens >= v.Tokens),
		fmt.Sprintf("nodes full=%d outline=%d title_only=%d folded=%d private=%d", v.Nodes["full"], v.Nodes["outline"], v.Nodes["title_only"], v.Nodes["folded"], v.Nodes["private"]),
	}
	for l := range strings.Lines(v.Text) {
		out = append(out, "| "+strings.TrimRight(l, "\n"))
	}
	return out
}

// reDate is the date a new chat's file name begins with.
var reDate = regexp.MustCompile(`\d{4}-\d\d-\d\d-`)

// cmdAsk serves "ask" and "chat-ask" (which also shows the conversation,
// the model and the usage).
func (sc *scenario) cmdAsk(args []string) []string {
	c := sc.c
	arg := map[string]any{"text": args[2]}
	for _, opt := range args[3:] {
		switch k, v, _ := strings.Cut(opt, "="); k {
		case "chat":
			arg["chat"] = uri.File(sc.abs(v))
		case "no-chat":
			arg["noChat"] = true
		}
	}
	if args[1] != "-" {
		m := sc.mark(args[1])
		arg["uri"], arg["position"] = uri.File(sc.abs(m.path)), sc.position(m)
	}
	before := len(c.notesOf(protocol.MethodProgress))
	var res askResult
	if err := c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": CommandAsk, "arguments": []any{arg}}, &res); err != nil {
		return []string{"error " + errText(err)}
	}
	sc.lastAsk = res
	streamed := sc.streamed(before)
	out := []string{"outcome " + res.Outcome}
	if args[0] == "chat-ask" {
		if res.Status != res.Outcome {
			out = append(out, "status "+res.Status)
		}
		if res.Chat != "" {
			out = append(out, "chat "+reDate.ReplaceAllString(sc.rel(uri.URI(res.Chat).FsPath()), "<date>-"))
		}
		if res.Model != "" {
			out = append(out, fmt.Sprintf("model %s usage %d in %d out estimated %v", res.Model, res.Usage.Prompt, res.Usage.Completion, res.Usage.Estimated))
		}
	}
	if res.Tool != "" {
		out = append(out, fmt.Sprintf("proposed %s: %s by %s", res.Tool, res.Verdict, res.Gate))
	}
	if res.PlanID != "" {
		out = append(out, "filed a Flight Plan")
	}
	out = append(out, "said "+strconv.Quote(res.Text))
	out = append(out, fmt.Sprintf("streamed the same %v", streamed == res.Text))
	if res.Outcome == "failed" {
		out = append(out, "summary "+strings.ReplaceAll(res.Summary, sc.dir, "$TMP"))
	}
	return out
}

// cmdAskCancel serves "ask-cancel".
func (sc *scenario) cmdAskCancel(args []string) []string {
	return sc.askCancel(sc.mark(args[1]), args[2], args[3])
}

// cmdApprove serves "approve" and "reject".
func (sc *scenario) cmdApprove(args []string) []string {
	t, c := sc.t, sc.c
	arg := map[string]any{}
	if args[1] == "last" {
		require.NotEmpty(t, sc.lastAsk.PlanID, "the last ask filed no plan")
		arg["id"] = sc.lastAsk.PlanID
	} else {
		m := sc.mark(args[1])
		arg["uri"], arg["position"] = uri.File(sc.abs(m.path)), sc.position(m)
	}
	cmd := CommandApprove
	if args[0] == "reject" {
		cmd = CommandReject
	}
	var res json.RawMessage
	if err := c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": cmd, "arguments": []any{arg}}, &res); err != nil {
		return []string{"error " + errText(err)}
	}
	return sc.describeDecision(res)
}

// cmdUndo serves "undo [list|ID]".
func (sc *scenario) cmdUndo(args []string) []string {
	arg := map[string]any{}
	switch {
	case len(args) > 1 && args[1] == "list":
		arg["list"] = true
	case len(args) > 1:
		arg["id"] = args[1]
	}
	var res json.RawMessage
	if err := sc.c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": CommandUndo, "arguments": []any{arg}}, &res); err != nil {
		return []string{"error " + errText(err)}
	}
	if arg["list"] == true {
		var list []agent.ChangeInfo
		require.NoError(sc.t, json.Unmarshal(res, &list))
		out := []string{}
		for _, c := range list {
			out = append(out, c.Title+": "+strings.Join(c.Files, ", "))
		}
		return out
	}
	var u undone
	require.NoError(sc.t, json.Unmarshal(res, &u))
	return []string{u.Summary}
}

// cmdSleep serves "sleep".
func (sc *scenario) cmdSleep(args []string) []string {
	t := sc.t
	d, err := time.ParseDuration(args[1])
	require.NoError(t, err)
	time.Sleep(d)
	return nil
}

// cmdText serves "text" and "disk".
func (sc *scenario) cmdText(args []string) []string {
	t, c := sc.t, sc.c
	p := sc.abs(args[1])
	var text string
	if args[0] == "text" {
		var ok bool
		text, ok = c.text(p)
		require.True(t, ok, "%s is not open", args[1])
	} else {
		data, err := os.ReadFile(p)
		if err != nil {
			return []string{"(absent)"}
		}
		text = string(data)
	}
	text = strings.ReplaceAll(text, sc.dir, "$TMP")
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// cmdNotify serves "notify".
func (sc *scenario) cmdNotify(args []string) []string {
	t, c := sc.t, sc.c
	require.NoError(t, c.conn.Notify(c.ctx, args[1], json.RawMessage(sc.subst(args[2]))))
	return nil
}

// cmdRequest serves "request".
func (sc *scenario) cmdRequest(args []string) []string {
	c := sc.c
	var params any
	if len(args) > 2 {
		params = json.RawMessage(sc.subst(args[2]))
	}
	var raw json.RawMessage
	if err := c.call(args[1], params, &raw); err != nil {
		return []string{"error " + errText(err)}
	}
	return []string{strings.ReplaceAll(string(raw), sc.dir, "$TMP")}
}

// cmdMark serves "mark".
func (sc *scenario) cmdMark(args []string) []string {
	t := sc.t
	text := sc.currentText(args[2])
	i := strings.Index(text, args[3])
	require.GreaterOrEqual(t, i, 0, "%q is not in %s", args[3], args[2])
	sc.marksMu.Lock()
	sc.marks[args[1]] = &mark{path: args[2], start: i, end: i + len(args[3]), isRange: true}
	sc.marksMu.Unlock()
	return nil
}

// cmdMessages serves "messages".
func (sc *scenario) cmdMessages(args []string) []string {
	c := sc.c
	var out []string
	types := map[int]string{1: "error", 2: "warning", 3: "info", 4: "log"}
	for _, n := range c.notesOf("") {
		if n.method != protocol.MethodWindowShowMessage && n.method != protocol.MethodWindowLogMessage {
			continue
		}
		var m struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(n.params, &m) == nil && !strings.Contains(m.Message, "the memex under") {
			kind := "log"
			if n.method == protocol.MethodWindowShowMessage {
				kind = "show"
			}
			out = append(out, fmt.Sprintf("%s %s: %s", kind, types[m.Type], m.Message))
		}
	}
	return out[min(sc.seenMessages, len(out)):]
}

// cmdEcho serves "echo": once the indexing has said its last word, the
// last line an editor with one echo area shows (eglot: each
// window/showMessage, and pp-lsp.el each $/progress end).
func (sc *scenario) cmdEcho(args []string) []string {
	t, c := sc.t, sc.c
	type progress struct {
		Value progressValue `json:"value"`
	}
	ended := func() bool {
		for _, n := range c.notesOf(protocol.MethodProgress) {
			var p progress
			if json.Unmarshal(n.params, &p) == nil && p.Value.Kind == "end" && strings.HasPrefix(p.Value.Message, "indexed") {
				return true
			}
		}
		return false
	}
	require.Eventually(t, ended, 10*time.Second, 5*time.Millisecond, "the indexing did not end")
	last := ""
	for _, n := range c.notesOf("") {
		switch n.method {
		case protocol.MethodWindowShowMessage:
			var m struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(n.params, &m) == nil {
				last = "show: " + m.Message
			}
		case protocol.MethodProgress:
			var p progress
			if json.Unmarshal(n.params, &p) == nil && p.Value.Kind == "end" && p.Value.Message != "" {
				last = "progress: " + p.Value.Message
			}
		}
	}
	return []string{last}
}

// cmdSettle serves "settle".
func (sc *scenario) cmdSettle(args []string) []string {
	sc.settle()
	return nil
}

// cmdWaitEmbedded serves "wait-embedded".
func (sc *scenario) cmdWaitEmbedded(args []string) []string {
	t, c := sc.t, sc.c
	mx := c.srv.memex()
	require.NotNil(t, mx)
	require.NoError(t, mx.WaitEmbedded(c.ctx))
	return nil
}

// watched tells the server about the files written on disk since the
// last time, as an editor's file watcher does (when it watches: Neovim
// 0.7 does not, and the server rescans instead).
func (sc *scenario) watched() {
	c := sc.c
	c.mu.Lock()
	wrote := c.wrote
	c.wrote = nil
	c.mu.Unlock()
	if len(wrote) == 0 || sc.kind == clientNvim {
		return
	}
	var changes []map[string]any
	for _, p := range wrote {
		changes = append(changes, map[string]any{"uri": uri.File(p), "type": 2})
	}
	c.notify(protocol.MethodWorkspaceDidChangeWatchedFiles, map[string]any{"changes": changes})
	sc.settle()
}

// settle waits until the server has read the files it was told about: a
// round trip makes sure it has seen the notification, then the reads it
// started must end.
func (sc *scenario) settle() {
	sc.c.mustCall(protocol.MethodWorkspaceSymbol, map[string]any{"query": "settle"}, nil)
	deadline := time.Now().Add(10 * time.Second)
	for sc.c.srv.diskPending.Load() > 0 {
		require.True(sc.t, time.Now().Before(deadline), "the server did not finish reading changed files")
		time.Sleep(5 * time.Millisecond)
	}
}

// errText is a JSON-RPC error as "CODE: message".
func errText(err error) string {
	var je *jsonrpc2.Error
	if e, ok := err.(*jsonrpc2.Error); ok {
		je = e
		return fmt.Sprintf("%d: %s", je.Code, je.Message)
	}
	return err.Error()
}

// describeEdit writes a WorkspaceEdit: per file, each edit.
func (sc *scenario) describeEdit(raw json.RawMessage) []string {
	var we wireEdit
	require.NoError(sc.t, json.Unmarshal(raw, &we))
	var out []string
	for _, dc := range we.DocumentChanges {
		v := "null"
		if dc.TextDocument.Version != nil {
			v = strconv.Itoa(int(*dc.TextDocument.Version))
		}
		out = append(out, fmt.Sprintf("%s (version %s)", sc.rel(uriPath(uri.URI(dc.TextDocument.URI))), v))
		for _, e := range dc.Edits {
			out = append(out, fmt.Sprintf("  %s => %q", sc.place(uri.URI(dc.TextDocument.URI), e.Range), e.NewText))
		}
	}
	for _, u := range slices.Sorted(maps.Keys(we.Changes)) {
		out = append(out, sc.rel(uriPath(uri.URI(u))))
		for _, e := range we.Changes[u] {
			out = append(out, fmt.Sprintf("  %s => %q", sc.place(uri.URI(u), e.Range), e.NewText))
		}
	}
	return out
}

// describeDecision writes an approve/reject answer.
func (sc *scenario) describeDecision(raw json.RawMessage) []string {
	var d decision
	require.NoError(sc.t, json.Unmarshal(raw, &d))
	out := []string{fmt.Sprintf("%s ran=%v: %s", d.State, d.Ran, d.Summary)}
	if d.Rule != "" {
		out = append(out, "rule added: "+d.Rule)
	}
	return out
}

// streamed concatenates the messages of the $/progress reports of the
// first "Passepartout" progress begun since the n-th progress
// notification: what an ask streamed.
func (sc *scenario) streamed(n int) string {
	var b strings.Builder
	var token json.RawMessage
	for _, nt := range sc.c.notesOf(protocol.MethodProgress)[n:] {
		var p struct {
			Token json.RawMessage `json:"token"`
			Value progressValue   `json:"value"`
		}
		if json.Unmarshal(nt.params, &p) != nil {
			continue
		}
		switch {
		case token == nil && p.Value.Kind == "begin" && p.Value.Title == "Passepartout":
			token = p.Token
		case token != nil && string(p.Token) == string(token) && p.Value.Kind == "report":
			b.WriteString(p.Value.Message)
		}
	}
	return b.String()
}

// askCancel starts an ask with a token of its own, waits for its progress
// to begin, cancels it the way given, and reports the answer.
func (sc *scenario) askCancel(m *mark, text, how string) []string {
	c := sc.c
	token := fmt.Sprintf("ask-%d", time.Now().UnixNano())
	arg := map[string]any{"text": text, "uri": uri.File(sc.abs(m.path)), "position": sc.position(m)}
	type answer struct {
		id  jsonrpc2.ID
		err error
	}
	done := make(chan answer, 1)
	go func() {
		var raw json.RawMessage
		id, err := c.conn.Call(c.ctx, protocol.MethodWorkspaceExecuteCommand, map[string]any{
			"command": CommandAsk, "arguments": []any{arg}, "workDoneToken": token}, &raw)
		done <- answer{id, err}
	}()
	began := func() bool {
		for _, n := range c.notesOf(protocol.MethodProgress) {
			var p struct {
				Token string        `json:"token"`
				Value progressValue `json:"value"`
			}
			if json.Unmarshal(n.params, &p) == nil && p.Token == token && p.Value.Kind == "begin" {
				return true
			}
		}
		return false
	}
	c.waitFor("the ask's progress to begin", 10*time.Second, began)
	switch how {
	case "progress":
		c.notify(protocol.MethodWindowWorkDoneProgressCancel, map[string]any{"token": token})
	case "request":
		id, ok := c.lastCall(protocol.MethodWorkspaceExecuteCommand)
		require.True(sc.t, ok)
		n, isNum := id.Number()
		require.True(sc.t, isNum, "jsonrpc2 numbers its calls")
		c.notify(protocol.MethodCancelRequest, map[string]any{"id": n})
	default:
		sc.t.Fatalf("ask-cancel: %q is neither request nor progress", how)
	}
	select {
	case a := <-done:
		if a.err == nil {
			return []string{"answered"}
		}
		return []string{"error " + errText(a.err)}
	case <-time.After(10 * time.Second):
		sc.t.Fatal("the cancelled ask did not answer within 10s")
	}
	return nil
}

// cmdLenses serves "lenses".
func (sc *scenario) cmdLenses(args []string) []string {
	var lenses []codeLens
	sc.c.mustCall(protocol.MethodTextDocumentCodeLens, sc.docOf(args[1]), &lenses)
	var out []string
	for _, l := range lenses {
		out = append(out, fmt.Sprintf("%s %s → %s", sc.place(uri.File(sc.abs(args[1])), l.Range), l.Command.Title, l.Command.Command))
	}
	return out
}

// cmdDocLinks serves "doclinks".
func (sc *scenario) cmdDocLinks(args []string) []string {
	var links []documentLink
	sc.c.mustCall(protocol.MethodTextDocumentDocumentLink, sc.docOf(args[1]), &links)
	var out []string
	for _, l := range links {
		t := strings.ReplaceAll(l.Target, string(uri.File(sc.dir)), "$TMP")
		line := fmt.Sprintf("%s → %s", sc.place(uri.File(sc.abs(args[1])), l.Range), t)
		if l.Tooltip != "" {
			line += " (" + l.Tooltip + ")"
		}
		out = append(out, line)
	}
	return out
}

// cmdBacklinks serves "backlinks" and "unlinked".
func (sc *scenario) cmdBacklinks(args []string) []string {
	m := sc.mark(args[1])
	arg := map[string]any{"uri": uri.File(sc.abs(m.path)), "position": sc.position(m)}
	cmd := CommandBacklinks
	if args[0] == "unlinked" {
		cmd = CommandUnlinked
	}
	var items []struct {
		ID, Title, Context string
		URI                uri.URI
		Range              protocol.Range
	}
	if err := sc.c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": cmd, "arguments": []any{arg}}, &items); err != nil {
		return []string{"error " + errText(err)}
	}
	out := []string{}
	for _, it := range items {
		l := sc.place(it.URI, it.Range)
		if it.Title != "" {
			l += " " + it.Title
		}
		out = append(out, l+": "+it.Context)
	}
	return out
}

// cmdDaily serves "daily".
func (sc *scenario) cmdDaily(args []string) []string {
	arg := map[string]any{}
	if len(args) > 1 {
		arg["date"] = args[1]
	}
	var res struct{ URI uri.URI }
	if err := sc.c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": CommandDaily, "arguments": []any{arg}}, &res); err != nil {
		return []string{"error " + errText(err)}
	}
	return []string{sc.rel(uriPath(res.URI))}
}

// cmdSkills serves "skills".
func (sc *scenario) cmdSkills([]string) []string {
	var res []struct {
		Title, File, Trigger, State, Problem string
		Line, Priority                       int
		Builtin                              bool
	}
	if err := sc.c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": CommandSkills, "arguments": []any{map[string]any{}}}, &res); err != nil {
		return []string{"error " + errText(err)}
	}
	var out []string
	for _, k := range res {
		where := "built in"
		if !k.Builtin {
			where = fmt.Sprintf("%s:%d", sc.rel(k.File), k.Line)
		}
		line := fmt.Sprintf("%s %d %s (%s) trigger %q", k.State, k.Priority, k.Title, where, k.Trigger)
		if k.Problem != "" {
			line += ": " + k.Problem
		}
		out = append(out, line)
	}
	return out
}

// cmdRunSkill serves "run-skill".
func (sc *scenario) cmdRunSkill(args []string) []string {
	var res struct{ Skill, Status, Summary, PlanID string }
	if err := sc.c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": CommandRunSkill, "arguments": []any{map[string]any{"name": args[1]}}}, &res); err != nil {
		return []string{"error " + errText(err)}
	}
	out := []string{fmt.Sprintf("%s: %s: %s", res.Skill, res.Status, res.Summary)}
	if res.PlanID != "" {
		out = append(out, "plan filed")
	}
	return out
}

// cmdCreateNode serves "create-node".
func (sc *scenario) cmdCreateNode(args []string) []string {
	m := sc.mark(args[1])
	arg := map[string]any{"uri": uri.File(sc.abs(m.path)), "position": sc.position(m)}
	var res struct{ URI uri.URI }
	if err := sc.c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": CommandCreateNode, "arguments": []any{arg}}, &res); err != nil {
		return []string{"error " + errText(err)}
	}
	return []string{sc.rel(uriPath(res.URI))}
}

// cmdWillRename serves "will-rename": the edits the server answers, then
// applied as an editor does, the file renamed on disk and the server told.
func (sc *scenario) cmdWillRename(args []string) []string {
	t, c := sc.t, sc.c
	from, to := sc.abs(args[1]), sc.abs(args[2])
	var raw json.RawMessage
	params := map[string]any{"files": []any{map[string]any{"oldUri": uri.File(from), "newUri": uri.File(to)}}}
	if err := c.call("workspace/willRenameFiles", params, &raw); err != nil {
		return []string{"error " + errText(err)}
	}
	out := []string{"(none)"}
	if string(raw) != "null" {
		out = sc.describeEdit(raw)
		require.NoError(t, c.applyWorkspaceEdit(raw))
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(to), 0o755))
	require.NoError(t, os.Rename(from, to))
	c.mu.Lock()
	c.wrote = append(c.wrote, from, to)
	c.mu.Unlock()
	sc.watched()
	return out
}

// cmdEditorEdits serves "editor-edits": how the client answers
// workspace/applyEdit from now on.
func (sc *scenario) cmdEditorEdits(args []string) []string {
	mode := args[1]
	require.Contains(sc.t, []string{"apply", "decline", "cancel", "quit"}, mode)
	if mode == "apply" {
		mode = ""
	}
	sc.c.mu.Lock()
	sc.c.edits = mode
	sc.c.mu.Unlock()
	return nil
}
