package foveal

import (
	"strconv"
	"strings"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// form is how much of a node a view shows; a node's form only ever grows
// while a view is chosen.
type form uint8

const (
	// formBare: the headline line alone (an ancestor of the foveal node
	// before its properties fit); a file also keeps its :FILE:.
	formBare form = iota + 1
	// formTitleID: the headline line and an :ID: drawer when the node has
	// an :ID: (rule 5, and the headlines above a related node); a file
	// also keeps its :FILE:.
	formTitleID
	// formOutline: the headline line and every property (rules 2 and 4).
	formOutline
	// formFull: headline, planning, properties and body (rules 1 and 3).
	formFull
)

// The properties a view adds to the ones a node carries.
const (
	// propFile names a file node's file, relative to the first root (the
	// model's file tools take paths relative to it).
	propFile = "FILE"
	// propFoveal marks the foveal node.
	propFoveal = "FOVEAL"
	// propScore carries a related node's similarity.
	propScore = "SEMANTIC_SCORE"
)

// extras are the view's own properties for one node, written after the
// node's own ones (a node property of the same name is left out).
type extras struct {
	file   string
	foveal bool
	score  string
}

func (e extras) shadows(key string) bool {
	return (e.file != "" && strings.EqualFold(key, propFile)) ||
		(e.foveal && strings.EqualFold(key, propFoveal)) ||
		(e.score != "" && strings.EqualFold(key, propScore))
}

// appendHeadline writes n's headline line: one star more than its level
// (files are level-1 nodes of the view), its TODO keyword, priority,
// COMMENT, title and own tags — re-spaced, so that tag alignment costs no
// tokens. A file node's own tags are its #+FILETAGS:.
func appendHeadline(dst []byte, n memory.Node) []byte {
	for range n.Level() + 1 {
		dst = append(dst, '*')
	}
	dst = append(dst, ' ')
	var tags []string
	if h := orgHeadline(n); h != nil {
		if h.Todo != "" {
			dst = append(dst, h.Todo...)
			dst = append(dst, ' ')
		}
		if h.Priority != 0 {
			dst = append(dst, "[#"...)
			dst = append(dst, string(h.Priority)...)
			dst = append(dst, "] "...)
		}
		if h.Commented {
			dst = append(dst, "COMMENT "...)
		}
		dst = appendOneLine(dst, h.Title)
		tags = h.Tags
	} else {
		dst = appendOneLine(dst, n.Title())
		tags = n.Tags()
	}
	if len(tags) > 0 {
		dst = append(dst, " :"...)
		for _, t := range tags {
			dst = append(dst, t...)
			dst = append(dst, ':')
		}
	}
	return append(dst, '\n')
}

// appendOneLine appends s with any line end replaced by a blank: a title
// or property value is one line, whatever bytes a #+TITLE: held.
func appendOneLine(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\n' || c == '\r' {
			dst = append(dst, ' ')
		} else {
			dst = append(dst, c)
		}
	}
	return dst
}

// orgHeadline is n's orgast headline, nil for a file node.
func orgHeadline(n memory.Node) *orgast.Headline {
	if i := n.Headline(); i >= 0 {
		return &n.Org().Headlines[i]
	}
	return nil
}

// appendPlanning writes n's planning line (SCHEDULED, DEADLINE, CLOSED)
// as written, without its indentation.
func appendPlanning(dst []byte, n memory.Node) []byte {
	h := orgHeadline(n)
	if h == nil || h.Planning().Range.Len() == 0 {
		return dst
	}
	line := strings.TrimSpace(string(n.Org().Src[h.Planning().Range.Start:h.Planning().Range.End]))
	if line == "" {
		return dst
	}
	dst = appendOneLine(dst, line)
	return append(dst, '\n')
}

// own says which of a node's own properties a drawer holds.
type own uint8

const (
	ownNone own = iota
	ownID
	ownAll
)

func (o own) keeps(key string) bool {
	return o == ownAll || (o == ownID && strings.EqualFold(key, "ID"))
}

// appendDrawer writes a property drawer: the node's own properties that
// o keeps, then the extras. Nothing is written when there is nothing to
// hold.
func appendDrawer(dst []byte, n memory.Node, o own, ex extras) []byte {
	props := n.Properties()
	any := ex.file != "" || ex.foveal || ex.score != ""
	for _, p := range props {
		if o.keeps(p.Key) && !ex.shadows(p.Key) {
			any = true
			break
		}
	}
	if !any {
		return dst
	}
	dst = append(dst, ":PROPERTIES:\n"...)
	for _, p := range props {
		if !o.keeps(p.Key) || ex.shadows(p.Key) {
			continue
		}
		dst = appendProperty(dst, p.Key, p.Value)
		if o == ownID {
			break
		}
	}
	if ex.file != "" {
		dst = appendProperty(dst, propFile, ex.file)
	}
	if ex.foveal {
		dst = appendProperty(dst, propFoveal, "t")
	}
	if ex.score != "" {
		dst = appendProperty(dst, propScore, ex.score)
	}
	return append(dst, ":END:\n"...)
}

func appendProperty(dst []byte, key, value string) []byte {
	dst = append(dst, ':')
	dst = append(dst, key...)
	dst = append(dst, ':')
	if value != "" {
		dst = append(dst, ' ')
		dst = appendOneLine(dst, value)
	}
	return append(dst, '\n')
}

// scoreText is a similarity as :SEMANTIC_SCORE: shows it.
func scoreText(s float32) string {
	return strconv.FormatFloat(roundScore(s), 'f', 2, 64)
}

// roundScore rounds a similarity to the two decimals a view shows.
func roundScore(s float32) float64 {
	return float64(int64(float64(s)*100+0.5)) / 100
}

// bodyLines returns n's body as the view shows it, one string per line
// (each without its line end): line ends normalised to LF, blank lines at
// both ends dropped, and the keyword lines that change how a whole file
// parses (#+TODO:, #+SEQ_TODO:, #+TYP_TODO:, #+STARTUP:, #+LINK:) turned
// into comments, so that one file's settings never change how the rest of
// the view reads. guard keeps one blank line in front when the body's
// first line would otherwise be read as the node's planning line or
// property drawer (no drawer is written before it).
func bodyLines(n memory.Node, guard bool) []string {
	body := normalizeEOL(n.Body(), n.Org().EOL())
	lines := strings.Split(body, "\n")
	start, end := 0, len(lines)
	for start < end && isBlank(lines[start]) {
		start++
	}
	for end > start && isBlank(lines[end-1]) {
		end--
	}
	lines = lines[start:end]
	for i, l := range lines {
		if isSettingLine(l) {
			lines[i] = commentOut(l)
		}
	}
	if guard && len(lines) > 0 && looksLikePlanningOrDrawer(lines[0]) {
		lines = append([]string{""}, lines...)
	}
	return lines
}

// normalizeEOL makes a file's line ends LF, as Emacs decodes them: in a
// DOS file CR LF ends a line and a lone CR is text; in a Mac file every CR
// ends a line. (A lone LF ends a line under every convention.)
func normalizeEOL(s string, eol orgast.EOL) string {
	switch eol {
	case orgast.EOLDOS:
		return strings.ReplaceAll(s, "\r\n", "\n")
	case orgast.EOLMac:
		return strings.ReplaceAll(s, "\r", "\n")
	}
	return s
}

func isBlank(s string) bool { return strings.TrimLeft(s, " \t\r") == "" }

// isSettingLine reports whether l is a keyword line that changes how a
// whole file parses (orgast reads them wherever they are).
func isSettingLine(l string) bool {
	t := strings.TrimLeft(l, " \t")
	if len(t) < 2 || t[0] != '#' || t[1] != '+' {
		return false
	}
	key, _, ok := strings.Cut(t[2:], ":")
	if !ok {
		return false
	}
	switch strings.ToUpper(key) {
	case "TODO", "SEQ_TODO", "TYP_TODO", "STARTUP", "LINK":
		return true
	}
	return false
}

// commentOut makes a line an Org comment, keeping its indentation.
func commentOut(l string) string {
	i := len(l) - len(strings.TrimLeft(l, " \t"))
	return l[:i] + "# " + l[i:]
}

func looksLikePlanningOrDrawer(l string) bool {
	t := strings.ToUpper(strings.TrimLeft(l, " \t"))
	for _, p := range [...]string{"SCHEDULED:", "DEADLINE:", "CLOSED:", ":PROPERTIES:"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// moreLine is the line that says what a view leaves out at one place:
// "[… 3 more lines]", "[… 12 more headlines]", "[… 4 more lines, 1 more
// headline]", or at the top "[… 40 more files, 700 more headlines]".
func moreLine(dst []byte, files, lines, headlines int) []byte {
	dst = append(dst, "[…"...)
	sep := " "
	for _, c := range [...]struct {
		n    int
		noun string
	}{{files, "file"}, {lines, "line"}, {headlines, "headline"}} {
		if c.n == 0 {
			continue
		}
		dst = append(dst, sep...)
		dst = strconv.AppendInt(dst, int64(c.n), 10)
		dst = append(dst, " more "...)
		dst = append(dst, c.noun...)
		if c.n != 1 {
			dst = append(dst, 's')
		}
		sep = ", "
	}
	return append(dst, "]\n"...)
}

// appendFullHeader writes a node's headline, planning line and drawer
// (its properties and ex), and reports whether a drawer was written.
func appendFullHeader(dst []byte, n memory.Node, ex extras) ([]byte, bool) {
	dst = appendHeadline(dst, n)
	dst = appendPlanning(dst, n)
	before := len(dst)
	dst = appendDrawer(dst, n, ownAll, ex)
	return dst, len(dst) > before
}

// appendFull writes a node in full form with its whole body.
func appendFull(dst []byte, n memory.Node, ex extras) []byte {
	dst, drawer := appendFullHeader(dst, n, ex)
	for _, l := range bodyLines(n, !drawer) {
		dst = append(dst, l...)
		dst = append(dst, '\n')
	}
	return dst
}
