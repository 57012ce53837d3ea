package memory

import "strings"

// ServerFiles are the server's own files at the top of each root (DESIGN
// §8): the Flight Plans and the audit journal. Completion, symbols and
// search never offer them (DESIGN §14) and no view shows them to a model:
// the journal holds what every front end was asked and did.
// server/protect.Names is the same list.
func ServerFiles() []string { return []string{"flightplans.org", "journal.org"} }

// InServerFile reports whether n is in one of ServerFiles at the top of
// its root (its name compared without case, as the protected places are).
// A file of that name deeper in a root is a note like any other.
func (n Node) InServerFile() bool { return n.Valid() && n.f.serverFile() }

// serverFile reports whether f is one of ServerFiles at the top of its
// root. Their nodes are never embedded: the journal grows by an entry at
// every call and action, and would otherwise dirty the vector store (a
// rewrite of every vector at each save) and fill the neighbour search.
func (f *fileIndex) serverFile() bool {
	if f.root < 0 || strings.Contains(f.rel, "/") {
		return false
	}
	for _, name := range ServerFiles() {
		if strings.EqualFold(f.rel, name) {
			return true
		}
	}
	return false
}
