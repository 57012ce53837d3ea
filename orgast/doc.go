// Package orgast reads the structure of an Org file the way Emacs's own
// parser, org-element (Emacs 28.2, Org 9.5.5), reads it, with exact byte
// positions: file keywords and the file-level property drawer, the TODO
// keyword sequences in effect, headlines (TODO keyword, priority, title,
// tags, COMMENT, ARCHIVE, planning, property drawer, where the subtree
// ends), links of every kind Org recognises, targets, blocks and drawers,
// the elements a #+NAME: names, and the problems an editor should
// underline.
//
// Invariant: orgast is pure. Parse maps bytes to an immutable *File and
// never touches the disk, the network or another file (#+INCLUDE and
// #+SETUPFILE are never followed); any byte sequence parses, without panic,
// in time and memory proportional to its length; and for every input the
// outline agrees with what org-outline.el prints from Emacs, field for
// field, and File.Blocks and File.Names with what org-element reads
// (testdata/org-blocks.el), except where a doc comment names the
// difference. Reparse of an edited file equals Parse of the new bytes.
//
// Entry points: Parse and Reparse make a File; File.NodeAt and
// File.NodeAtPosition find the innermost headline at a cursor; File.Lines
// converts offsets to lines and byte or UTF-16 columns; File.Blocks and
// File.Names list blocks, drawers and named elements for folding and for
// fuzzy links; Outlines renders files as `pp-lsp outline --json` prints
// them.
//
// Positions are byte offsets into the bytes given to Parse. File.Lines maps
// them to lines and to byte and UTF-16 columns, following the line-end
// convention Emacs detects (see EOL). A File's strings share the memory of
// its Src, which is why Src must never change once parsed.
//
// The character classes Org's regexps depend on (syntax classes, Unicode
// letters, scripts, word boundaries) and the entity names are generated
// from Emacs by internal/mkchartab (go generate), so that they are Emacs's,
// not Go's.
package orgast
