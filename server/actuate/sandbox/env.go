package sandbox

import (
	"path/filepath"
	"strings"
)

// inherited are the variables a command inherits from the server (DESIGN
// §12), when set: the locale and the time zone. PATH is inherited too,
// cleaned (see cleanPath); everything else is set by the sandbox itself.
var inherited = []string{
	"LANG", "LANGUAGE", "TZ",
	"LC_ALL", "LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE", "LC_MONETARY", "LC_MESSAGES",
	"LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE", "LC_MEASUREMENT", "LC_IDENTIFICATION",
}

// env is the whole environment of a command: the allow-list of DESIGN §12
// and nothing else — no key, token, agent socket or proxy reaches an
// action. HOME and TMPDIR are the command's private temporary folder; dir
// is its working folder. PATH keeps no folder a confined command cannot
// run programs from (~/.pyenv/shims before /usr/bin would only make
// python3 fail).
func env(getenv func(string) string, tmp, dir string, unreachable func(string) bool) []string {
	env := []string{
		"PATH=" + cleanPath(getenv("PATH"), unreachable),
		"HOME=" + tmp, "TMPDIR=" + tmp, "PWD=" + dir,
		// Output is captured, never shown on a terminal.
		"TERM=dumb", "PAGER=cat", "GIT_PAGER=cat", "NO_COLOR=1",
	}
	for _, k := range inherited {
		if v := getenv(k); v != "" && !strings.ContainsRune(v, 0) {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// defaultPath is PATH when the server has none that is usable.
const defaultPath = "/usr/local/bin:/usr/bin:/bin"

// cleanPath keeps the absolute entries of PATH: an empty or relative entry
// ("", ".") would make a command name run a file of the working folder —
// one an earlier action may have written.
func cleanPath(p string, unreachable func(string) bool) string {
	var keep []string
	for _, e := range filepath.SplitList(p) {
		if filepath.IsAbs(e) && !strings.ContainsRune(e, 0) && !unreachable(filepath.Clean(e)) {
			keep = append(keep, e)
		}
	}
	if len(keep) == 0 {
		return defaultPath
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}
