package gates

import (
	"maps"
	"slices"
)

// varTable holds the variables a command sets, as a map would. Most
// commands set a handful, and the analysis reads and sets them at every
// assignment, branch and undo (a long script, hundreds of times): up to
// varTableSlice of them are kept in a list searched in order, which costs
// a length comparison per entry where a map hashes the name at every
// access; past that they move to a map, so that a script setting
// hundreds stays linear. The zero value is empty.
type varTable struct {
	list []varEntry
	m    map[string]varVal
}

type varEntry struct {
	name string
	val  varVal
}

const varTableSlice = 16

// get returns the value of name and whether the command set it.
func (t *varTable) get(name string) (varVal, bool) {
	if t.m != nil {
		v, ok := t.m[name]
		return v, ok
	}
	for i := range t.list {
		if t.list[i].name == name {
			return t.list[i].val, true
		}
	}
	return varVal{}, false
}

// set gives name the value v.
func (t *varTable) set(name string, v varVal) {
	if t.m != nil {
		t.m[name] = v
		return
	}
	for i := range t.list {
		if t.list[i].name == name {
			t.list[i].val = v
			return
		}
	}
	if len(t.list) < varTableSlice {
		t.list = append(t.list, varEntry{name, v})
		return
	}
	t.m = make(map[string]varVal, 2*varTableSlice)
	for _, e := range t.list {
		t.m[e.name] = e.val
	}
	t.m[name] = v
	t.list = nil
}

// len is how many variables the table holds.
func (t *varTable) len() int {
	if t.m != nil {
		return len(t.m)
	}
	return len(t.list)
}

// appendNames appends the names the table holds to out.
func (t *varTable) appendNames(out []string) []string {
	if t.m != nil {
		for n := range t.m {
			out = append(out, n)
		}
		return out
	}
	for _, e := range t.list {
		out = append(out, e.name)
	}
	return out
}

// clone is a copy of the table that shares nothing with it.
func (t *varTable) clone() varTable {
	return varTable{list: slices.Clone(t.list), m: maps.Clone(t.m)}
}
