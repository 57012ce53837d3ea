// Package orgskill says which headlines of an Org file are skills (DESIGN
// §15) and what of each a write could change: the one predicate the
// skills loader (server/skills) reads skills with and the gates judge a
// write with, so that the two can never disagree about what a skill is.
//
// Invariant: Is is the loader's test of a headline's tags, and a Skill
// holds everything the loader reads of a skill and everything that
// decides whether it is used (its headline, planning, properties, body
// and gates block; COMMENT, ARCHIVE and the tags that could make it
// private) or which runs of it are recorded (its place in the outline).
// Two files whose Of lists are equal as multisets give the loader the
// same skills. Mentions is false only for text Of finds no skill in. Of
// and Diff take time linear in the text.
package orgskill

import (
	"slices"
	"strconv"
	"strings"

	"pp-lsp/orgast"
)

// Tag is the tag that makes a headline a skill, compared as
// strings.EqualFold compares (so "Skill", "SKILL" and "ſkill" are it too).
const Tag = "skill"

// Is reports whether h is tagged as a skill by its own tags: the tag is
// not inherited from a parent, and #+FILETAGS: makes no headline one. The
// loader then leaves out the private, commented and archived ones and
// those of the server's own files; a write that changes any of that
// changes a Skill.
func Is(h *orgast.Headline) bool {
	for _, t := range h.Tags {
		if strings.EqualFold(t, Tag) {
			return true
		}
	}
	return false
}

// Skill is one headline of a file that Is a skill, as a write could
// change it.
type Skill struct {
	// Title is the headline's title as parsed (a TODO keyword set up
	// elsewhere in the file changes it, and a skill of a built-in's title
	// replaces the built-in).
	Title string
	// Text is the headline line and its own section: planning,
	// properties, body and gates block, without its children.
	Text string
	// Commented and Archived leave the skill out.
	Commented, Archived bool
	// Inherited are the tags of its ancestors and the file's #+FILETAGS:
	// values, which decide whether it is private.
	Inherited string
	// Place is its outline path, each title with how many earlier
	// siblings share it: what names a skill without an :ID: (its
	// memory.Node key, which its runs are recorded by).
	Place string
}

// Of returns the skills of f, in the order of the file.
func Of(f *orgast.File) []Skill {
	var out []Skill
	var fileTags []string
	var ords []int
	for i := range f.Headlines {
		h := &f.Headlines[i]
		if !Is(h) {
			continue
		}
		if ords == nil {
			ords = ordinals(f)
		}
		if fileTags == nil {
			fileTags = []string{}
			for _, k := range f.Keywords {
				if strings.EqualFold(k.Key, "FILETAGS") {
					fileTags = append(fileTags, k.Value)
				}
			}
		}
		var inh []string
		place := []string{placeName(h.Title, ords[i])}
		for p := h.Parent; p >= 0 && p < len(f.Headlines); p = f.Headlines[p].Parent {
			inh = append(inh, f.Headlines[p].Tags...)
			place = append(place, placeName(f.Headlines[p].Title, ords[p]))
		}
		slices.Reverse(place)
		inh = append(inh, fileTags...)
		out = append(out, Skill{
			Title: h.Title, Text: string(f.Src[h.Line.Start:max(h.Line.End, h.Section.End)]),
			Commented: h.Commented, Archived: h.Archived, Inherited: strings.Join(inh, "\x00"),
			Place: strings.Join(place, "\x00"),
		})
	}
	return out
}

// ordinals counts, for each headline, its earlier siblings of the same
// title.
func ordinals(f *orgast.File) []int {
	type key struct {
		parent int
		title  string
	}
	seen := map[key]int{}
	out := make([]int, len(f.Headlines))
	for i := range f.Headlines {
		k := key{f.Headlines[i].Parent, f.Headlines[i].Title}
		out[i] = seen[k]
		seen[k]++
	}
	return out
}

func placeName(title string, ord int) string {
	return title + "\x00" + strconv.Itoa(ord)
}

// Mentions reports whether src could hold a skill: a tag ending in "ill"
// followed by the colon that closes it (no rune but I and L folds to i
// and l). False means Of finds none, without parsing.
func Mentions(src []byte) bool {
	for i := 0; i+4 <= len(src); i++ {
		if src[i+3] == ':' && src[i]|0x20 == 'i' && src[i+1]|0x20 == 'l' && src[i+2]|0x20 == 'l' {
			return true
		}
	}
	return false
}

// InText returns the skills of Org text (none, without parsing, when it
// does not mention one).
func InText(src []byte) []Skill {
	if !Mentions(src) {
		return nil
	}
	return Of(orgast.Parse(src))
}

// Change is how a write changes the skills of a file.
type Change struct {
	// Title is the skill's.
	Title string
	// How is "adds", "changes" or "removes".
	How string
}

// Diff compares the skills of a file before and after a write, as
// multisets: where a skill stands in the file does not matter. It
// returns the changes, those of after first (a new or changed skill),
// then the skills of before that are gone; none when the loader would
// read the same skills.
func Diff(before, after []Skill) []Change {
	left := make(map[Skill]int, len(before))
	for _, s := range before {
		left[s]++
	}
	var added []Skill
	for _, s := range after {
		if left[s] > 0 {
			left[s]--
			continue
		}
		added = append(added, s)
	}
	if len(added) == 0 && len(before) == len(after) {
		return nil
	}
	// The titles of the skills each side has that the other has not.
	gone, fresh := map[string]bool{}, map[string]bool{}
	for s, n := range left {
		if n > 0 {
			gone[s.Title] = true
		}
	}
	for _, s := range added {
		fresh[s.Title] = true
	}
	var out []Change
	for _, s := range added {
		how := "adds"
		if gone[s.Title] {
			how = "changes"
		}
		out = append(out, Change{Title: s.Title, How: how})
	}
	for _, s := range before {
		if left[s] > 0 && !fresh[s.Title] {
			left[s]--
			out = append(out, Change{Title: s.Title, How: "removes"})
		}
	}
	return out
}
