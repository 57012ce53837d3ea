package gates

import (
	"maps"
	"slices"
)

// checkState is what one check remembers while its gates run: each path
// located once, the shell command analysed once, each directory asked of
// the file system once, however many gates and vectors ask. Every check
// starts with an empty one (Stack.beginCheck) used by no other check, so
// nothing learnt about the disk outlives the check that learnt it.
type checkState struct {
	locs  smallMemo[[2]string, loc]
	shell checkMemo
	// shellRep is where the action's shell analysis writes its report
	// (shell.memo points at it), kept for the next check's.
	shellRep shellReport
	// shellMemo is the room of that analysis's memo of function bodies,
	// kept for the next check's.
	shellMemo bodyMemos
	// shellRoom is that analysis's analyzer and the room of the lists it
	// grows, kept for the next check's.
	shellRoom shellRoom
	fs        fsView
	privacy   smallMemo[string, privacyState]
	lits      codeLits
	// walkedEntries and walkedBytes are what the check's walks below
	// folders have read so far (privateBelow).
	walkedEntries int
	walkedBytes   int64
	walksSpent    bool // a walk stopped at the check's limits
	// chatLinks are the chat folder's files, walked on the first hard
	// link the check meets (chatLinkOf).
	chatLinks chatLinks
	// protLinks are the protected places' and credential stores' files
	// with another name, walked on the first hard link the check meets
	// that is none of the fixed ones (protectedLinkOf).
	protLinks protLinks
}

// codeLits are the string literals of the code being checked.
type codeLits struct {
	code string
	lits []string
	ok   bool
}

// reset empties the memo for another check, keeping the room its slices
// grew.
func (st *checkState) reset() {
	st.locs.reset()
	st.fs.nodes.reset()
	st.fs.names.reset()
	st.fs.asked = 0
	st.privacy.reset()
	st.lits = codeLits{}
	st.walkedEntries, st.walkedBytes, st.walksSpent = 0, 0, false
	st.chatLinks = chatLinks{}
	st.protLinks = protLinks{}
	st.shell = checkMemo{}
	// The commands' words are the check's: dropped, the list's room kept
	// (up to a bound).
	cmds := st.shellRep.cmds
	clear(cmds[:cap(cmds)])
	if cap(cmds) > 256 {
		cmds = nil
	}
	st.shellRep = shellReport{cmds: cmds[:0]}
	st.shellMemo.reset()
	st.shellRoom.reset()
}

// shellRoom is what the check's shell analysis leaves for the next one:
// the analyzer (an, overwritten whole when the next analysis starts) and
// the backing arrays of its trail and locals, which only grow by append
// and shrink by truncation, so that an analysis sees the same lists
// whatever their capacity. The analysis leaves trail and locals as long
// as they ever grew (trailTop, localsTop): every entry it wrote.
type shellRoom struct {
	an     shellAnalyzer
	trail  []varChange
	locals []varChange
	vars   []memoEntry[string, varVal] // the list of the analyzer's varTable
}

// reset drops what the room refers to (the last command's names, values
// and syntax tree), keeping the arrays up to a bound.
func (r *shellRoom) reset() {
	r.an = shellAnalyzer{}
	clear(r.trail)
	clear(r.locals)
	clear(r.vars)
	r.vars = r.vars[:0]
	if cap(r.trail) > 4096 {
		r.trail = nil
	}
	if cap(r.locals) > 4096 {
		r.locals = nil
	}
	r.trail, r.locals = r.trail[:0], r.locals[:0]
}

// smallMemo is a map that stays a slice while it holds few entries: a
// check looks up a handful of paths, and a slice of them is cheaper to
// build and search than a map. Past smallMemoSlice entries it becomes a
// map, so a command naming hundreds of paths stays linear.
type smallMemo[K comparable, V any] struct {
	entries []memoEntry[K, V]
	m       map[K]V
}

type memoEntry[K comparable, V any] struct {
	k K
	v V
}

const smallMemoSlice = 16

func (c *smallMemo[K, V]) get(k K) (V, bool) {
	if c.m != nil {
		v, ok := c.m[k]
		return v, ok
	}
	for i := range c.entries {
		if c.entries[i].k == k {
			return c.entries[i].v, true
		}
	}
	var zero V
	return zero, false
}

func (c *smallMemo[K, V]) put(k K, v V) {
	if c.m == nil && len(c.entries) < smallMemoSlice {
		if c.entries == nil {
			c.entries = make([]memoEntry[K, V], 0, 4)
		}
		c.entries = append(c.entries, memoEntry[K, V]{k, v})
		return
	}
	if c.m == nil {
		c.m = make(map[K]V, 2*smallMemoSlice)
		for _, e := range c.entries {
			c.m[e.k] = e.v
		}
		c.entries = nil
	}
	c.m[k] = v
}

// set gives k the value v, whether or not it holds k (put is for a key
// it does not hold).
func (c *smallMemo[K, V]) set(k K, v V) {
	if c.m == nil {
		for i := range c.entries {
			if c.entries[i].k == k {
				c.entries[i].v = v
				return
			}
		}
	}
	c.put(k, v)
}

// appendKeys appends the keys it holds to out.
func (c *smallMemo[K, V]) appendKeys(out []K) []K {
	if c.m != nil {
		for k := range c.m {
			out = append(out, k)
		}
		return out
	}
	for _, e := range c.entries {
		out = append(out, e.k)
	}
	return out
}

// clone is a copy that shares nothing with it.
func (c *smallMemo[K, V]) clone() smallMemo[K, V] {
	return smallMemo[K, V]{entries: slices.Clone(c.entries), m: maps.Clone(c.m)}
}

func (c *smallMemo[K, V]) len() int {
	if c.m != nil {
		return len(c.m)
	}
	return len(c.entries)
}

// reset empties the memo, keeping the slice's room (and dropping a map,
// which only a rare check grows).
func (c *smallMemo[K, V]) reset() {
	clear(c.entries)
	c.entries = c.entries[:0]
	c.m = nil
}
