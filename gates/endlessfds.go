package gates

import "mvdan.cc/sh/v3/syntax"

// execFdsOf keeps what an exec with no program opens on the shell's own
// descriptors (exec 3</dev/zero; exec </dev/zero): every later command
// inherits them, so that cat <&3 > f, cat /dev/fd/3 > f and cat > f read
// the endless device as surely as cat /dev/zero > f does. The descriptors
// are kept for the rest of the command, a subshell's exec too (which
// bash undoes when the subshell ends): an endless stream seen where it
// no longer is, never one missed.
func (s *shellAnalyzer) execFdsOf(argv []string, st *syntax.Stmt, in stdinSrc) {
	if len(argv) != 1 || argv[0] != "exec" || len(st.Redirs) == 0 {
		return
	}
	init := in.fds
	if init == nil {
		init = &s.execFds
	}
	s.execFds = *endlessFdsOf(st, init, nil)
}

// endlessCopy refuses cp or install of an endless device: they read a
// device's bytes, not its node, and never reach its end (cp /dev/zero f
// fills the disk as cat /dev/zero > f does).
func (s *shellAnalyzer) endlessCopy(argv []string) {
	argv, _ = unwrap(argv)
	if len(argv) < 3 {
		return
	}
	if verb := verbName(argv); verb != "cp" && verb != "install" {
		return
	}
	for _, a := range argv[1 : len(argv)-1] {
		if dev, ok := endlessDevice(a); ok {
			s.deny("%s copies %s, which never ends: it fills the disk", verbName(argv), dev)
			return
		}
	}
}

// fdArgEndless says whether a command reads, as a path operand, one of its
// descriptors (/dev/fd/N, /proc/self/fd/N, /dev/stdin) that an endless
// device is open on, and what that is.
func fdArgEndless(argv []string, fds *[10]string) (string, bool) {
	if fds == nil || len(argv) < 2 {
		return "", false
	}
	for _, a := range argv[1:] {
		if fd, ok := fdPath(a); ok && fds[fd] != "" {
			return fds[fd] + ", read as " + a, true
		}
	}
	return "", false
}
