// Package protname is the one table of the names under a root that run
// code or steer tools and the agent (DESIGN §8's protected places by
// name): git's and the editors' folders, direnv's and the editors'
// per-folder files, the git hook managers' configuration, and the two
// files only a human changes. The gates refuse a write of any of them
// (gates.protectedRel reads Rel); the sandbox keeps every one that exists
// in the roots unwritable, and looks after a run for one made anew
// (server/actuate/sandbox reads Table and Match).
//
// Invariant: names compare without regard to case (on a file system that
// ignores it, FlightPlans.ORG is flightplans.org); pure — no file is read.
package protname

import "strings"

// Kind is where in a path an entry's name protects.
type Kind int

const (
	// Folder: a path segment of that name, at any depth, and everything
	// below it.
	Folder Kind = iota
	// Last: the last segment of a path, at any depth.
	Last
	// Top: the whole root-relative path (the root's own files).
	Top
)

// Entry is one row of the table.
type Entry struct {
	Name string
	Kind Kind
	// Why completes "REL …" in a refusal.
	Why string
	// Sandbox, for a Folder, lists the entries below it the sandbox keeps
	// unwritable when the folder exists; nil is the folder whole. (git
	// writes .git itself on every commit: only what runs code or steers
	// git is kept.)
	Sandbox []string
}

const (
	whyGit    = "configures git or the editor (hooks and config run code)"
	whyHusky  = "is a git hook run at the user's next commit"
	whyFolder = "runs code or sets variables when a tool enters the folder"
	whyHooks  = "lists commands a git hook runs at the user's next commit"
	whyHuman  = "is changed only by a human (Flight Plans and the audit journal)"
)

// Table is the table.
var Table = []Entry{
	// git-config(1) core.hooksPath, core.fsmonitor, core.sshCommand…;
	// githooks(5). A .git file (a worktree's "gitdir:") redirects git.
	{Name: ".git", Kind: Folder, Why: whyGit, Sandbox: []string{"hooks", "config"}},
	// VS Code's tasks.json and settings.json run and steer programs.
	{Name: ".vscode", Kind: Folder, Why: whyGit},
	// husky's hooks (core.hooksPath=.husky/_): run by the user's next git
	// commit, outside any sandbox, as .git/hooks are.
	{Name: ".husky", Kind: Folder, Why: whyHusky},
	// Emacs manual "Directory Variables"; direnv(1); Neovim 'exrc'
	// (.nvim.lua, .nvimrc, .exrc); Vim 'exrc' (.vimrc, .exrc); dotenv.
	{Name: ".dir-locals.el", Kind: Last, Why: whyFolder},
	{Name: ".dir-locals-2.el", Kind: Last, Why: whyFolder},
	{Name: ".envrc", Kind: Last, Why: whyFolder},
	{Name: ".nvim.lua", Kind: Last, Why: whyFolder},
	{Name: ".nvimrc", Kind: Last, Why: whyFolder},
	{Name: ".exrc", Kind: Last, Why: whyFolder},
	{Name: ".vimrc", Kind: Last, Why: whyFolder},
	{Name: ".env", Kind: Last, Why: whyFolder},
	// The hook managers' configuration (pre-commit, lefthook): the
	// commands each lists run at the user's next git commit.
	{Name: ".pre-commit-config.yaml", Kind: Last, Why: whyHooks},
	{Name: "lefthook.yml", Kind: Last, Why: whyHooks},
	{Name: "lefthook.yaml", Kind: Last, Why: whyHooks},
	{Name: ".lefthook.yml", Kind: Last, Why: whyHooks},
	{Name: ".lefthook.yaml", Kind: Last, Why: whyHooks},
	{Name: "lefthook-local.yml", Kind: Last, Why: whyHooks},
	{Name: "lefthook-local.yaml", Kind: Last, Why: whyHooks},
	{Name: ".lefthook-local.yml", Kind: Last, Why: whyHooks},
	{Name: ".lefthook-local.yaml", Kind: Last, Why: whyHooks},
	// DESIGN §8: the Flight Plans and the journal at a root's top.
	{Name: "flightplans.org", Kind: Top, Why: whyHuman},
	{Name: "journal.org", Kind: Top, Why: whyHuman},
}

// Match returns the entry a name is, as an entry of a folder at the
// given depth below a root (0: the root's own entries), if any.
func Match(name string, depth int) (*Entry, bool) {
	if name == "" || !firstBytes[lower(name[0])] {
		return nil, false // no name of the table starts so
	}
	for i := range Table {
		e := &Table[i]
		if strings.EqualFold(name, e.Name) && (e.Kind != Top || depth == 0) {
			return e, true
		}
	}
	return nil, false
}

// firstBytes are the lower-cased first bytes of the table's names:
// Match's quick refusal of every other name, derived so that a new entry
// is never refused by it.
var firstBytes = func() (set [256]bool) {
	for _, e := range Table {
		set[lower(e.Name[0])] = true
	}
	return set
}()

// lower lower-cases an ASCII letter.
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Rel says whether a root-relative, slash-separated, clean path is a
// protected place, and why: "REL " + the entry's Why.
func Rel(rel string) (string, bool) {
	var last string
	for rest := rel; ; {
		seg, after, more := strings.Cut(rest, "/")
		for i := range Table {
			if e := &Table[i]; e.Kind == Folder && strings.EqualFold(seg, e.Name) {
				return rel + " " + e.Why, true
			}
		}
		if !more {
			last = seg
			break
		}
		rest = after
	}
	for i := range Table {
		e := &Table[i]
		if e.Kind == Last && strings.EqualFold(last, e.Name) || e.Kind == Top && strings.EqualFold(rel, e.Name) {
			return rel + " " + e.Why, true
		}
	}
	return "", false
}
