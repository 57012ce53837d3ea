package gates

import (
	"path"
	"strings"
)

// gitReadOnly subcommands only read the repository.
var gitReadOnly = map[string]bool{
	"status": true, "log": true, "diff": true, "show": true, "blame": true, "shortlog": true,
	"describe": true, "rev-parse": true, "ls-files": true, "grep": true, "whatchanged": true,
	"reflog": false, "cat-file": true, "ls-tree": true, "rev-list": true, "name-rev": true, "annotate": true,
}

// gitNetwork subcommands talk to another machine.
var gitNetwork = map[string]bool{"push": true, "fetch": true, "pull": true, "clone": true, "ls-remote": true, "submodule": true, "remote": true, "request-pull": true, "send-email": true, "archive": false}

// gitDestructive subcommands can discard work.
var gitDestructive = map[string]bool{"clean": true, "reset": true, "checkout": true, "restore": true, "rm": true, "branch": true, "stash": true, "gc": true, "prune": true, "filter-branch": true, "filter-repo": true, "rebase": true, "update-ref": true, "worktree": true}

// find judges find: its starting points are read; -exec and friends run
// a command on what it finds; -delete deletes it; -fprint writes.
func (s *shellAnalyzer) find(args []string) {
	var starts []string
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == ")" {
			break
		}
		starts = append(starts, a)
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	for _, st := range starts {
		s.touch(st, opRead, "searches")
	}
	for ; i < len(args); i++ {
		switch a := args[i]; a {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j] != ";" && args[j] != "+" {
				j++
			}
			inner := append([]string(nil), args[i+1:j]...)
			i = j
			if len(inner) == 0 {
				continue
			}
			s.ask("find %s runs a command on every file found", a)
			for k, w := range inner {
				if strings.Contains(w, "{}") {
					inner[k] = strings.ReplaceAll(w, "{}", starts[0])
				}
			}
			s.judgeNested(inner)
		case "-delete":
			s.ask("find -delete deletes every file found")
			for _, st := range starts {
				l := s.env.locateFrom(st, s.cwd)
				if l.class != pathInside {
					s.touch(st, opDelete, "find -delete deletes below")
				}
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(args) {
				s.touch(args[i+1], opWrite, "writes")
				i++
			}
		}
	}
}

// sed judges sed: files are read, or written with -i; a script that
// runs commands (e) or writes files (w) asks.
func (s *shellAnalyzer) sed(args []string) {
	inPlace := false
	script := ""
	haveScript := false
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-e" || a == "--expression":
			if i+1 < len(args) {
				script += args[i+1] + "\n"
				haveScript = true
				i++
			}
		case a == "-f" || a == "--file":
			s.ask("sed runs a script file")
			haveScript = true
			i++
		case strings.HasPrefix(a, "-i") || strings.HasPrefix(a, "--in-place") || a == "-s":
			inPlace = inPlace || a != "-s"
		case strings.HasPrefix(a, "-") && len(a) > 1 && !strings.HasPrefix(a, "--"):
			if strings.Contains(a, "i") {
				inPlace = true
			}
		case strings.HasPrefix(a, "-"):
		case !haveScript:
			script, haveScript = a, true
		default:
			files = append(files, a)
		}
	}
	if sedRunsCommands(script) {
		s.ask("the sed script runs commands or writes files")
	}
	op, verb := opRead, "reads"
	if inPlace {
		op, verb = opWrite, "edits in place"
	}
	for _, f := range files {
		s.touch(f, op, verb)
	}
}

// sedRunsCommands spots GNU sed's e command and w/W file writes.
func sedRunsCommands(script string) bool {
	for _, line := range strings.FieldsFunc(script, func(r rune) bool { return r == '\n' || r == ';' }) {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		last := t[len(t)-1]
		if strings.HasPrefix(t, "e") || strings.HasPrefix(t, "w ") || strings.HasPrefix(t, "W ") || last == 'e' && strings.HasPrefix(t, "s") && strings.Count(t, string(t[1])) >= 3 {
			return true
		}
		if strings.HasPrefix(t, "s") && len(t) > 1 {
			parts := strings.Split(t, string(t[1]))
			if len(parts) >= 4 && strings.ContainsAny(parts[len(parts)-1], "ew") {
				return true
			}
		}
	}
	return false
}

// gitCommandKey says whether git runs the value of a setting as a command.
func gitCommandKey(k string) bool {
	k = strings.ToLower(k)
	for _, p := range []string{"core.pager", "core.sshcommand", "core.editor", "core.fsmonitor", "core.hookspath", "core.askpass", "diff.external", "sequence.editor", "credential.helper", "uploadpack.packobjectshook", "gpg.program", "pager.", "alias.", "filter.", "diff.", "merge.", "protocol."} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// git judges git by subcommand: reads pass, network and history
// rewriting ask, configuration that runs commands is denied, and -c
// settings that hold a command are analysed as shell.
func (s *shellAnalyzer) git(args []string) {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c":
			if i+1 < len(args) {
				k, v, _ := strings.Cut(args[i+1], "=")
				if gitCommandKey(k) {
					if strings.HasPrefix(strings.ToLower(k), "alias.") && strings.HasPrefix(v, "!") {
						v = v[1:]
					}
					s.payload(v, "git -c "+k)
				} else {
					s.ask("git -c changes git's configuration for this run")
				}
				i++
			}
		case a == "-C":
			if i+1 < len(args) {
				s.touch(args[i+1], opRead, "runs git in")
				i++
			}
		case a == "--git-dir" || a == "--work-tree" || a == "--exec-path" || strings.HasPrefix(a, "--git-dir=") || strings.HasPrefix(a, "--work-tree=") || strings.HasPrefix(a, "--exec-path="):
			s.ask("points git at another repository or program")
			if !strings.Contains(a, "=") {
				i++
			}
		case strings.HasPrefix(a, "-"):
		default:
			goto sub
		}
	}
sub:
	if i >= len(args) {
		return
	}
	sub, rest := args[i], args[i+1:]
	for _, r := range rest {
		if strings.HasPrefix(r, "--output") || strings.HasPrefix(r, "--ext-diff") || strings.HasPrefix(r, "--textconv") || strings.HasPrefix(r, "--upload-pack") || strings.HasPrefix(r, "--receive-pack") || strings.HasPrefix(r, "--exec") {
			if v, ok := optValue(r); ok && strings.HasPrefix(r, "--output") {
				s.touch(v, opWrite, "git writes")
			}
			s.ask("git %s %s writes files or runs a program", sub, r)
		}
	}
	switch {
	case gitReadOnly[sub]:
		for _, r := range rest {
			if pathLike(r) {
				s.touch(r, opRead, "git reads")
			}
		}
	case sub == "config":
		if hasFlag(rest, "--get", "--get-all", "--list", "-l", "--get-regexp") {
			return
		}
		s.deny("git config changes configuration that runs commands (hooks, pagers, helpers)")
	case gitNetwork[sub]:
		s.ask("git %s talks to another machine", sub)
		if sub == "push" {
			s.ask("git push publishes the notes")
		}
	case gitDestructive[sub]:
		s.ask("git %s can discard work", sub)
	default:
		s.ask("git %s changes the repository", sub)
	}
}

// deleteCmd judges rm and its kind: deletes ask inside the roots and are
// denied outside them, and a recursive delete of /, ~ or a whole root is
// denied.
func (s *shellAnalyzer) deleteCmd(verb string, args []string) {
	opts, targets := splitOpts(args, nil)
	recursive := hasShortFlag(opts, 'r', "--recursive") || hasShortFlag(opts, 'R', "")
	if len(targets) == 0 {
		return
	}
	s.ask("%s deletes files", verb)
	for _, t := range targets {
		if recursive && (t == "/" || t == "~" || t == "/*" || t == "~/*" || t == "." || t == "*") {
			l := s.env.locateFrom(t, s.cwd)
			if l.class != pathInside || l.rel == "." {
				s.deny("%s -r %s deletes everything below it", verb, t)
				continue
			}
		}
		s.touch(t, opDelete, verb+" deletes")
	}
}

// copyCmd judges cp, mv, install, ln, rsync and scp: sources are read
// (mv: deleted), the destination written; a symlink out of the roots and
// rsync --delete are denied.
func (s *shellAnalyzer) copyCmd(verb string, args []string) {
	opts, ops := splitOpts(args, copyOpts)
	if verb == "rsync" && hasFlag(opts, "--delete", "--delete-before", "--delete-after", "--delete-during", "--delete-excluded", "--del", "--remove-source-files") {
		s.deny("rsync --delete removes every file the source lacks")
	}
	if len(ops) == 0 {
		return
	}
	dest := ""
	sources := ops
	for i, o := range opts {
		if (o == "-t" || o == "--target-directory") && i+1 < len(opts) {
			dest = opts[i+1]
		} else if strings.HasPrefix(o, "--target-directory=") {
			dest, _ = optValue(o)
		}
	}
	if dest == "" {
		if len(ops) >= 2 {
			dest, sources = ops[len(ops)-1], ops[:len(ops)-1]
		} else if verb == "ln" {
			dest = path.Base(ops[0])
		}
	}
	remote := func(p string) bool {
		i := strings.IndexByte(p, ':')
		return i > 0 && !strings.Contains(p[:i], "/") && (verb == "scp" || verb == "rsync")
	}
	symbolic := verb == "ln" && (hasShortFlag(opts, 's', "--symbolic"))
	for _, src := range sources {
		switch {
		case remote(src):
			s.network(verb, []string{src})
		case symbolic:
			l := s.env.locateFrom(src, s.absDir(dest))
			if l.class == pathCredential {
				s.deny("links to %s: %s", src, l.why)
			} else if l.class != pathInside {
				s.deny("makes a link inside the roots to %s, outside them", src)
			}
		case verb == "mv":
			s.touch(src, opDelete, "moves away")
		default:
			s.touch(src, opRead, verb+" reads")
		}
	}
	if dest != "" {
		if remote(dest) {
			s.network(verb, []string{dest})
			s.ask("%s copies files to another machine", verb)
		} else {
			s.touch(dest, opWrite, verb+" writes")
		}
	}
	if verb == "mv" || verb == "cp" || verb == "ln" || verb == "install" {
		s.ask("%s changes files", verb)
	}
}

// absDir is the directory a link's relative target is resolved from.
func (s *shellAnalyzer) absDir(dest string) string {
	l := s.env.locateFrom(dest, s.cwd)
	if l.abs == "" {
		return s.cwd
	}
	return path.Dir(l.abs)
}

// dd judges dd's if= and of= operands.
func (s *shellAnalyzer) dd(args []string) {
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			continue
		}
		switch k {
		case "if":
			s.touch(v, opRead, "dd reads")
		case "of":
			s.touch(v, opWrite, "dd writes")
		}
	}
	s.ask("dd copies raw bytes")
}

// tar judges an archive: created archives are writes, extraction writes
// into -C or the working directory.
func (s *shellAnalyzer) tar(args []string) {
	create, extract := false, false
	archive, dir := "", ""
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || a == "--file":
			if i+1 < len(args) {
				archive = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--file="):
			archive, _ = optValue(a)
		case a == "-C" || a == "--directory":
			if i+1 < len(args) {
				dir = args[i+1]
				i++
			}
		case a == "--create" || a == "--append" || a == "--update":
			create = true
		case a == "--extract" || a == "--get":
			extract = true
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") || i == 0 && !strings.Contains(a, "/"):
			letters := strings.TrimPrefix(a, "-")
			create = create || strings.ContainsAny(letters, "cru")
			extract = extract || strings.Contains(letters, "x")
			if strings.HasSuffix(letters, "f") && i+1 < len(args) {
				archive = args[i+1]
				i++
			}
		default:
			files = append(files, a)
		}
	}
	if archive != "" && archive != "-" {
		if create {
			s.touch(archive, opWrite, "tar writes")
		} else {
			s.touch(archive, opRead, "tar reads")
		}
	}
	if extract {
		target := dir
		if target == "" {
			target = "."
		}
		s.touch(target, opWrite, "tar extracts into")
		s.ask("tar extracts files")
	}
	for _, f := range files {
		s.touch(f, opRead, "tar reads")
	}
	if create {
		s.ask("tar writes an archive")
	}
}

// kill judges signals: killing every process is denied, others ask.
func (s *shellAnalyzer) kill(verb string, args []string) {
	for _, a := range args {
		if a == "-1" && verb == "kill" || verb == "killall5" {
			s.deny("%s -1 kills every process the user owns", verb)
			return
		}
	}
	if verb == "kill" && len(args) >= 2 && args[len(args)-1] == "-1" {
		s.deny("kill ... -1 kills every process the user owns")
		return
	}
	if verb == "pkill" && (hasFlag(args, "-u", "-U") && len(args) <= 3) {
		s.deny("pkill -u kills every process of a user")
		return
	}
	s.ask("%s stops processes", verb)
}

// readOnly checks the paths a read-only command is given: inside the roots
// it needs nothing; outside, a human.
func (s *shellAnalyzer) readOnly(verb string, args []string) {
	if noPathArgs[verb] || verb == "cd" && len(args) == 0 {
		return
	}
	if verb == "cd" {
		s.touch(args[0], opRead, "enters")
		if l := s.env.locateFrom(args[0], s.cwd); l.abs != "" && l.class == pathInside {
			s.cwd = l.abs
		}
		return
	}
	if verb == "git" {
		s.git(args)
		return
	}
	if verb == "xxd" {
		_, ops := splitOpts(args, xxdOpts)
		if len(ops) >= 2 {
			s.touch(ops[1], opWrite, "xxd writes")
		}
	}
	skipPattern := verb == "grep" || verb == "egrep" || verb == "fgrep" || verb == "rg"
	for _, o := range args {
		if skipPattern && (o == "-e" || o == "-f" || o == "--regexp" || o == "--file" || strings.HasPrefix(o, "--regexp=") || strings.HasPrefix(o, "-e")) {
			skipPattern = false
		}
		if (verb == "sort" || verb == "tree" || verb == "uniq") && (o == "-o" || strings.HasPrefix(o, "--output")) {
			s.ask("%s writes its output to a file", verb)
		}
	}
	_, ops := splitOpts(args, readOnlyOpts)
	for i, o := range ops {
		if i == 0 && skipPattern {
			continue
		}
		if pathLike(o) {
			s.touch(o, opRead, verb+" reads")
		}
	}
	for i, o := range args {
		if (o == "-o" || o == "--output") && (verb == "sort" || verb == "tree") && i+1 < len(args) {
			s.touch(args[i+1], opWrite, verb+" writes")
		}
		if v, ok := optValue(o); ok && strings.HasPrefix(o, "-") && pathLike(v) {
			s.touch(v, opRead, verb+" reads")
		}
	}
}
