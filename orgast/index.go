package orgast

import (
	"bytes"
	"sort"
	"strings"
)

// endIndex lists the lines that can close a block, a drawer or a LaTeX
// environment. org-element searches forward for the closing line each time
// it meets an opening one; looking the line up here instead keeps a file
// full of unclosed openings linear, not quadratic.
type endIndex struct {
	blocks  map[string][]int // "#+END" + rest: upper-cased rest → line starts
	drawers []int            // ":END:" lines
	latex   map[string][]int // lines ending in "\end{NAME}": upper NAME → line starts
}

// index returns the end-line index, building it on first use. It looks
// only at the places that can hold a closing line ("#+", ":", "\\"), not at
// every line.
func (p *parser) index() *endIndex {
	if p.ends != nil {
		return p.ends
	}
	ix := &endIndex{blocks: map[string][]int{}, latex: map[string][]int{}}
	t, w := p.t, p.t[p.lo:p.hi]
	// lineStart returns the start of the line holding x when only blanks
	// precede x on it, else -1.
	lineStart := func(x int) int {
		b := p.skipSpTabBack(x, p.lo)
		if b == p.lo || t[b-1] == '\n' {
			return b
		}
		return -1
	}
	// "#+END…" lines close blocks: the rest of the line names which.
	for i := 0; ; {
		k := bytes.Index(w[i:], []byte("#+"))
		if k < 0 {
			break
		}
		x := p.lo + i + k
		i += k + 2
		if !p.at(x+2, "END") {
			continue
		}
		if b := lineStart(x); b >= 0 {
			j := p.skipSpTabBack(p.eol(x), x)
			key := strings.ToUpper(string(t[x+5 : max(j, x+5)]))
			ix.blocks[key] = append(ix.blocks[key], b)
		}
	}
	// ":END:" lines close drawers.
	for i := 0; ; {
		k := bytes.IndexByte(w[i:], ':')
		if k < 0 {
			break
		}
		x := p.lo + i + k
		i += k + 1
		if !p.at(x, ":END:") {
			continue
		}
		if e := p.eol(x); p.skipSpTab(x+5, e) == e {
			if b := lineStart(x); b >= 0 {
				ix.drawers = append(ix.drawers, b)
			}
		}
	}
	// Lines ending in "\end{NAME}" close LaTeX environments.
	for i := 0; ; {
		k := bytes.IndexByte(w[i:], '\\')
		if k < 0 {
			break
		}
		x := p.lo + i + k
		i += k + 1
		if !p.at(x, `\end{`) {
			continue
		}
		e := p.eol(x)
		c := bytes.IndexByte(t[x+5:e], '}')
		if c < 0 || p.skipSpTab(x+5+c+1, e) != e {
			continue
		}
		key := strings.ToUpper(string(t[x+5 : x+5+c]))
		ix.latex[key] = append(ix.latex[key], p.bol(x))
	}
	p.ends = ix
	return ix
}

// firstLine returns the first line start in lines that is >= from and whose
// line ends by limit (a regexp search bounded by limit), or -1.
func (p *parser) firstLine(lines []int, from, limit int) int {
	k := sort.SearchInts(lines, from)
	if k == len(lines) || p.eol(lines[k]) > limit {
		return -1
	}
	return lines[k]
}

// blockEnd finds "^[ \t]*#\+END<suffix>[ \t]*$" (suffix compared without
// case) from from, bounded by limit; it returns the line start or -1.
func (p *parser) blockEnd(suffix string, from, limit int) int {
	return p.firstLine(p.index().blocks[strings.ToUpper(suffix)], from, limit)
}

// drawerEnd finds "^[ \t]*:END:[ \t]*$" after from, bounded by limit.
func (p *parser) drawerEnd(from, limit int) int {
	return p.firstLine(p.index().drawers, from, limit)
}

// latexEnd finds "\end{NAME}[ \t]*$" from from, bounded by limit; it
// returns the start of its line or -1.
func (p *parser) latexEnd(name string, from, limit int) int {
	return p.firstLine(p.index().latex[strings.ToUpper(name)], from, limit)
}
