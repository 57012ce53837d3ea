package lsp

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"pp-lsp/orgast"
)

// TestFolds pins how blocks and drawers fold, line by line (0-based), on
// what the scenario tests do not reach: line-end conventions, the end of
// the file, affiliated keywords and unclosed drawers.
func TestFolds(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []foldingRange
	}{
		{
			name: "a named block folds from its opening line",
			src:  "#+NAME: x\n#+CAPTION: c\n#+begin_src go\nx\n#+end_src\n",
			want: []foldingRange{{StartLine: 2, EndLine: 4, Kind: "region"}},
		},
		{
			name: "a block closing the file without a line end",
			src:  "#+begin_example\nx\n#+end_example",
			want: []foldingRange{{StartLine: 0, EndLine: 2, Kind: "region"}},
		},
		{
			name: "CR LF line ends",
			src:  "#+begin_quote\r\nq\r\n#+end_quote\r\n:NOTES:\r\n:END:\r\n",
			want: []foldingRange{{StartLine: 0, EndLine: 2, Kind: "region"}, {StartLine: 3, EndLine: 4, Kind: "region"}},
		},
		{
			name: "an unclosed drawer and an unclosed block do not fold",
			src:  ":NOTES:\ntext\n#+begin_src sh\necho\n",
			want: []foldingRange{},
		},
		{
			name: "a closing line of another kind closes nothing",
			src:  "#+begin_src\n#+end_example\n",
			want: []foldingRange{},
		},
		{
			name: "a dynamic block and a comment block",
			src:  "#+BEGIN: clocktable\n| t |\n#+END:\n#+begin_comment\nc\n#+end_comment\n",
			want: []foldingRange{{StartLine: 0, EndLine: 2, Kind: "region"}, {StartLine: 3, EndLine: 5, Kind: "comment"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, folds(orgast.Parse([]byte(tt.src))))
		})
	}
}
