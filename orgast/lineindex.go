package orgast

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"sort"
	"sync"
	"unicode/utf8"
)

// LineIndex maps byte offsets to lines and columns and back, each way in
// O(log n). Lines are 0-based here (LSP); the outline JSON adds 1.
//
// Lines end as the file's EOL convention says (LF; CR LF in DOS files; CR in
// Mac files); a line's content excludes its line end, so an offset inside a
// CR LF maps to the end of its line. A UTF-8 byte-order mark is invisible:
// the first line starts after it.
//
// UTF-16 columns count the characters the way the editor that decoded the
// file sees them: in a UTF-8 file each character counts its UTF-16 length
// (2 for astral-plane characters) and each byte of an invalid sequence
// counts 1, as U+FFFD or a raw byte would; in a file Emacs reads as Latin-1
// or raw bytes every byte counts 1. A UTF-16 column inside a surrogate pair
// resolves to the start of the character; a column past the end of a line
// resolves to the line's end, as the LSP specification asks.
type LineIndex struct {
	size   int
	bom    int
	crlf   bool
	starts lineStarts

	// The UTF-16 tables are built on first use: most parses never
	// convert a column.
	src      []byte
	utf8Text bool
	once     sync.Once
	runs     []u16run
	cum      []int // cum[i]: bytes saved by runs before runs[i] (UTF-8 length minus UTF-16 length)
}

// u16run is a run of consecutive multi-byte characters of the same sizes.
type u16run struct {
	start, end int
	size       int // UTF-8 bytes per character
	saved      int // size minus UTF-16 units, per character
}

// newLineIndex indexes src (the file's bytes) under eol and enc; bom is the
// length of a dropped byte-order mark.
func newLineIndex(src []byte, eol EOL, enc encoding, bom int) *LineIndex {
	li := &LineIndex{size: len(src), bom: bom, crlf: eol == EOLDOS}
	li.starts = makeLineStarts(len(src), 1+bytes.Count(src, []byte{sep(eol)}))
	li.starts.add(bom)
	for i := bom; ; {
		j := bytes.IndexByte(src[i:], sep(eol))
		if j < 0 {
			break
		}
		i += j + 1
		li.starts.add(i)
	}
	li.src, li.utf8Text = src, enc == encUTF8
	return li
}

// tables builds the UTF-16 tables once.
func (li *LineIndex) tables() {
	li.once.Do(func() {
		if li.utf8Text {
			li.indexRuns(li.src[li.bom:], li.bom)
		}
	})
}

// sep is the byte that ends a line under eol.
func sep(eol EOL) byte {
	if eol == EOLMac {
		return '\r'
	}
	return '\n'
}

// indexRuns records the multi-byte characters of t (which starts at base).
func (li *LineIndex) indexRuns(t []byte, base int) {
	saved := 0
	for i := 0; i < len(t); {
		if t[i] < 0x80 {
			// Skip ASCII eight bytes at a time.
			for i+8 <= len(t) && binary.LittleEndian.Uint64(t[i:])&0x8080808080808080 == 0 {
				i += 8
			}
			for i < len(t) && t[i] < 0x80 {
				i++
			}
			continue
		}
		r, n := utf8.DecodeRune(t[i:])
		if r == utf8.RuneError && n <= 1 {
			i++ // an invalid byte counts one unit, like ASCII
			continue
		}
		units := 1
		if r >= 0x10000 {
			units = 2
		}
		at := base + i
		if k := len(li.runs) - 1; k >= 0 && li.runs[k].end == at && li.runs[k].size == n && li.runs[k].saved == n-units {
			li.runs[k].end += n
		} else {
			li.runs = append(li.runs, u16run{start: at, end: at + n, size: n, saved: n - units})
			li.cum = append(li.cum, saved)
		}
		saved += n - units
		i += n
	}
}

// LineCount is the number of lines (a file ending with a line end has an
// empty last line).
func (li *LineIndex) LineCount() int { return li.starts.len() }

// Line returns the 0-based line holding offset off (clamped to the file).
func (li *LineIndex) Line(off int) int {
	if off < 0 {
		off = 0
	}
	return li.starts.search(off+1) - 1
}

// LineRange returns the content of line (without its line end); a line
// past the last is the empty range at the end of the file.
func (li *LineIndex) LineRange(line int) Range {
	if line < 0 {
		line = 0
	}
	if line >= li.starts.len() {
		return Range{li.size, li.size}
	}
	start := li.starts.at(line)
	if line+1 == li.starts.len() {
		return Range{start, li.size}
	}
	end := li.starts.at(line+1) - 1
	if li.crlf {
		end--
	}
	return Range{start, end}
}

// Position returns the 0-based line, byte column and UTF-16 column of
// offset off. An offset inside a character, a line end or the byte-order
// mark maps to where that character, line end or mark begins.
func (li *LineIndex) Position(off int) (line, byteCol, utf16Col int) {
	if off > li.size {
		off = li.size
	}
	if off < li.bom {
		off = li.bom
	}
	line = li.Line(off)
	lr := li.LineRange(line)
	if off > lr.End {
		off = lr.End
	}
	li.tables()
	off = li.snap(off)
	return line, off - lr.Start, li.utf16(off) - li.utf16(lr.Start)
}

// OffsetUTF16 returns the offset of a 0-based line and UTF-16 column.
func (li *LineIndex) OffsetUTF16(line, col int) int {
	lr := li.LineRange(line)
	if col <= 0 {
		return lr.Start
	}
	li.tables()
	target := li.utf16(lr.Start) + col
	// The UTF-16 offset of a run's start is known in O(1), so this is one
	// binary search.
	runStart := func(i int) int { return li.runs[i].start - li.bom - li.cum[i] }
	k := sort.Search(len(li.runs), func(i int) bool { return runStart(i) > target }) - 1
	var off int
	switch {
	case k < 0:
		off = target + li.bom
	default:
		r := li.runs[k]
		units := r.size - r.saved
		inRun := (r.end - r.start) / r.size * units
		if d := target - runStart(k); d >= inRun {
			off = r.end + d - inRun
		} else {
			off = r.start + d/units*r.size
		}
	}
	if off > lr.End {
		off = lr.End
	}
	return off
}

// OffsetByte returns the offset of a 0-based line and byte column.
func (li *LineIndex) OffsetByte(line, col int) int {
	lr := li.LineRange(line)
	off := lr.Start + max(col, 0)
	if off > lr.End {
		off = lr.End
	}
	li.tables()
	return li.snap(off)
}

// snap moves an offset inside a multi-byte character to its start.
func (li *LineIndex) snap(off int) int {
	k := sort.Search(len(li.runs), func(i int) bool { return li.runs[i].start > off }) - 1
	if k >= 0 && off < li.runs[k].end {
		r := li.runs[k]
		return r.start + (off-r.start)/r.size*r.size
	}
	return off
}

// utf16 returns the UTF-16 offset, from the start of the text, of byte
// offset off (a character boundary).
func (li *LineIndex) utf16(off int) int {
	k := sort.Search(len(li.runs), func(i int) bool { return li.runs[i].start >= off }) - 1
	saved := 0
	if k >= 0 {
		r := li.runs[k]
		saved = li.cum[k]
		if off >= r.end {
			saved += (r.end - r.start) / r.size * r.saved
		} else {
			saved += (off - r.start) / r.size * r.saved
		}
	}
	return off - li.bom - saved
}

// patched returns the index of src, which is the indexed text changed as
// e says: the line starts before the change are kept, those after it
// moved, and only the changed bytes are scanned. (Reparse uses it only for
// UTF-8 text with LF line ends and no byte-order mark.)
func (li *LineIndex) patched(src []byte, e Edit) *LineIndex {
	n := &LineIndex{size: len(src), src: src, utf8Text: true}
	k := li.starts.search(e.Start + 1)
	j := li.starts.search(e.OldEnd + 1)
	ins := src[e.Start:e.NewEnd]
	n.starts = makeLineStarts(len(src), k+bytes.Count(ins, []byte{'\n'})+li.starts.len()-j)
	for i := range k {
		n.starts.add(li.starts.at(i))
	}
	for i := 0; ; {
		x := bytes.IndexByte(ins[i:], '\n')
		if x < 0 {
			break
		}
		i += x + 1
		n.starts.add(e.Start + i)
	}
	delta := e.NewEnd - e.OldEnd
	for i := j; i < li.starts.len(); i++ {
		n.starts.add(li.starts.at(i) + delta)
	}
	return n
}

// lineStarts are the offsets where lines start, ascending: 4 bytes a line
// (a 100k-headline memex has some 750,000 lines), 8 only in a text over
// 4 GiB.
type lineStarts struct {
	narrow []uint32
	wide   []int // instead of narrow for a text over 4 GiB
}

// makeLineStarts makes room for n line starts in a text of size bytes.
func makeLineStarts(size, n int) lineStarts {
	if uint64(size) > math.MaxUint32 {
		return lineStarts{wide: make([]int, 0, n)}
	}
	return lineStarts{narrow: make([]uint32, 0, n)}
}

func (s *lineStarts) add(off int) {
	if s.wide != nil {
		s.wide = append(s.wide, off)
		return
	}
	s.narrow = append(s.narrow, uint32(off))
}

func (s *lineStarts) len() int {
	if s.wide != nil {
		return len(s.wide)
	}
	return len(s.narrow)
}

func (s *lineStarts) at(i int) int {
	if s.wide != nil {
		return s.wide[i]
	}
	return int(s.narrow[i])
}

// search returns the index of the first line start at or after off
// (len when none is).
func (s *lineStarts) search(off int) int {
	if s.wide != nil {
		i, _ := slices.BinarySearch(s.wide, off)
		return i
	}
	if off < 0 {
		return 0
	}
	if uint64(off) > math.MaxUint32 {
		return len(s.narrow)
	}
	i, _ := slices.BinarySearch(s.narrow, uint32(off))
	return i
}
