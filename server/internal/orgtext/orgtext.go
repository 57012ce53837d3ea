// Package orgtext writes text that the server puts into Org files (Flight
// Plans, the journal, answers) so that Org reads it back as the text it is:
// a headline title that stays one title, block contents that cannot end the
// block or start a headline, paragraphs that cannot turn into keywords,
// drawers or comments, and no line an editor reads as its own settings
// (Defuse). It also finds where such text goes (a node's body, the end of
// its content).
//
// Invariant: whatever string comes in — a model's explanation, a command's
// output — what comes out adds no structure to the file: no headline, no
// keyword, no drawer, no block end, no tags, no file-local settings for
// the editor that opens the file (Title, Paragraph and Defuse; DefuseJSON
// and JSONBlock for JSON, which they keep the same value — the action blocks are read
// back and hashed; Block alone keeps its text byte for byte, and is used
// only on text Defused first); and it
// changes nothing of how the rest of the file decodes (no NUL, no byte
// that is not UTF-8, no line end but "\n", which the file's own
// convention replaces).
package orgtext

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"pp-lsp/internal/editorcode"
)

// Title makes s one headline title of at most max runes: whitespace runs
// (newlines included) become one space, control characters are dropped, a
// longer text ends with "…", and a last word Org would read as tags
// (:a:b:) is wrapped in =…= so that it stays part of the title.
func Title(s string, max int) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsControl(r) || r == utf8.RuneError:
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	t := b.String()
	if max > 1 && utf8.RuneCountInString(t) > max {
		rs := []rune(t)
		t = strings.TrimRight(string(rs[:max-1]), " ") + "…"
	}
	if i := strings.LastIndexByte(t, ' '); reTags.MatchString(t[i+1:]) {
		t = t[:i+1] + "=" + t[i+1:] + "="
	}
	return Defuse(t)
}

// reFileLocal finds what makes an editor take settings from the text of
// the file it opens, and the Org links a click would run: the markers of
// editorcode's table (editorcode.Markers), the one list the gates judge a
// model's proposed text by — Emacs's "Local Variables:" list and its
// "-*- … -*-" first line, Vim's and Neovim's modelines, a bracket or angle
// link ("[[TYPE:…]]", "<TYPE:…>") whose type is not one of
// editorcode.LinkTypes, and the plain links of the types Org runs
// ("elisp:", "shell:", "eshell:") or hands to the system ("file+sys:"),
// and an inline code block or call ("src_sh{…}", "call_f()"), which
// export runs.
// Org's keywords that run code (#+BIND:, #+CALL:, header arguments) are
// kept from being keywords by Paragraph's comma and Block's escaping.
var reFileLocal = regexp.MustCompile(`(?im)` + editorcode.Markers())

// Defuse returns s with every file-local settings marker and every link
// that would run something (reFileLocal) broken by a zero-width space
// (before its last character; a link's also after its first bracket, so
// that it is no link at all and shows the code it holds), so that text a
// model or a command wrote cannot set variables, run code or change
// options in the editor that opens the file it was written into, nor be a
// link that runs code when the person clicks it: "Local Variables:"
// becomes "Local Variables\u200b:", "vim:" "vim\u200b:", "-*-"
// "-*\u200b-", "[[elisp:(…)][click]]" "[\u200b[elisp\u200b:(…)][click]]",
// which Org shows as the text it is. It reads the same, and defusing again
// changes nothing.
func Defuse(s string) string {
	return breakMarkers(s, func(r rune) string { return "\u200b" + string(r) })
}

// DefuseJSON is Defuse for JSON text (a plan's action block, which must
// decode to exactly the action filed): the character Defuse would break
// is written as its JSON escape instead — "vim\u003a", "-*\u002d",
// "[\u005belisp\u003a", "<\u0073hell\u003a", "src_sh\u007b" — so that
// the text decodes to the same strings and holds no marker. In JSON every
// marker is inside a string (outside them are only punctuation, numbers
// and true/false/null), where the escape is valid.
func DefuseJSON(s string) string {
	return breakMarkers(s, func(r rune) string { return fmt.Sprintf(`\u%04x`, r) })
}

// JSONBlock returns js, JSON text, DefuseJSON, as a #+begin_src json
// block (Block).
func JSONBlock(js string) string {
	return "#+begin_src json\n" + Block(DefuseJSON(js)) + "#+end_src\n"
}

// breakMarkers returns s with each marker reFileLocal finds broken at one
// character — a link's second and last (its opening, its type's colon),
// any other's last colon, or its last character — by brk, which returns
// what the character becomes. A link of a type known to be inert
// (editorcode.LinkTypes) stays.
func breakMarkers(s string, brk func(rune) string) string {
	if !strings.ContainsAny(s, ":_") && !strings.Contains(s, "-*-") {
		return s // every marker holds a colon, "-*-", or an inline block's "_"
	}
	return reFileLocal.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "[[") || strings.HasPrefix(m, "<") {
			typ := strings.TrimLeft(m[:len(m)-1], "[<")
			if editorcode.LinkTypes[strings.ToLower(typ)] {
				return m
			}
			r, n := utf8.DecodeRuneInString(m[1:])
			return m[:1] + brk(r) + m[1+n:len(m)-1] + brk(':')
		}
		i := strings.LastIndexByte(m, ':')
		if i < 0 {
			_, n := utf8.DecodeLastRuneInString(m)
			i = len(m) - n
		}
		r, n := utf8.DecodeRuneInString(m[i:])
		return m[:i] + brk(r) + m[i+n:]
	})
}

// reTags is what org-element reads as a headline's tags at the end of its
// title: colon-separated words of letters, digits, _ @ # %.
var reTags = regexp.MustCompile(`^:([\p{L}\p{N}_@#%]+:)+$`)

// reBlockEscape finds the lines org-escape-code-in-string escapes: those
// starting (after blanks and any commas) with "*" or "#+".
var reBlockEscape = regexp.MustCompile(`(?m)^([ \t]*)(,*(?:\*|#\+))`)

// reBlockUnescape is org-unescape-code-in-string: one comma goes.
var reBlockUnescape = regexp.MustCompile(`(?m)^([ \t]*,*),((?:\*|#\+))`)

// Plain returns s as text that decodes the same in whichever Org file it
// is written into, so that the file around it does too: a byte that is not
// UTF-8 becomes U+FFFD and a NUL becomes U+2400 (␀) — Emacs reads a file
// holding either as Latin-1, raw bytes or binary, its other lines with it,
// and binary with no line-end conversion at all — and "\r\n" or a lone
// "\r" becomes "\n": in a file whose lines end in CR (the old Mac way) a
// lone CR starts a line that Block and Paragraph, which read lines by
// "\n", never escaped. Text with none of these is returned as it is.
func Plain(s string) string {
	if !strings.ContainsAny(s, "\x00\r") && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r == 0:
			b.WriteRune('\u2400')
		case r == '\r':
			b.WriteByte('\n')
			if i+1 < len(s) && s[i+1] == '\n' {
				n++
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Block returns s escaped for the inside of a src or example block, as Org
// does it (a comma before a line that starts with "*" or "#+", so that no
// line can be a headline or end the block), ending with a newline. The
// text is Plain first.
func Block(s string) string {
	s = Plain(s)
	if strings.Contains(s, "*") || strings.Contains(s, "#+") {
		s = reBlockEscape.ReplaceAllString(s, "$1,$2")
	}
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// Unblock reverses Block for text read from a block (the trailing newline
// is kept as it is).
func Unblock(s string) string {
	if !strings.Contains(s, ",*") && !strings.Contains(s, ",#+") {
		return s
	}
	return reBlockUnescape.ReplaceAllString(s, "$1$2")
}

// Paragraph returns s as body text: every line that Org could read as
// structure — a headline, a keyword, a comment, a drawer line, a block
// delimiter, a table or a fixed-width line — gets a leading comma; the text
// ends with a newline. Blank lines are kept: they separate paragraphs.
// The text is Plain and Defuse first.
func Paragraph(s string) string {
	lines := strings.Split(strings.TrimRight(Defuse(Plain(s)), "\n"), "\n")
	for i, l := range lines {
		t := strings.TrimLeft(l, " \t")
		if t != "" && strings.ContainsRune("*#:|,", rune(t[0])) {
			l = "," + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n") + "\n"
}

// Inactive is t as an Org inactive timestamp, [2026-11-21 Sat 20:40], in
// t's own location.
func Inactive(t time.Time) string {
	return t.Format("[2006-01-02 Mon 15:04]")
}

// LinkPath escapes p for the path of an Org link, [[file:PATH]], as Org
// does (org-link-escape): a backslash or a bracket gets a backslash.
func LinkPath(p string) string { return linkPathEscaper.Replace(p) }

var linkPathEscaper = strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`)

// Inline makes s safe inside `…` in a title: backticks become quotes.
func Inline(s string) string {
	return strings.ReplaceAll(s, "`", "'")
}
