package sandbox

import (
	"bytes"
	"fmt"
	"strings"
)

// gitPlainKeys are the settings a repository a command made may keep in
// its .git/config (section.key, "*" for any subsection, lower case): what
// git init and git clone write, and settings that run nothing and name no
// other file. Everything else — core.hooksPath, core.fsmonitor,
// core.pager, core.sshCommand, an alias, a filter or diff driver, an
// include — runs code or reads another file when the user next works in
// that repository, outside any sandbox (git-config(1)).
var gitPlainKeys = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true,
	"core.logallrefupdates": true, "core.ignorecase": true, "core.precomposeunicode": true,
	"core.symlinks": true, "core.autocrlf": true, "core.eol": true, "core.safecrlf": true,
	"core.quotepath": true,
	"remote.*.url":   true, "remote.*.pushurl": true, "remote.*.fetch": true, "remote.*.tagopt": true,
	"remote.*.mirror": true, "remote.*.promisor": true, "remote.*.partialclonefilter": true,
	"branch.*.remote": true, "branch.*.merge": true,
	"submodule.*.url": true, "submodule.*.active": true,
	"user.name": true, "user.email": true,
	"init.defaultbranch":      true,
	"extensions.objectformat": true, "extensions.refstorage": true, "extensions.partialclone": true,
}

// gitConfigPlain reports whether a git config file holds only
// gitPlainKeys, or names the first setting that is not (or the line git
// would read in a way this reading might not: a continued line, a key
// before any section).
func gitConfigPlain(data []byte) (string, bool) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if bytes.IndexByte(data, 0) >= 0 {
		return "a NUL byte", false
	}
	section := ""
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if strings.HasSuffix(line, `\`) {
			return fmt.Sprintf("line %d, continued", n+1), false
		}
		if strings.HasPrefix(line, "[") {
			end := headerEnd(line)
			if section = ""; end > 0 {
				section = gitSection(line[1:end])
			}
			if section == "" {
				return fmt.Sprintf("line %d, a section header", n+1), false
			}
			// git reads a key after the header on the same line.
			line = strings.TrimSpace(line[end+1:])
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		name, _, _ := strings.Cut(line, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		if section == "" || !gitName(name) {
			return fmt.Sprintf("line %d", n+1), false
		}
		if key := section + "." + name; !gitPlainKeys[key] {
			return key, false
		}
	}
	return "", true
}

// headerEnd is the index of the ']' that closes the section header line
// starts with (a subsection in quotes may hold one), or -1.
func headerEnd(line string) int {
	quoted := false
	for i := 1; i < len(line); i++ {
		switch c := line[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case c == ']' && !quoted:
			return i
		}
	}
	return -1
}

// gitSection is a section header's name as gitPlainKeys spells it:
// [core] is "core", [remote "origin"] and the old [remote.origin] are
// "remote.*"; "" for a header it cannot read.
func gitSection(h string) string {
	h = strings.TrimSpace(h)
	name, sub, hasSub := strings.Cut(h, " ")
	if !hasSub {
		name, _, hasSub = strings.Cut(h, ".")
	} else if sub = strings.TrimSpace(sub); len(sub) < 2 || sub[0] != '"' || sub[len(sub)-1] != '"' {
		return ""
	}
	name = strings.ToLower(name)
	if !gitName(name) {
		return ""
	}
	if hasSub {
		return name + ".*"
	}
	return name
}

// gitName reports whether s is a section or key name as git-config(1)
// allows them: letters, digits and '-', starting with a letter.
func gitName(s string) bool {
	if s == "" || !('a' <= s[0] && s[0] <= 'z') {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
