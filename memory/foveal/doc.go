// Package foveal renders the foveal-peripheral context of DESIGN §5: what
// a language model sees of the memex from the user's cursor, as Org text,
// within a hard token budget.
//
// Invariant: a view is a pure function of the snapshot, the cursor and the
// options — the same memex and cursor give the same bytes — and it never
// holds more than its budget of tokens (CountTokens), never shows a
// private node or anything of one (not its title, not a count that
// includes it), and is Org that orgast reads back as the outline it was
// made from. Every public node left out is counted in exactly one "[… N
// more]" line (except in the degenerate view of a budget too small for
// the foveal node's frame; see Cutting).
//
// # The view
//
// Each file is a level-1 headline (its #+TITLE: or file name, its
// #+FILETAGS: as tags, its file-level drawer and a :FILE: property with
// its path relative to the first root, which the model's file tools
// take); a headline of level L follows with L+1 stars, with its TODO
// keyword, priority and own tags. Nodes appear in memex order (files by
// root and path, headlines in document order). When the shown headlines
// use TODO keywords other than TODO and DONE, a #+TODO: line comes first
// so that they read as keywords again.
//
// What a node shows depends on the first of these rules that holds for
// it, and when the budget forces a choice, a rule higher in the list wins:
//
//  1. The foveal node (the innermost headline holding the cursor line, or
//     the file node before the first headline): headline, planning line,
//     properties (with :FOVEAL: t), body and every public descendant in
//     full — framed by its file's headline with :FILE: and its ancestors'
//     headlines, which come first.
//  2. Its ancestors: headline and properties.
//  3. Related nodes: the DefaultNeighbours nodes whose embeddings are
//     nearest the foveal node's, at or above the threshold (cosine,
//     CONTEXT_SEMANTIC_THRESHOLD): headline, planning, properties with
//     :SEMANTIC_SCORE: 0.NN, and the body — the part of it the embedding
//     was computed from (NeighbourBodyBytes), and at most an even share of
//     what is left of the budget (but at least 64 tokens), so one long
//     note cannot crowd out the others. The headlines above a related node
//     come with it, as in rule 5.
//  4. Files and their top-level headlines (depth ≤ 2 in the view):
//     headline and properties.
//  5. Every other public node: its headline, and its :ID: drawer when it
//     has an :ID:.
//
// Within rules 4 and 5 nodes are taken nearest first, by outline distance
// from the foveal node in the tree of roots, folders, files and headlines
// (ties in memex order; without a cursor, from the top). The first node
// that does not fit ends the view, as does a foveal node that had to be
// cut: a node is never shown in place of a higher rule's or a nearer one. What is left out is folded: under each
// shown node whose public descendants are not all shown, one line
// "[… N more headlines]" right after its own text (Org keeps text after a
// child headline with the child), and at the top "[… F more files, H more
// headlines]". The budget pays for those lines first.
//
// Synthetic IDs (memory.Node.SyntheticKey) are not shown. They are never
// written to the user's files, memory_edit finds nodes by their real :ID:
// only, and they hold the absolute path of the file — tokens spent on a
// handle the model cannot use, and the user's home folder sent to a
// provider. A node without an :ID: is named by its file's :FILE: and its
// outline path, which the view shows. The JSON (View.Foveal.ID,
// View.Semantic) uses memory.Node.Key, synthetic or not, for tools.
//
// # Privacy
//
// A node is private when it or an ancestor carries one of the memex's
// privacy tags (memory.Options.PrivacyTags, default @personal and private;
// #+FILETAGS: included), as memory.Node.Private says. Private nodes are
// never shown, never related (they have no embedding), and not counted in
// any fold line: a count next to a visible parent would say that
// something is hidden there. Only View.Nodes.Private, which the model
// never sees, counts them. With the cursor on a private node there is no
// foveal node: the view is the outline, nearest that place first.
//
// # Cutting
//
// When the foveal subtree does not fit, it is cut at the line where the
// budget ends, that line shortened with "…" when part of it fits, and
// "[… N more lines, M more headlines]" follows; a headline line, a
// planning line and a drawer are each shown whole or not at all. A related node's body is cut the same
// way ("[… N more lines]"). When not even the foveal node's file and
// ancestor headlines fit beside its headline, the view is that headline
// alone (its title cut when needed) and the count of what is left of its
// subtree.
//
// # Bodies
//
// Bodies are shown as written, with line ends made LF, blank lines at
// either end dropped, and keyword lines that change how a whole file
// parses (#+TODO:, #+SEQ_TODO:, #+TYP_TODO:, #+STARTUP:, #+LINK:) turned
// into comments ("# #+STARTUP: odd"), so that one file's settings never
// change how the rest of the view reads.
//
// # Cost
//
// A Renderer caches per snapshot what is the same for every cursor (file
// order, folders, each file's and each subtree's counts and full size, so
// FullTokens is counted once per file version, and a new snapshot after
// an edit re-counts the edited file only), and a view then costs what it
// shows: the related nodes' search, a walk outwards from the cursor that
// stops where the budget ends, and of a foveal subtree too large for the
// budget only the part that is shown.
package foveal
