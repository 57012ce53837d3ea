//go:build unix

package seal

import (
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"

	"pp-lsp/internal/regfile"
)

// OwnedByMe reports whether this process's effective user — the owner of
// the files it creates — owns fi; not when fi tells no owner.
func OwnedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// OwnedByMeOrRoot reports whether this process's effective user or root
// owns fi; not when fi tells no owner.
func OwnedByMeOrRoot(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && (st.Uid == 0 || int(st.Uid) == os.Geteuid())
}

// WritableByOthers reports whether anyone but this process's user may
// write fi: all others, or a group with another member. The data
// directory, the folders above it, the server's own files and the
// configuration file are refused when so.
func WritableByOthers(fi fs.FileInfo) bool {
	return writableByOthers(fi, accountFiles{passwd: "/etc/passwd", group: "/etc/group"}, os.Geteuid())
}

// accountFiles are where the users and the groups are listed.
type accountFiles struct{ passwd, group string }

// writableByOthers is WritableByOthers for the user uid, with the
// accounts of files. A group-writable file is judged as Debian's OpenSSH
// judges a group-writable authorized_keys (its user-group-modes patch):
// the group must have exactly one member, uid — as its primary group, or
// as the one member the group file lists — so that a user-private group
// (each user's own, with umask 002) is safe, and a group another user is
// in, even the user's primary group, is not. What the files cannot tell
// (a group they do not list, an entry from elsewhere, a file unread) is
// taken as others.
func writableByOthers(fi fs.FileInfo, files accountFiles, uid int) bool {
	perm := fi.Mode().Perm()
	switch {
	case perm&0o002 != 0:
		return true
	case perm&0o020 == 0:
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || !onlyMember(files, st.Gid, uid)
}

// maxAccountFile bounds the passwd and group files read.
const maxAccountFile = 16 << 20

// onlyMember reports whether uid is the one member of the group gid.
func onlyMember(files accountFiles, gid uint32, uid int) bool {
	users, ok := accountLines(files.passwd)
	if !ok {
		return false
	}
	groups, ok := accountLines(files.group)
	if !ok {
		return false
	}
	me, members := "", 0
	for _, f := range users {
		// name:password:uid:gid:…
		if len(f) < 4 {
			continue
		}
		u, uerr := strconv.ParseUint(f[2], 10, 32)
		g, gerr := strconv.ParseUint(f[3], 10, 32)
		if uerr != nil || gerr != nil {
			return false
		}
		if int(u) == uid {
			me = f[0]
		}
		if uint32(g) == gid {
			if int(u) != uid {
				return false
			}
			members = 1
		}
	}
	found := false
	for _, f := range groups {
		// name:password:gid:member,member,…
		if len(f) < 4 {
			continue
		}
		if g, err := strconv.ParseUint(f[2], 10, 32); err != nil || uint32(g) != gid {
			continue
		}
		found = true
		for _, m := range strings.Split(f[3], ",") {
			switch {
			case m == "":
			case m != me || me == "":
				return false
			default:
				members = 1
			}
		}
	}
	return found && members == 1
}

// accountLines are the fields of each entry of an account file; false when
// it cannot be read, or names entries kept elsewhere (a line starting with
// "+" or "-", NIS's), which it cannot tell.
func accountLines(path string) ([][]string, bool) {
	b, _, err := regfile.Read(path, true, maxAccountFile)
	if err != nil {
		return nil, false
	}
	var out [][]string
	for line := range strings.Lines(string(b)) {
		line = strings.TrimRight(line, "\n")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if line[0] == '+' || line[0] == '-' {
			return nil, false
		}
		out = append(out, strings.Split(line, ":"))
	}
	return out, true
}
