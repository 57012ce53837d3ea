package orgtext

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/orgast"
)

func TestTitle(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"Run `make test`", 80, "Run `make test`"},
		{"two\nlines\t here", 80, "two lines here"},
		{"ends with tags :a:b:", 80, "ends with tags =:a:b:="},
		{"bell\a rings", 80, "bell rings"},
		{strings.Repeat("x", 20), 10, strings.Repeat("x", 9) + "…"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got := Title(tc.in, tc.max)
			assert.Equal(t, tc.want, got)
			f := orgast.Parse([]byte("* " + got + "\n"))
			require.Len(t, f.Headlines, 1)
			assert.Empty(t, f.Headlines[0].Tags, "a title never grows tags")
			assert.Equal(t, got, f.Headlines[0].Title)
		})
	}
}

func TestBlockRoundTrip(t *testing.T) {
	for _, s := range []string{
		"plain\n", "* headline\n", "#+end_src\n", "  #+END_EXAMPLE\n", ",* already\n", ",,#+x\n", "a\n*b\n#+c\n",
	} {
		t.Run(s, func(t *testing.T) {
			esc := Block(s)
			src := "* h\n#+begin_example\n" + esc + "#+end_example\n"
			f := orgast.Parse([]byte(src))
			assert.Len(t, f.Headlines, 1, "no line of the block is a headline")
			assert.Equal(t, s, Unblock(esc))
		})
	}
}

func TestParagraphAddsNoStructure(t *testing.T) {
	in := "* not a headline\n#+TODO: A | B\n:PROPERTIES:\n:ID: x\n:END:\n# comment\n| table |\nplain"
	src := "* h\n" + Paragraph(in)
	f := orgast.Parse([]byte(src))
	require.Len(t, f.Headlines, 1)
	assert.Nil(t, f.Headlines[0].Drawer)
	assert.Empty(t, f.Keywords)
	assert.True(t, f.Todo.Default, "no #+TODO: line was made")
}
