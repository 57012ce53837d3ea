package orgskill

import (
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"

	"pp-lsp/orgast"
)

func titles(src string) []string {
	var out []string
	for _, s := range InText([]byte(src)) {
		out = append(out, s.Title)
	}
	return out
}

func TestWhichHeadlinesAreSkills(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"tagged", "* Hourly :skill:\nDo things.\n", []string{"Hourly"}},
		{"one of several tags", "* Hourly :work:skill:urgent:\n", []string{"Hourly"}},
		{"upper case", "* Hourly :SKILL:\n", []string{"Hourly"}},
		{"long s folds to s", "* Hourly :ſkill:\n", []string{"Hourly"}},
		{"Kelvin sign folds to k", "* Hourly :s\u212aill:\n", []string{"Hourly"}},
		{"commented still listed", "* COMMENT Hourly :skill:\n", []string{"Hourly"}},
		{"nested", "* Notes\n** Hourly :skill:\n", []string{"Hourly"}},
		{"the word in a body", "* Notes\nA skill I want to learn: :skill: is a tag.\n", nil},
		{"skills", "* Notes :skills:\n", nil},
		{"skillful", "* Notes :skillful:\n", nil},
		{"a prefix", "* Notes :myskill:\n", nil},
		{"inherited is not a skill", "* Parent :skill:\n** Child\n", []string{"Parent"}},
		{"filetags make none", "#+filetags: :skill:\n* Notes\n", nil},
		{"in a src block, escaped", "* Notes\n#+begin_src org\n,* X :skill:\n#+end_src\n", nil},
		{"not a headline", " * X :skill:\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, titles(tc.src))
		})
	}
}

func TestMentionsIsASupersetOfOf(t *testing.T) {
	// Only I and L fold to i and l: a tag that EqualFolds "skill" ends
	// in ASCII "ill", and a tag is closed by a colon.
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r != 'i' && r != 'I' && strings.EqualFold(string(r), "i") {
			t.Fatalf("%U folds to i", r)
		}
		if r != 'l' && r != 'L' && strings.EqualFold(string(r), "l") {
			t.Fatalf("%U folds to l", r)
		}
	}
	for _, src := range []string{"* A :skill:\n", "* A :sKiLL:x:\n", "* A :ſKILL:\n"} {
		assert.True(t, Mentions([]byte(src)), src)
		assert.NotEmpty(t, Of(orgast.Parse([]byte(src))), src)
	}
	assert.False(t, Mentions([]byte("* A :skills:\nskill\n")))
}

func TestDiff(t *testing.T) {
	const hourly = "* Hourly :skill:\nSCHEDULED: <2026-11-27 Fri 10:00 +1h>\nDo things.\n"
	for _, tc := range []struct {
		name, before, after string
		want                []Change
	}{
		{"new file", "", hourly, []Change{{"Hourly", "adds"}}},
		{"same", hourly, hourly, nil},
		{"moved down", hourly + "* Other\n", "* Other\n" + hourly, nil},
		{"a note beside it", hourly, hourly + "* Groceries\n- milk\n", nil},
		{"a child added", hourly, hourly + "** Child\nnot part of the skill\n", nil},
		{"body", hourly, strings.Replace(hourly, "Do things.", "Do other things.", 1), []Change{{"Hourly", "changes"}}},
		{"schedule", hourly, strings.Replace(hourly, "+1h", "+1d", 1), []Change{{"Hourly", "changes"}}},
		{"property", hourly, strings.Replace(hourly, "Do things.", ":PROPERTIES:\n:TRIGGER: heartbeat\n:END:\nDo things.", 1), []Change{{"Hourly", "changes"}}},
		{"gates block", hourly, hourly + "#+begin_src json :gates\n{\"deny\": []}\n#+end_src\n", []Change{{"Hourly", "changes"}}},
		{"uncommented", "* COMMENT Hourly :skill:\n", "* Hourly :skill:\n", []Change{{"Hourly", "changes"}}},
		{"a parent's private tag removed", "* P :private:\n** Hourly :skill:\n", "* P\n** Hourly :skill:\n", []Change{{"Hourly", "changes"}}},
		{"filetags removed", "#+filetags: :private:\n* Hourly :skill:\n", "* Hourly :skill:\n", []Change{{"Hourly", "changes"}}},
		{"a TODO keyword changes the title", "* NEXT Gardener :skill:\n", "#+TODO: NEXT | DONE\n* NEXT Gardener :skill:\n", []Change{{"Gardener", "adds"}, {"NEXT Gardener", "removes"}}},
		{"removed", hourly + "* Daily :skill:\n", "* Daily :skill:\n", []Change{{"Hourly", "removes"}}},
		{"tag removed", hourly, strings.Replace(hourly, ":skill:", "", 1), []Change{{"Hourly", "removes"}}},
		{"a second copy", hourly, hourly + hourly, []Change{{"Hourly", "adds"}}},
		{"moved under a parent", hourly, "* Parent\n*" + hourly, []Change{{"Hourly", "changes"}}},
		{"a same-titled sibling before it", hourly, "* Hourly\n" + hourly, []Change{{"Hourly", "changes"}}},
		{"a same-titled sibling after it", hourly, hourly + "* Hourly\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Diff(InText([]byte(tc.before)), InText([]byte(tc.after))))
		})
	}
}

// BenchmarkDiffHostile: a megabyte of one-line skills, rewritten with one
// changed, is compared in time linear in its size.
func BenchmarkDiffHostile(b *testing.B) {
	before := []byte(strings.Repeat("* a :skill:\n", 1<<20/12))
	after := append([]byte("* b :skill:\n"), before[12:]...)
	b.SetBytes(int64(len(before)))
	for b.Loop() {
		if len(Diff(InText(before), InText(after))) == 0 {
			b.Fatal("no change found")
		}
	}
}
