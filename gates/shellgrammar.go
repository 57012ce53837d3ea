package gates

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"pp-lsp/internal/protname"
)

// grammarCmd judges a command whose program has a grammar (grammars.go):
// its words are read the way the program reads them, every file an option
// or operand names is judged as the read or write it is, an option the
// table does not know is never allowed, and a wrapper's command is judged
// as what runs.
func (s *shellAnalyzer) grammarCmd(verb string, g *grammar, args []string, in stdinSrc, here *string) {
	pc := g.parse(args)
	for _, u := range pc.unknown {
		if strings.HasPrefix(u, dynMarker) {
			s.ask("%s is given a word known only when it runs, which could be any option", verb)
			continue
		}
		s.ask("%s %s: an option pp-lsp's table of %s does not know", verb, printable(u), g.prog)
	}
	switch {
	case g.operandsRunCommand():
		s.wrapper(verb, g, args, pc, in, here)
		return
	case verb == "git":
		s.gitCmd(pc, args)
		return
	case verb == "find":
		s.find(args)
		return
	case verb == "cd" || verb == "pushd" || verb == "popd":
		s.chdir(verb, pc)
		return
	case g.prog == "tmux":
		s.terminalClient(verb, args)
		return
	case g.prog == "kitty":
		// kitty @ / kitten @ and wezterm cli reach the running terminal;
		// without them a new terminal starts.
		for _, a := range args {
			if strings.HasPrefix(a, "@") || a == "cli" || strings.Contains(a, dynMarker) {
				s.selfMod("%s %s drives the user's running terminal: it can type into the editor that approves Flight Plans", verb, printable(a))
				return
			}
		}
		s.ask("%s starts a terminal", verb)
		return
	}
	s.applyUses(verb, pc)
	s.applyOperands(verb, pc, in)
	switch {
	case g.prog == "jq":
		s.jqProgram(pc)
	case g.prog == "nvim" && in.kind == stdinLiteral:
		// Input that is not a terminal is typed into vim (its Ex
		// commands, with -e, -es or as ex).
		s.ask("%s takes its input as typed commands", verb)
		s.codeNames(verb+"'s input", in.text)
	case g.prog == "nvim" && in.kind == stdinUntrusted:
		s.ask("%s takes its input as typed commands", verb)
	}
}

// operandsRunCommand says whether the program runs a command given as its
// operands (a wrapper).
func (g *grammar) operandsRunCommand() bool {
	for _, r := range g.operands {
		if r == opdCommand {
			return true
		}
	}
	return false
}

// applyUses judges what the options of a parsed command name.
func (s *shellAnalyzer) applyUses(verb string, pc parsedCmd) {
	for _, u := range pc.uses {
		what := verb + " " + u.opt
		switch u.eff {
		case effRead:
			s.readFile(u.word, what+" reads")
		case effReadTree:
			s.readFileOrTree(u.word, what+" reads", pc.walkFilter(verb), pc.modes&effNoFollow == 0)
		case effMeta:
			s.touch(u.word, opRead, what+" uses")
		case effReadNames:
			s.readFile(u.word, what+" reads")
			s.ask("%s reads the names of more files from %s; those files cannot be checked before it runs", what, printable(u.word))
		case effWrite:
			s.touch(u.word, opWrite, what+" writes")
			s.wrote = true
			s.ask("%s writes %s", what, printable(u.word))
		case effCwd:
			s.touch(u.word, opRead, what+" works in")
		case effRun:
			if u.word == "" {
				s.ask("%s", u.why)
				continue
			}
			s.ask("%s: %s", what, u.why)
			s.judgeNested([]string{u.word})
		case effShell:
			if strings.Contains(u.word, dynMarker) {
				s.deny("%s runs a command known only when it runs", what)
				continue
			}
			s.payload(u.word, what)
		case effAsk:
			s.ask("%s: %s", what, u.why)
		case effDeny:
			s.deny("%s: %s", what, u.why)
		case effSelf:
			s.selfMod("%s: %s", what, u.why)
		case effCode:
			s.codeNames(what, u.word)
		}
	}
	if pc.modes&effOperandNames != 0 {
		s.ask("%s reads the names of more files from its operands; those files cannot be checked before it runs", verb)
	}
}

// applyOperands judges a parsed command's operands by their roles; in is
// what its standard input is.
func (s *shellAnalyzer) applyOperands(verb string, pc parsedCmd, in stdinSrc) {
	recursive := pc.modes&effRecurse != 0 || verb == "rg"
	shows := treeShows{namesOnly: pc.modes&effNamesOnly != 0, match: searchMatcher(verb, pc), follows: pc.modes&effFollow != 0}
	reads := 0
	for _, o := range pc.operands {
		switch o.role {
		case opdRead:
			reads++
			if recursive {
				s.readTree(o.word, verb+" reads", shows, pc.walkFilter(verb))
			} else {
				s.readFile(o.word, verb+" reads")
			}
		case opdReadTree:
			reads++
			s.readFileOrTree(o.word, verb+" reads", pc.walkFilter(verb), pc.modes&effNoFollow == 0)
		case opdMeta:
			s.touch(o.word, opRead, verb+" looks at")
		case opdWrite:
			s.touch(o.word, opWrite, verb+" writes")
			s.wrote = true
			s.ask("%s writes %s", verb, printable(o.word))
		case opdEditCmd:
			if c, ok := strings.CutPrefix(o.word, "+"); ok {
				// vim's +N goes to a line, +/PAT searches, +CMD runs
				// an Ex command, as -c does.
				if c != "" && !isDigits(c) && !strings.HasPrefix(c, "/") {
					s.editorCode(verb+" +", c)
				}
				continue
			}
			fallthrough
		case opdEdit:
			s.readFile(o.word, verb+" opens")
			s.touch(o.word, opWrite, verb+" may change")
			s.ask("%s opens %s in an editor", verb, printable(o.word))
		case opdDate:
			if !strings.HasPrefix(o.word, "+") {
				s.ask("%s %s sets the system clock", verb, printable(o.word))
			}
		case opdCwd:
			s.enter(o.word) // cd and pushd are judged by chdir
		}
	}
	// A recursive search given no file searches the working directory:
	// grep -r always, rg unless its input is a pipe (then it reads that).
	if reads == 0 && (verb == "rg" && in.kind == stdinNone || verb != "rg" && pc.modes&effRecurse != 0) {
		s.readTree(".", verb+" reads", shows, pc.walkFilter(verb))
	}
}

// treeShows is what a recursive read shows of the files it reads: only
// names and counts, or the lines a search matches. A private note below
// the folder is not a leak when the command shows only names, or when it
// is a search none of whose patterns occurs anywhere in the note.
type treeShows struct {
	// anyOne: the command reads one file of those below, not knowing
	// which, rather than all of them.
	anyOne    bool
	namesOnly bool
	// match, when set, says whether the search may print anything of a
	// file with this content; nil means it may print all of it.
	match func(data []byte) bool
	// follows: the command follows the symbolic links it meets below
	// (grep -R, rg -L, diff -r): one leading out of the roots is a read
	// of where it leads.
	follows bool
}

// searchMatcher returns, for a grep or rg search, a test of whether the
// search may print anything of a file: true when one of its patterns
// occurs in it (case folded, so a case-sensitive search is covered too).
// It is only made for patterns that are plain ASCII text; a regular
// expression, an inverted search (git grep's --not too), patterns read
// from a file, or a search through decoders prints what cannot be told,
// and gets nil.
func searchMatcher(verb string, pc parsedCmd) func([]byte) bool {
	if verb != "grep" && verb != "egrep" && verb != "fgrep" && verb != "rg" {
		return nil
	}
	fixed := verb == "fgrep"
	var pats []string
	for _, v := range pc.values {
		switch v.opt {
		case "-v", "--invert-match", "--not", "--passthru", "--passthrough", "-f", "--file", "--pre", "-z", "--search-zip":
			if v.opt == "-z" && verb != "rg" {
				continue // grep -z: NUL-separated lines, the text is the same
			}
			return nil
		case "--encoding":
			return nil
		case "-E":
			if verb == "rg" {
				return nil // rg -E: another encoding
			}
		case "-F", "--fixed-strings":
			fixed = true
		case "-e", "--regexp":
			pats = append(pats, v.val)
		}
	}
	if pc.modes&effPattern == 0 {
		for _, o := range pc.operands {
			if o.role == opdText {
				pats = append(pats, o.word)
				break
			}
		}
	}
	if len(pats) == 0 {
		return nil
	}
	var lits []string
	for _, p := range pats {
		for _, lit := range strings.Split(p, "\n") {
			if lit == "" || strings.Contains(lit, dynMarker) {
				return nil
			}
			for i := 0; i < len(lit); i++ {
				if c := lit[i]; c >= utf8.RuneSelf || c < 0x20 || !fixed && strings.IndexByte(`\.[]*^$+?(){}|`, c) >= 0 {
					return nil
				}
			}
			lits = append(lits, lit)
		}
	}
	return func(data []byte) bool {
		for _, lit := range lits {
			if containsFold(data, lit) {
				return true
			}
		}
		return false
	}
}

func hasValueOpt(pc parsedCmd, name string) bool {
	for _, v := range pc.values {
		if v.opt == name {
			return true
		}
	}
	return false
}

// chdir judges cd, pushd and popd (bash(1) 5.2) and follows where they
// leave the working directory. What the analysis does not model exactly
// leaves it known only when the command runs: cd - (it goes to $OLDPWD),
// a directory stack rotated or popped, pushd with no directory, an option
// the table does not know, more than one directory.
func (s *shellAnalyzer) chdir(verb string, pc parsedCmd) {
	for _, o := range pc.operands {
		s.touch(o.word, opRead, "enters")
	}
	if (verb == "pushd" || verb == "popd") && hasValueOpt(pc, "-n") {
		return // -n: the stack changes, the directory does not
	}
	if verb == "popd" || len(pc.unknown) > 0 || len(pc.operands) > 1 {
		s.setCwd(unknownCwd, "")
		return
	}
	if len(pc.operands) == 0 {
		if verb == "pushd" {
			s.setCwd(unknownCwd, "") // swaps the top two of the stack
			return
		}
		home := s.lookup("HOME") // cd with no directory enters $HOME
		if !home.ok || home.val == "" {
			s.setCwd(unknownCwd, "")
			return
		}
		s.enter(home.val)
		return
	}
	dir := pc.operands[0].word
	if verb == "cd" && dir == "-" || verb == "pushd" && (strings.HasPrefix(dir, "+") || strings.HasPrefix(dir, "-")) {
		s.setCwd(unknownCwd, "")
		return
	}
	s.enter(dir)
}

// enter follows a change of the working directory to dir: later relative
// paths are judged from there, inside the roots or not. A directory that
// does not exist now may be made by the command, or the change may fail
// and leave the shell where it was; a relative one is searched for in
// $CDPATH when that is set; bash reads a ".." in it from $PWD, the path
// as written, and cd -P and the kernel from the directory a symlink leads
// to: when those may differ, or in any of those cases, where the command
// goes on is known only when it runs.
func (s *shellAnalyzer) enter(dir string) {
	if strings.Contains(dir, dynMarker) || dir == "" {
		s.setCwd(unknownCwd, "")
		return
	}
	logical := ""
	if relativeWord(dir) {
		if cdpath := s.lookup("CDPATH"); !cdpath.ok || cdpath.val != "" {
			s.setCwd(unknownCwd, "")
			return
		}
		if pwd := s.lookup("PWD"); pwd.ok && filepath.IsAbs(pwd.val) {
			logical = filepath.Join(pwd.val, dir)
		}
	} else if filepath.IsAbs(dir) {
		logical = filepath.Clean(dir)
	}
	if s.dotsMayDiffer(dir) {
		s.setCwd(unknownCwd, "")
		return
	}
	l := s.env.locateFrom(dir, s.cwd)
	if l.abs == "" || !s.env.isDir(l.abs) || s.changedAbove(l.abs) {
		s.setCwd(unknownCwd, "")
		return
	}
	if logical != "" && s.env.locateFrom(logical, "/").abs != l.abs {
		logical = "" // $PWD was set to somewhere else
	}
	s.setCwd(l.abs, logical)
}

// dotsMayDiffer says whether a directory word holding ".." may lead
// elsewhere than the analysis reads it (lexically, from the canonical
// working directory): when $PWD is not that directory (it was entered
// through a symlink), or a part of the word before a ".." is a symlink.
func (s *shellAnalyzer) dotsMayDiffer(dir string) bool {
	parts := strings.Split(dir, "/")
	if !slices.Contains(parts, "..") {
		return false
	}
	base := s.cwd
	switch {
	case filepath.IsAbs(dir):
		base = "/"
	case !relativeWord(dir):
		return true // ~ or $: not worth reading more closely
	default:
		if pwd := s.lookup("PWD"); !pwd.ok || pwd.val != s.cwd {
			return true
		}
	}
	for i, p := range parts {
		if p != ".." {
			continue
		}
		prefix := filepath.Join(append([]string{base}, parts[:i]...)...)
		if _, sawLink := s.env.view().resolveExisting(prefix); sawLink {
			return true
		}
	}
	return false
}

// workIn moves the working directory to dir as chdir(2) does for a
// wrapper's command (env -C, sudo -D): no $CDPATH, ".." read through
// symlinks as locate reads it; a directory not there now fails the
// wrapper, which is known only when it runs.
func (s *shellAnalyzer) workIn(dir string) {
	l := s.env.locateFrom(dir, s.cwd)
	if strings.Contains(dir, dynMarker) || dir == "" || l.abs == "" || !s.env.isDir(l.abs) || s.changedAbove(l.abs) {
		s.setCwd(unknownCwd, "")
		return
	}
	s.setCwd(l.abs, l.abs)
}

// isDir says whether the canonical path abs is a directory now.
func (e *Env) isDir(abs string) bool {
	n := e.view().lstat(abs)
	return n.err == nil && n.mode.IsDir()
}

// readFile judges one file a command reads the content of: the paths
// rules as for any read, and the privacy rule: a file under the roots that
// holds a private note is never read by a command (its output cannot be
// filtered reliably). A glob reads every file it matches.
func (s *shellAnalyzer) readFile(raw, what string) {
	if raw == "" || raw == "-" || s.quiet {
		return
	}
	s.touch(raw, opRead, what)
	if i := strings.Index(raw, dynMarker); i >= 0 {
		// A file named only when it runs: any file below the part of its
		// name known now may be the one.
		dir := raw[:i]
		if j := strings.LastIndexByte(dir, '/'); j >= 0 {
			dir = dir[:j+1]
		} else {
			dir = "."
		}
		s.readTree(dir, what+" a file named only when it runs: it may be", treeShows{anyOne: true}, walkFilter{})
		return
	}
	if s.cwd == unknownCwd && relativeWord(raw) {
		s.readFromAnywhere(raw, what)
	}
	for _, p := range s.expandGlob(raw) {
		l := s.env.locateFrom(p, s.cwd)
		if l.abs == "" {
			continue
		}
		if l.class == pathProtected && l.root == 0 && isPlanOrJournal(l.rel) {
			s.addText(logReadProtected, l.rel)
		}
		if l.class != pathInside && l.class != pathProtected {
			continue
		}
		switch st := s.env.filePrivacy(l.abs); {
		case st.private:
			s.privateRead("%s %s, a private note (%s)", what, printable(p), st.why)
		case st.dir:
			// A directory given to a program that does not recurse: it
			// reads nothing of it.
		case st.unknown != "":
			s.ask("%s %s: %s", what, printable(p), st.unknown)
		}
	}
}

// editorCode judges an editor command given as an operand (vim +CMD): it
// asks, as -c does, and what it names is judged as -c's code is.
func (s *shellAnalyzer) editorCode(what, code string) {
	s.ask("%s%s runs an editor command", what, printable(code))
	s.codeNames(what, code)
}

// codeNames judges the files an editor's code names: pp-lsp's own (a
// Flight Plan it could approve) and private notes.
func (s *shellAnalyzer) codeNames(what, code string) {
	if w, ok := s.env.selfMention(code); ok {
		s.selfMod("%s runs editor commands naming %s: they could approve a Flight Plan", what, w)
	}
	if why, ok := s.env.privateInCode(`"` + code + `"`); ok {
		s.privateRead("%s", why)
	}
}

// readFileOrTree judges a word that names a file read, or a folder every
// file below which is read (diff journal notes compares the files of
// both; diff notes/x.org journal reads journal/x.org; diff -r reads
// every level): a folder is read as a recursive search reads it (one
// level or all, the same), a folder known only when it runs may be any
// root.
func (s *shellAnalyzer) readFileOrTree(raw, what string, f walkFilter, follows bool) {
	s.readFile(raw, what)
	if raw == "" || raw == "-" || s.quiet || strings.Contains(raw, dynMarker) {
		return
	}
	if s.cwd == unknownCwd && relativeWord(raw) {
		s.readTree(raw, what, treeShows{follows: follows}, f)
		return
	}
	for _, p := range s.expandGlob(raw) {
		if l := s.env.locateFrom(p, s.cwd); l.abs != "" && (l.class == pathInside || l.class == pathProtected) && s.env.filePrivacy(l.abs).dir {
			s.readTree(p, what, treeShows{follows: follows}, f)
		}
	}
}

// relativeWord says whether a path word is read from the working
// directory.
func relativeWord(raw string) bool {
	return !strings.HasPrefix(raw, "/") && !strings.HasPrefix(raw, "~") && !strings.HasPrefix(raw, "$")
}

// readFromAnywhere judges a relative read from a working directory known
// only when the command runs: that may be any folder of the roots, so a
// private note anywhere in them whose path ends as the word does may be
// the file read.
func (s *shellAnalyzer) readFromAnywhere(raw, what string) {
	switch rel, st := s.privateAnywhere(raw); st {
	case anywherePrivate:
		s.privateRead("%s %s from a folder known only when it runs: it may be %s, a private note", what, printable(raw), rel)
	case anywhereTooMany:
		s.ask("%s %s from a folder known only when it runs: too many files to check for private notes before it runs", what, printable(raw))
	}
}

// What a relative path from a folder known only when it runs may name.
const (
	anywhereNothing = iota // no private note
	anywherePrivate        // a private note (its path relative to its root given)
	anywhereTooMany        // the roots hold too many files to tell
)

// privateAnywhere says whether the relative path raw, read from any
// folder of the roots, may name a private note.
func (s *shellAnalyzer) privateAnywhere(raw string) (string, int) {
	q := filepath.Clean(raw)
	for strings.HasPrefix(q, "../") {
		q = q[3:]
	}
	if q == "." || q == ".." {
		return "", anywhereNothing // a folder: a program that does not recurse reads nothing of it
	}
	base := filepath.Base(q)
	if !hasGlob(raw) {
		base = escapeGlob(base)
	}
	parts := strings.Split(q, "/")
	for _, root := range s.env.roots {
		found, complete := s.env.privateBelow(root, walkFilter{include: []string{base}}, nil)
		for _, fp := range found {
			if endsLike(fp, parts, !hasGlob(raw)) {
				if r, err := filepath.Rel(root, fp); err == nil {
					fp = r
				}
				return fp, anywherePrivate
			}
		}
		if !complete || len(found) >= 4 {
			return "", anywhereTooMany
		}
	}
	return "", anywhereNothing
}

// endsLike says whether the path p ends with the components parts, read
// as globs unless literal.
func endsLike(p string, parts []string, literal bool) bool {
	comps := strings.Split(p, "/")
	if len(comps) < len(parts) {
		return false
	}
	comps = comps[len(comps)-len(parts):]
	for i, part := range parts {
		if literal {
			if comps[i] != part {
				return false
			}
		} else if ok, _ := path.Match(part, comps[i]); !ok {
			return false
		}
	}
	return true
}

// escapeGlob quotes the glob characters of a literal name.
func escapeGlob(name string) string {
	var b strings.Builder
	for _, r := range name {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// readTree judges a directory a command reads every file below (grep -r,
// rg): a private note anywhere below it is a private read, unless what the
// command shows of it cannot hold any of it (treeShows). A file named
// outright is read as readFile reads it.
func (s *shellAnalyzer) readTree(raw, what string, shows treeShows, f walkFilter) {
	if raw == "" || s.quiet {
		return
	}
	s.touch(raw, opRead, what)
	if strings.Contains(raw, dynMarker) {
		return
	}
	if s.cwd == unknownCwd && relativeWord(raw) {
		// From a folder known only when it runs: it may be a root.
		for _, root := range s.env.roots {
			s.readTree(root, what, shows, f)
		}
		return
	}
	for _, p := range s.expandGlob(raw) {
		l := s.env.locateFrom(p, s.cwd)
		if l.abs == "" || l.class != pathInside && l.class != pathProtected {
			continue
		}
		st := s.env.filePrivacy(l.abs)
		if !st.dir {
			if st.private {
				s.privateRead("%s %s, a private note (%s)", what, printable(p), st.why)
			}
			continue
		}
		if shows.namesOnly {
			continue
		}
		if s.env.homeDots != "" && strings.HasPrefix(s.env.homeDots, l.abs+"/") || l.abs == "/" && s.env.homeDots != "" {
			// The home folder lies below: its dot-entries (the shell's
			// history, every program's configuration) are no part of the
			// roots (classify), and the walk below reads them.
			s.ask("%s every file below %s, the home folder's dot-entries among them (the shell's history, programs' configuration), which no root holds", what, printable(p))
		}
		if shows.follows {
			s.linksOut(l.abs, p, what, f)
		}
		found, complete := s.env.privateBelow(l.abs, f, shows.match)
		if len(found) > 0 {
			rels := make([]string, 0, len(found))
			for _, fp := range found {
				if r, err := filepath.Rel(s.cwd, fp); err == nil {
					rels = append(rels, r)
				} else {
					rels = append(rels, fp)
				}
			}
			every := "every"
			if shows.anyOne {
				every = "any"
			}
			s.privateRead("%s %s file below %s, private notes among them (%s); leave them out (rg --glob '!NAME', grep --exclude=NAME) or name the files", what, every, printable(p), strings.Join(limitList(rels, 3), ", "))
		} else if !complete {
			s.ask("%s every file below %s: too many to check for private notes before it runs", what, printable(p))
		}
	}
}

// linksOut judges the symbolic links below dir that lead out of the
// roots, for a command that follows them (grep -R through a link to /etc
// printed /etc/shadow-): each target is read as where it leads, outside
// the roots (asks) or a credential store (denied).
func (s *shellAnalyzer) linksOut(dir, raw, what string, f walkFilter) {
	links, complete := s.env.linksOut(dir, f)
	for _, ln := range links {
		rel, err := filepath.Rel(s.cwd, ln[0])
		if err != nil {
			rel = ln[0]
		}
		s.touch(ln[1], opRead, what+" "+printable(rel)+", a symbolic link to")
	}
	if !complete {
		s.ask("%s every file below %s, following its symbolic links: too many to check before it runs", what, printable(raw))
	}
}

// expandGlob returns the paths a word may name: the word itself and, when
// it holds glob characters or a brace expansion, every file it matches
// now.
func (s *shellAnalyzer) expandGlob(raw string) []string {
	out, more := s.env.expandGlobFrom(raw, s.cwd)
	if more {
		s.ask("%s matches more than %d files; too many to check before it runs", printable(raw), maxGlobMatches)
	}
	return out
}

// expandGlobFrom is expandGlob for a word read relative to dir; more
// reports matches left out past maxGlobMatches. A brace group is read as
// "*", which matches all it could name.
func (e *Env) expandGlobFrom(raw, dir string) (out []string, more bool) {
	out = []string{raw}
	if !hasGlob(raw) {
		return out, false
	}
	pat := raw
	for {
		i := strings.IndexByte(pat, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(pat[i:], '}')
		if j < 0 {
			break
		}
		pat = pat[:i] + "*" + pat[i+j+1:]
	}
	abs := pat
	if p, ok := e.expand(pat); ok && (filepath.IsAbs(p) || strings.HasPrefix(pat, "~") || strings.HasPrefix(pat, "$")) {
		abs = p
	} else if !filepath.IsAbs(abs) {
		abs = filepath.Join(dir, pat)
	}
	// Only what the glob may match inside the roots matters here (private
	// notes, the files only a human changes); a glob over /bin is not
	// expanded.
	fixed := abs
	if i := strings.IndexAny(fixed, "*?["); i >= 0 {
		fixed = filepath.Dir(fixed[:i+1])
	}
	if l := e.locate(fixed, "."); l.class != pathInside && l.class != pathProtected {
		return out, false
	}
	matches, ok, err := e.view().glob(abs)
	if !ok {
		matches, err = filepath.Glob(abs)
	}
	if err != nil {
		return out, false
	}
	if len(matches) > maxGlobMatches {
		matches, more = matches[:maxGlobMatches], true
	}
	return append(out, matches...), more
}

// hasGlob says whether a word holds a glob (*, ?, [) or a brace
// expansion ({a,b}, {1..3}) that bash would expand.
func hasGlob(w string) bool {
	if strings.ContainsAny(w, "*?[") {
		return true
	}
	for {
		i := strings.IndexByte(w, '{')
		if i < 0 {
			return false
		}
		j := strings.IndexByte(w[i:], '}')
		if j < 0 {
			return false
		}
		if g := w[i : i+j]; strings.Contains(g, ",") || strings.Contains(g, "..") {
			return true
		}
		w = w[i+j:]
	}
}

// maxGlobMatches bounds the files one glob is expanded to.
const maxGlobMatches = 1000

// isPlanOrJournal says whether a root-relative path is one of the files
// only a human changes at a root's top: internal/protname's Top entries
// (the Flight Plans and the journal).
func isPlanOrJournal(rel string) bool {
	e, ok := protname.Match(rel, 0)
	return ok && e.Kind == protname.Top
}

// privateRead records a read of a private note: the privacy vector denies
// the action.
func (s *shellAnalyzer) privateRead(format string, a ...any) {
	if s.quiet {
		return
	}
	s.addText(logPrivate, fmt.Sprintf(format, a...))
}

// selfMod records a way into the user's own editor or terminal session:
// the self-modification vector denies the action.
func (s *shellAnalyzer) selfMod(format string, a ...any) {
	if s.quiet {
		return
	}
	s.addText(logSelf, fmt.Sprintf(format, a...))
}

// terminalClient judges tmux and screen: a client of the user's terminal
// server can type into the editor that approves Flight Plans, or run a
// command outside this action's sandbox. Only listing is allowed to ask.
func (s *shellAnalyzer) terminalClient(verb string, args []string) {
	readOnly := map[string]bool{"-V": true, "ls": true, "list-sessions": true, "list-windows": true, "list-panes": true,
		"list-clients": true, "has-session": true, "has": true, "-ls": true, "-list": true, "-v": true, "-version": true,
		"--version": true, "--help": true, "-h": true, "--serverlist": true}
	for _, a := range args {
		if strings.HasPrefix(a, "-") && !readOnly[a] {
			continue
		}
		if readOnly[a] {
			s.ask("%s talks to the user's terminal server", verb)
			return
		}
		break
	}
	s.selfMod("%s drives the user's terminal server: it can type into the editor that approves Flight Plans, or run commands outside this action's sandbox", verb)
}

// wrapper judges a program that runs a command: the command is judged as
// what runs (a deny inside is a deny), and the wrapper's own risk is
// added.
func (s *shellAnalyzer) wrapper(verb string, g *grammar, args []string, pc parsedCmd, in stdinSrc, here *string) {
	s.applyUses(verb, pc)
	cmd := pc.command
	switch verb {
	case "sudo", "doas", "pkexec", "run0":
		s.ask("runs with root privileges (%s)", verb)
	case "runuser", "su":
		s.ask("runs as another user (%s)", verb)
		if !hasValueOpt(pc, "-u") && !hasValueOpt(pc, "--user") && len(cmd) > 0 {
			cmd = cmd[1:] // the user
			if len(cmd) > 0 {
				// su USER ARGS hands ARGS to the user's shell.
				s.shellVerb("sh", cmd, in, here)
				return
			}
		}
	case "nohup", "setsid":
		s.ask("keeps running after the action returns (%s)", verb)
	case "chroot", "unshare", "nsenter", "firejail", "proot", "bwrap", "fakechroot":
		s.ask("runs in a changed root or namespace (%s)", verb)
	case "systemd-run":
		s.deny("systemd-run starts the command as a service, outside this action's sandbox and after it ends")
	case "flock":
		// flock FILE -c COMMAND: flock reads -c after the file itself.
		if len(cmd) >= 2 && (cmd[0] == "-c" || cmd[0] == "--command") {
			s.payload(cmd[1], "flock -c")
			return
		}
	case "xargs":
		s.ask("xargs runs a command on arguments read from its input")
		if len(cmd) > 0 {
			s.judgeNested(append(append([]string(nil), cmd...), dynMarker))
			if s.readsOperands(cmd) {
				// The files it is given are not known: any below here.
				s.readTree(".", "xargs "+verbName(cmd)+" may read", treeShows{}, walkFilter{})
			}
		}
		return
	case "parallel":
		s.ask("parallel runs commands on arguments read from ::: lists or its input")
		for i, w := range cmd {
			if strings.HasPrefix(w, ":::") {
				if w == "::::" {
					for _, f := range cmd[i+1:] {
						s.readFile(f, "parallel reads arguments from")
					}
				}
				cmd = cmd[:i]
				break
			}
		}
		if len(cmd) == 1 && strings.ContainsAny(cmd[0], " \t;|&") {
			s.payload(strings.ReplaceAll(cmd[0], "{}", dynMarker), "parallel")
		} else if len(cmd) > 0 {
			s.judgeNested(append(append([]string(nil), cmd...), dynMarker))
		}
		return
	case "watch":
		if hasValueOpt(pc, "-x") || hasValueOpt(pc, "--exec") {
			break
		}
		s.payload(strings.Join(cmd, " "), "watch")
		return
	case "command":
		if pc.modes&effNoFiles != 0 {
			return // command -v: a lookup
		}
	case "env":
		if pc.modes&effNoFiles == 0 {
			for len(cmd) > 0 && strings.Contains(cmd[0], "=") && !strings.HasPrefix(cmd[0], "=") {
				k, v, _ := strings.Cut(cmd[0], "=")
				s.exportVar(k, word{val: v})
				cmd = cmd[1:]
			}
			if len(cmd) == 0 && !hasValueOpt(pc, "-S") && !hasValueOpt(pc, "--split-string") {
				s.ask("prints the environment, which may hold secrets")
			}
		}
	case "chronic", "unbuffer", "time", "exec", "builtin", "timeout", "nice", "ionice", "chrt", "taskset", "stdbuf",
		"eatmydata", "nocache", "fakeroot", "caffeinate", "catchsegv", "setpriv", "busybox":
	case "torsocks", "proxychains", "proxychains4":
		s.ask("%s sends the command's connections through a proxy", verb)
	default:
		s.ask("runs a command under %s", verb)
	}
	if len(pc.unknown) > 0 {
		// The table does not know an option, so where the command starts
		// is not sure: every start is judged, and any of them that is
		// refused refuses the whole.
		for i := range args {
			if !strings.HasPrefix(args[i], "-") && i > 0 {
				s.denyingReading(args[i:])
			}
		}
	}
	if len(cmd) == 0 {
		if verb == "chroot" || verb == "unshare" || verb == "nsenter" || verb == "script" {
			s.ask("%s starts an interactive shell", verb)
		}
		return
	}
	s.addCmd(shellCmd{argv: cmd})
	s.mentions(cmd)
	mark := len(s.trail)
	for _, u := range pc.uses {
		if u.eff == effCwd {
			s.workIn(u.word) // env -C, sudo -D, unshare --wd: the command runs there
		}
	}
	if verb == "nsenter" && (hasValueOpt(pc, "-w") || hasValueOpt(pc, "--wd") || hasValueOpt(pc, "-W") || hasValueOpt(pc, "--wdns")) {
		s.setCwd(unknownCwd, "") // a directory of another process or namespace
	}
	s.judge(cmd, in, here)
	if verb != "builtin" && verb != "command" {
		// Another process runs the command: a builtin it names (cd)
		// does not change this shell.
		s.undoVars(mark)
	}
}

// denyingReading judges argv as a command and adopts only its denies: a
// reading of the words that may or may not be the one that runs.
func (s *shellAnalyzer) denyingReading(argv []string) {
	// The reading shares the maps of functions and downloads without
	// logging what it does to them: an analysis around it is not
	// remembered.
	s.spoil()
	if s.quiet || len(s.rep.cmds) >= maxShellCommands {
		return
	}
	// Its variables are a copy: a reading that may not be the one that
	// runs sets nothing here (cd sets $PWD).
	sub := &shellAnalyzer{env: s.env, cwd: s.cwd, known: s.known, depth: s.depth + 1,
		rep: &shellReport{}, vars: s.vars.clone(), funcs: s.funcs, downloads: s.downloads, inFunc: s.inFunc}
	sub.judge(argv, stdinSrc{}, nil)
	for _, d := range sub.rep.denies {
		s.deny("%s", d)
	}
	for _, p := range sub.rep.private {
		s.privateRead("%s", p)
	}
	for _, p := range sub.rep.self {
		s.selfMod("%s", p)
	}
}
