package foveal

import "errors"

// View is one rendered context and its figures: what `pp-lsp context
// --json` prints (DESIGN §5), and what the language server's
// passepartout.context command answers.
type View struct {
	// Foveal is the node at the cursor (zero without a cursor; id and
	// title empty when that node is private).
	Foveal Foveal `json:"foveal"`
	// Text is the Org rendering the model sees.
	Text string `json:"text"`
	// Tokens is CountTokens(Text); never more than Budget.
	Tokens int `json:"tokens"`
	// Budget is the budget the view was rendered in.
	Budget int `json:"budget"`
	// FullTokens is the whole memex serialised (every public node with its
	// title, planning, properties and body) and counted the same way:
	// what the model would be sent without the foveal-peripheral view.
	FullTokens int `json:"full_tokens"`
	// Nodes counts every node of the memex by how it was shown.
	Nodes NodeCounts `json:"nodes"`
	// Semantic are the related nodes shown, most similar first.
	Semantic []Related `json:"semantic"`
}

// Foveal names the node at the cursor.
type Foveal struct {
	// ID is the node's Key: its :ID:, or its synthetic key.
	ID string `json:"id"`
	// File is the absolute path of its file.
	File string `json:"file"`
	// Line is the 1-based line its headline is on (1 for a file node).
	Line  int    `json:"line"`
	Title string `json:"title"`
}

// NodeCounts sort every node of the memex by how a view shows it; they
// add up to the number of nodes.
type NodeCounts struct {
	// Full: shown with their bodies (the foveal node, its descendants and
	// the related nodes).
	Full int `json:"full"`
	// Outline: title and properties (the ancestors, files and top-level
	// headlines).
	Outline int `json:"outline"`
	// TitleOnly: a headline line, with the :ID: drawer when there is one.
	TitleOnly int `json:"title_only"`
	// Folded: public nodes left out, each counted in one "[… N more]" line.
	Folded int `json:"folded"`
	// Private: nodes carrying a privacy tag, themselves or by inheritance;
	// never shown, never counted in the text.
	Private int `json:"private"`
}

// Related is a node shown because it is similar to the foveal node.
type Related struct {
	// ID is the node's Key.
	ID string `json:"id"`
	// Score is the cosine similarity, rounded to two decimals as the
	// :SEMANTIC_SCORE: property shows it.
	Score float64 `json:"score"`
}

// ErrLine is wrapped by the error for a cursor line past the end of its
// file. A path that is not a file of the memex gives an error wrapping
// memory.ErrNotInMemex.
var ErrLine = errors.New("line past the end of the file")
