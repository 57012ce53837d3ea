package memory

import "strings"

// DefaultPrivacyTags are the tags that make a node private when the
// configuration names none (DESIGN §5).
func DefaultPrivacyTags() []string { return []string{"@personal", "private"} }

// privacySet is the configured privacy tags. Tags compare without regard
// to case: Org's own tags are case-sensitive, but a privacy rule must fail
// closed, and ":Private:" is meant as private by anyone who writes it.
//
// It also carries the home folder the files are read with: what "~"
// means in a file link (the memex's Options.Home, the agent's
// world.Home; "" knows none, and such a link is left as written). Both
// are settings of the whole memex, which every index of a file is made
// with and compared by (fileIndex.privacy).
type privacySet struct {
	tags []string
	home string
}

func newPrivacySet(tags []string, home string) *privacySet {
	if tags == nil {
		tags = DefaultPrivacyTags()
	}
	p := &privacySet{home: home}
	for _, t := range tags {
		if t = strings.Trim(strings.TrimSpace(t), ":"); t != "" {
			p.tags = append(p.tags, t)
		}
	}
	return p
}

// has reports whether tag is a privacy tag.
func (p *privacySet) has(tag string) bool {
	for _, t := range p.tags {
		if strings.EqualFold(t, tag) {
			return true
		}
	}
	return false
}

// any reports whether one of tags is a privacy tag.
func (p *privacySet) any(tags []string) bool {
	for _, t := range tags {
		if p.has(t) {
			return true
		}
	}
	return false
}

// equal reports whether two sets hold the same tags in the same order,
// with the same home.
func (p *privacySet) equal(q *privacySet) bool {
	if len(p.tags) != len(q.tags) || p.home != q.home {
		return false
	}
	for i := range p.tags {
		if p.tags[i] != q.tags[i] {
			return false
		}
	}
	return true
}
