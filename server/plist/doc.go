// Package plist reads and prints the property lists of the framed-TCP wire
// protocol (DESIGN §9) and of the plist form of an action (DESIGN §6).
//
// Invariant: reading never evaluates anything and never panics. Any byte
// sequence either yields one value or an error naming the byte offset at
// fault, within configurable bounds on size, nesting, element count and
// string length. What Marshal writes, Emacs's `read` and a Common Lisp reader
// both read back to the value printed, and so does Read.
//
// # The grammar read
//
// The reader follows Emacs 28's lread.c, checked against the real `emacs
// --batch` (see emacs_test.go), restricted to the subset the protocol needs:
//
//   - Whitespace is every byte up to and including space (control characters
//     included, as in Emacs) and U+00A0 NO-BREAK SPACE. A `;` starts a comment
//     that runs to the end of the line; comments are whitespace, as for Emacs's
//     `read`.
//   - Lists: `(` values `)`. The empty list `()` is nil. A lone `.` (a dotted
//     pair) is an error.
//   - Strings: `"…"`. A backslash escape reads as Emacs reads it: `\a` 7, `\b` 8,
//     `\t` 9, `\n` 10, `\v` 11, `\f` 12, `\r` 13, `\e` 27, `\s` space, `\d` 127;
//     `\uXXXX` (exactly 4 hex digits), `\U00XXXXXX` (exactly 8), `\N{U+X…}`;
//     `\xH…` (one or more hex digits, any count) and `\O`, `\OO`, `\OOO` (octal);
//     backslash-newline and backslash-space are dropped; a backslash before any
//     other character stands for that character (`\"`, `\\`, `\q` → q).
//     Escapes Emacs would turn into raw bytes (`\x80`…`\xFF`, `\200`…`\377`),
//     surrogates, code points above U+10FFFF, `\x` without digits, modifier
//     escapes (`\C-`, `\^`, `\M-`, `\S-`, `\H-`, `\A-`) and named characters
//     (`\N{NAME}`) are errors: a string read is always valid UTF-8, and these
//     have no single meaning outside Emacs.
//   - Numbers, exactly Emacs's string_to_number in base 10: an integer is
//     `[+-]?D+` with an optional trailing `.` (`1.` is the integer 1); a float
//     has digits after the point or an exponent after digits (`1.5`, `.5`,
//     `1e3`, `1.e3`), and `1.0e+INF`, `-1.0e+INF`, `0.0e+NaN` are the
//     infinities and NaN (a NaN's payload is dropped). Integers of any size are
//     read: int64 when they fit, *big.Int otherwise.
//   - Keywords: a symbol whose name starts with `:`. They compare
//     case-insensitively, so the reader folds them to upper case: `:type` reads
//     as Keyword("TYPE"). `:` alone is an error.
//   - `t` reads as true, `nil` and `()` as nil; every other token is a Symbol.
//     A backslash in a symbol takes the next character literally and makes the
//     token a symbol even if it looks like a number (`\1`).
//   - `#` (all of its syntaxes: `#.`, `#'`, `#(`, `#s`, `#x`…), quote `'`,
//     backquote, comma, `?` character syntax and `[` `]` vectors are errors.
//
// The reader is stricter than Emacs in the cases listed, never looser: a text
// it accepts, Emacs reads to the same value.
//
// # Values
//
// Read yields string, int64, *big.Int, float64, true, nil, Keyword, Symbol and
// List. AsPlist views a list as a Plist (ordered key/value pairs); ToGo turns a
// value into plain Go values (keywords and symbols become strings, plists
// become Plist with converted values, other lists []any); Plist.Map gives the
// map[string]any view. Marshal accepts those and the usual Go values.
//
// # Printing for two readers
//
// Marshal and Append write single spaces between elements and no line breaks
// outside strings: keywords upper-case, strings with only `"` and `\`
// escaped (newlines and UTF-8 written raw), floats always with a decimal
// point, and symbols with every character escaped that either reader would
// treat specially — including lower-case letters, which a Common Lisp reader
// would otherwise fold to upper case, and all non-ASCII characters, which it
// may fold or normalise (SBCL applies NFKC). Two limits of Common Lisp
// remain: it reads floats as single-floats unless *read-default-float-format*
// is double-float, and it has no syntax for infinities and NaN (Marshal
// writes Emacs's).
// The symbols T and NIL are ordinary symbols in Emacs but the booleans in
// Common Lisp.
package plist
