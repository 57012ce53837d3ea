package lsp

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// do performs a command and returns its output lines.
func (sc *scenario) do(args []string) []string {
	t, c := sc.t, sc.c
	t.Helper()
	need := func(n int) {
		t.Helper()
		require.GreaterOrEqual(t, len(args), n, "%s needs %d arguments", args[0], n-1)
	}
	switch args[0] {
	case "open":
		need(2)
		c.open(sc.abs(args[1]))
	case "close":
		need(2)
		c.closeDoc(sc.abs(args[1]))
	case "save":
		need(2)
		p := sc.abs(args[1])
		text, ok := c.text(p)
		require.True(t, ok)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		c.notify(protocol.MethodTextDocumentDidSave, map[string]any{"textDocument": map[string]any{"uri": uri.File(p)}})
	case "edit", "type":
		need(3)
		m := sc.mark(args[1])
		p := sc.abs(m.path)
		if args[0] == "edit" {
			s, e := m.start, m.end
			c.edit(p, s, e, args[2])
			sc.shift(p, s, e, args[2])
			break
		}
		for _, r := range args[2] {
			s, e := m.start, m.end
			c.edit(p, s, e, string(r))
			sc.shift(p, s, e, string(r))
		}
	case "write":
		need(3)
		data, ok := sc.files[args[2]]
		require.True(t, ok, "no section %s", args[2])
		p := sc.abs(args[1])
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(sc.strip(args[1], string(data))), 0o644))
		c.mu.Lock()
		c.wrote = append(c.wrote, p)
		c.mu.Unlock()
		sc.watched()
	case "symbols":
		need(2)
		var syms []documentSymbolResult
		c.mustCall(protocol.MethodTextDocumentDocumentSymbol, map[string]any{"textDocument": map[string]any{"uri": uri.File(sc.abs(args[1]))}}, &syms)
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
	case "wsymbols":
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
	case "definition", "references":
		need(2)
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
	case "hover":
		need(2)
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
	case "complete":
		need(2)
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
	case "folding":
		need(2)
		var fs []foldingRange
		c.mustCall(protocol.MethodTextDocumentFoldingRange, map[string]any{"textDocument": map[string]any{"uri": uri.File(sc.abs(args[1]))}}, &fs)
		var out []string
		for _, f := range fs {
			l := fmt.Sprintf("%d-%d", f.StartLine, f.EndLine)
			if f.Kind != "" {
				l += " " + f.Kind
			}
			out = append(out, l)
		}
		return out
	case "diagnostics":
		need(2)
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
	case "prepare-rename":
		need(2)
		m := sc.mark(args[1])
		var r *prepareRenameResult
		c.mustCall(protocol.MethodTextDocumentPrepareRename, sc.docParams(m), &r)
		if r == nil {
			return []string{"(none)"}
		}
		return []string{sc.place(uri.File(sc.abs(m.path)), r.Range) + " " + r.Placeholder}
	case "rename":
		need(3)
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
	case "actions", "apply-action":
		need(2)
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
		if args[0] == "actions" {
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
		need(3)
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
	case "context":
		need(2)
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
	case "ask":
		need(3)
		arg := map[string]any{"text": args[2]}
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
		if res.Tool != "" {
			out = append(out, fmt.Sprintf("proposed %s: %s by %s", res.Tool, res.Verdict, res.Gate))
		}
		if res.PlanID != "" {
			out = append(out, "filed a Flight Plan")
		}
		out = append(out, "said "+strconv.Quote(res.Text))
		out = append(out, fmt.Sprintf("streamed the same %v", streamed == res.Text))
		return out
	case "ask-cancel":
		need(4)
		return sc.askCancel(sc.mark(args[1]), args[2], args[3])
	case "approve", "reject":
		need(2)
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
	case "sleep":
		need(2)
		d, err := time.ParseDuration(args[1])
		require.NoError(t, err)
		time.Sleep(d)
	case "text", "disk":
		need(2)
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
	case "notify":
		need(3)
		require.NoError(t, c.conn.Notify(c.ctx, args[1], json.RawMessage(sc.subst(args[2]))))
	case "request":
		need(2)
		var params any
		if len(args) > 2 {
			params = json.RawMessage(sc.subst(args[2]))
		}
		var raw json.RawMessage
		if err := c.call(args[1], params, &raw); err != nil {
			return []string{"error " + errText(err)}
		}
		return []string{strings.ReplaceAll(string(raw), sc.dir, "$TMP")}
	case "mark":
		need(4)
		text := sc.currentText(args[2])
		i := strings.Index(text, args[3])
		require.GreaterOrEqual(t, i, 0, "%q is not in %s", args[3], args[2])
		sc.marks[args[1]] = &mark{path: args[2], start: i, end: i + len(args[3]), isRange: true}
	case "messages":
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
	case "settle":
		sc.settle()
	case "wait-embedded":
		mx := c.srv.memex()
		require.NotNil(t, mx)
		require.NoError(t, mx.WaitEmbedded(c.ctx))
	default:
		t.Fatalf("unknown command %q", args[0])
	}
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
	return []string{fmt.Sprintf("%s ran=%v: %s", d.State, d.Ran, d.Summary)}
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
