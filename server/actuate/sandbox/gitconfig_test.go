package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGitConfigPlain(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		plain      bool
	}{
		{"git init's", "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n", true},
		{"git clone's", "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://example.org/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n", true},
		{"comments, case, a boolean without a value", "# made by hand\n[Core] ; yes\n\tBare\n\tfileMode=false # no\n", true},
		{"empty", "", true},
		{"core.fsmonitor", "[core]\n\tfsmonitor = touch /tmp/x\n", false},
		{"core.hooksPath, mixed case", "[core]\n\thooksPath = ../hk\n", false},
		{"core.pager", "[core]\npager = sh -c id\n", false},
		{"an alias", "[alias]\n\tst = !sh -c id\n", false},
		{"an include", "[include]\n\tpath = ../evil\n", false},
		{"an includeIf", "[includeIf \"gitdir:/\"]\n\tpath = ../evil\n", false},
		{"a filter driver", "[filter \"x\"]\n\tsmudge = id\n", false},
		{"a key on the header's line", "[core] fsmonitor = id\n", false},
		{"a key on a header line that holds a later ]", "[core] fsmonitor = a ]\n", false},
		{"a subsection of core", "[core \"x\"]\n\turl = a\n", false},
		{"a remote's upload-pack", "[remote \"o\"]\n\tuploadpack = id\n", false},
		{"the old subsection spelling", "[remote.o]\n\treceivepack = id\n", false},
		{"a continued line hiding a key", "[user]\n\tname = a \\\n\tfsmonitor = id\n", false},
		{"a key before any section", "fsmonitor = id\n", false},
		{"an unclosed header", "[core\n\tbare = false\n", false},
		{"a quoted ] in a subsection", "[remote \"a]b\"]\n\turl = x\n[core]\n\tpager = id\n", false},
		{"worktree config", "[extensions]\n\tworktreeConfig = true\n", false},
		{"a NUL", "[core]\n\tbare = false\x00\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			why, plain := gitConfigPlain([]byte(tc.text))
			assert.Equal(t, tc.plain, plain, why)
		})
	}
}
