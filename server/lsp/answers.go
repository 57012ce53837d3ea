package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"pp-lsp/orgast"
	"pp-lsp/server/internal/orgtext"
	"pp-lsp/server/workspace"
)

// An answer stays in the editor's answer view (DESIGN §13): the server
// never writes it into a note after a question. The user puts the last
// one where they want it with passepartout.insertAnswer.

// lastAnswer is the text of the last answer of this session's
// passepartout.ask.
type lastAnswer struct {
	mu   sync.Mutex
	text string
}

func (l *lastAnswer) set(text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.text = text
}

func (l *lastAnswer) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text
}

// insertedAnswer is the answer of passepartout.insertAnswer: where the
// answer went (0-based lines of the quote block's first and last line).
type insertedAnswer struct {
	URI     string `json:"uri"`
	Line    int    `json:"line"`
	EndLine int    `json:"endLine"`
	// Where is "buffer" (through workspace/applyEdit) or "disk".
	Where string `json:"where"`
}

// insertAnswer is passepartout.insertAnswer {uri, position}: the last
// answer, as a quote block, below the line of the position (below the
// headline's drawer when the position is on a headline) — through
// workspace/applyEdit when the file is open, atomically on disk
// otherwise. Never into flightplans.org or journal.org.
func (s *Server) insertAnswer(ctx context.Context, v *view, a placeArgs, _ protocol.ProgressToken) (any, error) {
	text := s.answer.get()
	if text == "" {
		return nil, userErrorf("there is no answer to insert yet: ask a question first (%s)", CommandAsk)
	}
	f, err := v.fileArg(a.URI)
	if err != nil {
		return nil, err
	}
	if v.agent != nil && (v.agent.IsPlansFile(f.path) || filepath.Clean(f.path) == filepath.Clean(v.agent.JournalPath())) {
		return nil, userErrorf("an answer is never written into %s: put the cursor in a note", filepath.Base(f.path))
	}
	files := workspace.Files{Workspace: editor{s}}
	cur, err := files.Read(f.path)
	if err != nil {
		return nil, err
	}
	if !cur.Exists {
		return nil, userErrorf("%s does not exist", f.path)
	}
	org := orgast.Parse(cur.Text)
	at, block := answerBlock(org, offsetAt(org, a.Position), text)
	if _, err := files.Write(ctx, cur, []workspace.Change{{Start: at, End: at, NewText: block}},
		workspace.Meta{Label: "Insert Passepartout's answer"}); err != nil {
		return nil, fmt.Errorf("inserting the answer into %s: %w", filepath.Base(f.path), err)
	}
	first := org.Lines.Line(at)
	if strings.HasPrefix(block, "\n") {
		first++
	}
	where := "disk"
	if cur.Open {
		where = "buffer"
	}
	return insertedAnswer{URI: string(f.uri), Line: first, EndLine: first + strings.Count(strings.TrimPrefix(block, "\n"), "\n") - 1, Where: where}, nil
}

// answerBlock is where the answer goes for a cursor at off, and the text
// inserted there: a quote block on the lines below the cursor's line, or
// below a headline's planning line and property drawer when the cursor is
// on those.
func answerBlock(org *orgast.File, off int, answer string) (int, string) {
	src := org.Src
	at := orgtext.NextLine(src, off)
	if hi := org.NodeAt(off); hi >= 0 {
		h := &org.Headlines[hi]
		if body := orgtext.BodyStart(src, h); off < body {
			at = body
		}
	}
	block := "#+begin_quote\n" + orgtext.Paragraph(answer) + "#+end_quote\n"
	if at > 0 && src[at-1] != '\n' {
		block = "\n" + block
	}
	return at, block
}
