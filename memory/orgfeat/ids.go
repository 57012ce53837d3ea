package orgfeat

import (
	"strings"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// AddID is the edit that gives headline h of org (-1: the file) the :ID:
// id, as org-id writes it: a line in its property drawer, or a new drawer
// where Org looks for one (after the headline and its planning line; at
// the top of the file for the file's own), with the file's line ends and
// the indentation of the planning line or drawer it joins. ok is false
// when the node has an ID already, or h is no headline of org.
func AddID(org *orgast.File, h int, id string) (_ memory.TextEdit, ok bool) {
	if h < -1 || h >= len(org.Headlines) {
		return memory.TextEdit{}, false
	}
	src := org.Src
	nl := "\n"
	switch org.EOL() {
	case orgast.EOLDOS:
		nl = "\r\n"
	case orgast.EOLMac:
		nl = "\r"
	}
	line := func(indent string) string { return indent + ":ID:       " + id + nl }
	insert := func(at int, text string) (memory.TextEdit, bool) {
		return memory.TextEdit{Start: at, End: at, Text: text}, true
	}
	var drawer *orgast.Drawer
	if h >= 0 {
		drawer = org.Headlines[h].Drawer
	} else {
		drawer = org.FileDrawer
	}
	if drawer != nil {
		if v, ok := drawer.Get("ID"); ok && v != "" {
			return memory.TextEdit{}, false
		}
		first := org.Lines.LineRange(org.Lines.Line(drawer.Range.Start))
		return insert(lineAfter(org, first.End), line(leadingBlanks(src[first.Start:first.End])))
	}
	if h < 0 {
		return insert(0, ":PROPERTIES:"+nl+line("")+":END:"+nl)
	}
	hd := &org.Headlines[h]
	at, indent := hd.Line.End, drawerIndent(org, hd)
	if hd.Planning().Range.End > 0 {
		at = hd.Planning().Range.End
		pl := org.Lines.LineRange(org.Lines.Line(hd.Planning().Range.Start))
		indent = leadingBlanks(src[pl.Start:pl.End])
	}
	start := lineAfter(org, at)
	text := indent + ":PROPERTIES:" + nl + line(indent) + indent + ":END:" + nl
	// At the end of a file whose last line has no line end (of the file's
	// kind: a lone CR in a file of LF lines is a character), the drawer
	// starts a line of its own.
	if start == len(src) && (len(src) == 0 || src[len(src)-1] != nl[len(nl)-1]) {
		text = nl + strings.TrimSuffix(text, nl)
	}
	return insert(start, text)
}

// drawerIndent is how a new drawer under hd is indented, following the
// file's own drawers: as the first headline drawer (or, in a file with
// none, the first planning line) is — at column 0, by a fixed string, or (as
// org-adapt-indentation writes them) one column past its stars.
func drawerIndent(org *orgast.File, hd *orgast.Headline) string {
	for _, planning := range []bool{false, true} {
		for i := range org.Headlines {
			o := &org.Headlines[i]
			r := o.Planning().Range
			switch {
			case !planning && o.Drawer != nil:
				r = o.Drawer.Range
			case !planning || r.End == 0:
				continue
			}
			lr := org.Lines.LineRange(org.Lines.Line(r.Start))
			w := leadingBlanks(org.Src[lr.Start:lr.End])
			if w != "" && w == strings.Repeat(" ", o.Stars+1) {
				return strings.Repeat(" ", hd.Stars+1)
			}
			return w
		}
	}
	return ""
}

// lineAfter is the start of the line after the one holding off (the end
// of the file after the last line).
func lineAfter(org *orgast.File, off int) int {
	return org.Lines.LineRange(org.Lines.Line(off) + 1).Start
}

func leadingBlanks(b []byte) string {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return string(b[:i])
}
