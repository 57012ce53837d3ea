package gates

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestShellWritesListsWhatTheCommandWrites(t *testing.T) {
	_, env, root := testEnv(t, Config{})
	in := func(rel ...string) []string {
		var out []string
		for _, r := range rel {
			out = append(out, filepath.Join(root, r))
		}
		return out
	}
	for _, tc := range []struct {
		cmd  string
		want []string
	}{
		{"ls notes", nil},
		{"cp inbox.org notes/copy.org", in("notes/copy.org")},
		{"sort -o out/sorted.txt inbox.org", in("out/sorted.txt")},
		{"echo hi > out/a.txt && echo again >> out/a.txt", in("out/a.txt")},
		{"rm notes/todo.org", in("notes/todo.org")},
		{"cd notes && touch x.org", in("notes/x.org")},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			assert.Equal(t, tc.want, ShellWrites(context.Background(), Build(ShellArgs{Cmd: tc.cmd, Cwd: "."}, "t"), env))
		})
	}
	assert.Nil(t, ShellWrites(context.Background(), Build(FileWriteArgs{Path: "a.org", Content: "x"}, "t"), env))
}
