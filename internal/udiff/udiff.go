// Package udiff computes unified diffs of two texts, line by line, in the
// format of GNU `diff -u`: the same hunks (three lines of context, hunks
// closer than twice that merged), the same hunk headers and the same
// "\ No newline at end of file" marker. The edit script is a shortest one
// (Myers' algorithm over the lines between the common prefix and suffix),
// and a change whose place is ambiguous is slid as far down as it goes, as
// GNU diff does.
package udiff

import (
	"bytes"
	"fmt"
	"strings"
)

// Context is the number of unchanged lines shown around a change.
const Context = 3

// MaxEdits and maxWork bound the shortest-script search (its memory grows
// with the square of the lines changed, its time with the lines changed
// times the lines compared): two texts that differ by more lines than
// MaxEdits, or fewer lines on texts so long that the search would pass
// maxWork, get one hunk replacing every line between their common prefix
// and suffix. Still a correct diff, only not the shortest.
const (
	MaxEdits = 2000
	maxWork  = 50_000_000
)

// Diff returns the unified diff turning a into b, headed by `--- aName`
// and `+++ bName`; "" when the texts are equal.
func Diff(aName, bName string, a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	out.WriteString(Hunks(a, b))
	return out.String()
}

// Hunks returns only the hunks of the diff (no file headers).
func Hunks(a, b []byte) string {
	al, bl := Lines(a), Lines(b)
	ops := script(al, bl)
	var out strings.Builder
	for _, h := range hunks(ops, len(al), len(bl)) {
		writeHunk(&out, h, al, bl)
	}
	return out.String()
}

// Lines splits text after each "\n"; the last line lacks it when the text
// does not end with one.
func Lines(text []byte) []string {
	var out []string
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, string(text))
			break
		}
		out = append(out, string(text[:i+1]))
		text = text[i+1:]
	}
	return out
}

// op is one line of the edit script: kept (both sides), deleted (a) or
// inserted (b).
type op struct {
	kind byte // ' ', '-', '+'
	a, b int  // line indexes (a for ' ' and '-', b for ' ' and '+')
}

// script is an edit script from al to bl: the common prefix and suffix
// kept, the middle by Myers' shortest edit, changes slid down.
func script(al, bl []string) []op {
	pre := 0
	for pre < len(al) && pre < len(bl) && al[pre] == bl[pre] {
		pre++
	}
	suf := 0
	for suf < len(al)-pre && suf < len(bl)-pre && al[len(al)-1-suf] == bl[len(bl)-1-suf] {
		suf++
	}
	var ops []op
	for i := range pre {
		ops = append(ops, op{' ', i, i})
	}
	ops = append(ops, middle(al[pre:len(al)-suf], bl[pre:len(bl)-suf], pre)...)
	for i := range suf {
		ops = append(ops, op{' ', len(al) - suf + i, len(bl) - suf + i})
	}
	return slide(ops, al, bl)
}

// middle is Myers' greedy shortest edit script of a to b (offset is the
// index of their first line in the whole texts).
func middle(a, b []string, offset int) []op {
	n, m := len(a), len(b)
	// Lines compared by number, not text.
	ids := map[string]int{}
	id := func(s string) int {
		v, ok := ids[s]
		if !ok {
			v = len(ids)
			ids[s] = v
		}
		return v
	}
	ai, bi := make([]int, n), make([]int, m)
	for i, s := range a {
		ai[i] = id(s)
	}
	for i, s := range b {
		bi[i] = id(s)
	}
	maxD := min(n+m, MaxEdits, maxWork/(n+m+1))
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int32
	found := false
	for d := 0; d <= maxD && !found; d++ {
		// Keep the frontier the walk back reads: diagonals -d-1 … d+1.
		saved := make([]int32, 2*d+3)
		for i, x := range v[off-d-1 : off+d+2] {
			saved[i] = int32(x)
		}
		trace = append(trace, saved)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && ai[x] == bi[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
	}
	if !found {
		ops := make([]op, 0, n+m)
		for i := range n {
			ops = append(ops, op{'-', offset + i, 0})
		}
		for j := range m {
			ops = append(ops, op{'+', 0, offset + j})
		}
		return ops
	}
	// Walk back through the saved frontiers.
	var rev []op
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		vp := trace[d]
		at := func(k int) int { return int(vp[k+d+1]) }
		k := x - y
		var pk int
		if k == -d || k != d && at(k-1) < at(k+1) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, op{' ', offset + x, offset + y})
		}
		if x == px {
			y--
			rev = append(rev, op{'+', 0, offset + y})
		} else {
			x--
			rev = append(rev, op{'-', offset + x, 0})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, op{' ', offset + x, offset + y})
	}
	ops := make([]op, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return ops
}

// slide marks the lines each side changes, moves the runs of changed
// lines as GNU diff's shift_boundaries does (analyze.c: each run slid up as
// far as it goes, merging with runs before it, then down as far as it goes,
// merging with runs after it, then back up to where it last lined up with
// a run of the other side), and rebuilds the script with each change's
// deletions before its insertions. Sliding a run keeps the script a
// shortest one: the line that becomes unchanged equals the one that stops
// being so.
func slide(ops []op, al, bl []string) []op {
	// Index 0 and len+1 are sentinels, never changed.
	ca, cb := make([]bool, len(al)+2), make([]bool, len(bl)+2)
	for _, o := range ops {
		switch o.kind {
		case '-':
			ca[o.a+1] = true
		case '+':
			cb[o.b+1] = true
		}
	}
	shiftBoundaries(ca, cb, al)
	shiftBoundaries(cb, ca, bl)
	out := make([]op, 0, len(ops))
	i, j := 0, 0
	for i < len(al) || j < len(bl) {
		switch {
		case i < len(al) && ca[i+1]:
			out = append(out, op{'-', i, 0})
			i++
		case j < len(bl) && cb[j+1]:
			out = append(out, op{'+', 0, j})
			j++
		default:
			out = append(out, op{' ', i, j})
			i++
			j++
		}
	}
	return out
}

// shiftBoundaries is GNU diff's shift_boundaries for one side: changed
// and other are the two sides' marks with a sentinel at each end (line n
// is index n+1), lines this side's text.
func shiftBoundaries(changed, other []bool, lines []string) {
	eq := func(x, y int) bool { return lines[x-1] == lines[y-1] } // 1-based
	end := len(changed) - 1                                       // one past the last line
	i, j := 1, 1
	for {
		for i < end && !changed[i] {
			for other[j] {
				j++
			}
			j++
			i++
		}
		if i == end {
			break
		}
		start := i
		for i++; changed[i]; i++ {
		}
		for other[j] {
			j++
		}
		var corresponding int
		for {
			runlength := i - start
			for start > 1 && eq(start-1, i-1) {
				start--
				changed[start] = true
				i--
				changed[i] = false
				for changed[start-1] {
					start--
				}
				for j--; other[j]; j-- {
				}
			}
			corresponding = end
			if other[j-1] {
				corresponding = i
			}
			for i != end && eq(start, i) {
				changed[start] = false
				start++
				changed[i] = true
				i++
				for changed[i] {
					i++
				}
				for j++; other[j]; j++ {
					corresponding = i
				}
			}
			if runlength == i-start {
				break
			}
		}
		for corresponding < i {
			start--
			changed[start] = true
			i--
			changed[i] = false
			for j--; other[j]; j-- {
			}
		}
	}
}

// hunk is a slice of the script and the lines it starts at.
type hunk struct {
	ops          []op
	aStart, aLen int
	bStart, bLen int
}

// hunks groups the changes with Context lines around them, merging
// groups whose contexts touch or overlap.
func hunks(ops []op, na, nb int) []hunk {
	var out []hunk
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(0, i-Context)
		end := i
		for {
			for end < len(ops) && ops[end].kind != ' ' {
				end++
			}
			// end is at a kept line or the end; look for the next change
			// within 2*Context kept lines.
			k := end
			for k < len(ops) && ops[k].kind == ' ' && k-end < 2*Context {
				k++
			}
			if k < len(ops) && ops[k].kind != ' ' {
				end = k
				continue
			}
			break
		}
		stop := min(len(ops), end+Context)
		for stop > end && ops[stop-1].kind != ' ' {
			stop--
		}
		h := hunk{ops: ops[start:stop]}
		h.aStart, h.bStart = -1, -1
		for _, o := range h.ops {
			if o.kind != '+' {
				if h.aStart < 0 {
					h.aStart = o.a
				}
				h.aLen++
			}
			if o.kind != '-' {
				if h.bStart < 0 {
					h.bStart = o.b
				}
				h.bLen++
			}
		}
		// An empty side starts after the line before the hunk.
		if h.aStart < 0 {
			h.aStart = linesOf(ops[:start], '+')
		}
		if h.bStart < 0 {
			h.bStart = linesOf(ops[:start], '-')
		}
		out = append(out, h)
		i = stop
	}
	return out
}

// linesOf counts the lines of one side that ops hold: the side without
// the other's kind (not '+' for a, not '-' for b). For a hunk's empty side
// it is where the side starts: after the line before the hunk.
func linesOf(ops []op, other byte) int {
	n := 0
	for _, o := range ops {
		if o.kind != other {
			n++
		}
	}
	return n
}

// writeHunk prints a hunk as GNU diff -u does.
func writeHunk(out *strings.Builder, h hunk, al, bl []string) {
	fmt.Fprintf(out, "@@ -%s +%s @@\n", rangeOf(h.aStart, h.aLen), rangeOf(h.bStart, h.bLen))
	for _, o := range h.ops {
		var line string
		switch o.kind {
		case '-':
			line = al[o.a]
		default:
			line = bl[o.b]
		}
		out.WriteByte(o.kind)
		out.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// rangeOf is a hunk side's "start,len" (1-based; "start" alone for one
// line; for none, the line before it and 0).
func rangeOf(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
