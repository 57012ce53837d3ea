package gates

import (
	"path/filepath"

	"pp-lsp/internal/editorcode"
)

// A file's own text can make the editor that opens it run code: an Emacs
// -*- line or Local Variables list with eval:, a Vim modeline, Org's
// #+BIND:, a #+SETUPFILE: from outside the roots, a #+CALL:, header
// arguments that run on export, an elisp: link. The server breaks every
// such form in the text it writes itself (server/internal/orgtext.Defuse);
// a model's proposed text is judged by the same table
// (internal/editorcode): what the table's allow-lists do not know to be
// inert is never written without a human.

// editorCodeAsk says why a content argument may make the editor run code
// or take settings when the file it is written into is opened, if it may.
// A path a #+SETUPFILE: or #+INCLUDE: names is located from the folder of
// the file written (file_write) or of the node's file (memory_edit).
func (e *Env) editorCodeAsk(a Action, g arg) (string, bool) {
	content := a.Arg(g.name)
	if content == "" {
		return "", false
	}
	dir := ""
	if p, ok := g.with(a, RoleWritePath); ok {
		if l := e.locate(p, "."); l.abs != "" {
			dir = filepath.Dir(l.abs)
		}
	} else if id, ok := g.with(a, RoleNodeID); ok && e.world.Memex != nil {
		if file, ok := e.world.Memex.FileOfID(id); ok {
			dir = filepath.Dir(file)
		}
	}
	return e.editorCodeIn(content, dir, "the "+g.name)
}

// editorCodeIn judges text bound for a file in the folder dir ("": not
// known), named what in the reason.
func (e *Env) editorCodeIn(text, dir, what string) (string, bool) {
	inside := func(p string) bool {
		return dir != "" && e.locate(p, dir).class == pathInside
	}
	f, found := editorcode.Judge(text, inside)
	if !found {
		return "", false
	}
	return what + " carries " + f.Reason() + ": opened in Emacs or Neovim it may run code or change settings, so a human reads it first", true
}
