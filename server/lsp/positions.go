package lsp

import (
	"go.lsp.dev/protocol"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// Positions on the wire are 0-based lines and UTF-16 columns (the only
// encoding every client speaks, and the one workspace edits use).
// orgast's line index converts them, counting lines and columns the way
// the editor that decoded the file does (see orgast.LineIndex).

// offsetAt is the byte offset of an LSP position in f. A position past the
// end of its line or of the file resolves to that end, as the
// specification asks.
func offsetAt(f *orgast.File, p protocol.Position) int {
	return f.Lines.OffsetUTF16(int(p.Line), int(p.Character))
}

// positionAt is the LSP position of a byte offset in f.
func positionAt(f *orgast.File, off int) protocol.Position {
	line, _, col := f.Lines.Position(off)
	return protocol.Position{Line: uint32(line), Character: uint32(col)}
}

// rangeAt is the LSP range of a byte span in f.
func rangeAt(f *orgast.File, r orgast.Range) protocol.Range {
	return protocol.Range{Start: positionAt(f, r.Start), End: positionAt(f, r.End)}
}

// lineEnd is the offset of the end of the line holding off (before its
// line end).
func lineEnd(f *orgast.File, off int) int {
	return f.Lines.LineRange(f.Lines.Line(off)).End
}

// lastLine is the line of the last byte of a span that ends at end: a span
// ending with its line end ends on that line, not the next.
func lastLine(f *orgast.File, start, end int) int {
	if end > start {
		end--
	}
	return f.Lines.Line(end)
}

// textEdit is the LSP edit of a byte-offset edit of f.
func textEdit(f *orgast.File, e memory.TextEdit) protocol.TextEdit {
	return protocol.TextEdit{Range: rangeAt(f, orgast.Range{Start: e.Start, End: e.End}), NewText: e.Text}
}
