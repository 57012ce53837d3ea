package gates

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"pp-lsp/internal/gitobj"
)

// gitReadOnly subcommands only read the repository.
var gitReadOnly = map[string]bool{
	"status": true, "log": true, "diff": true, "show": true, "blame": true, "shortlog": true,
	"describe": true, "rev-parse": true, "ls-files": true, "grep": true, "whatchanged": true,
	"reflog": false, "cat-file": true, "ls-tree": true, "rev-list": true, "name-rev": true, "annotate": true,
}

// gitNetwork subcommands talk to another machine.
var gitNetwork = map[string]bool{"push": true, "fetch": true, "pull": true, "clone": true, "ls-remote": true, "submodule": true, "remote": true, "request-pull": true, "send-email": true, "archive": false}

// gitHistoryShows are the subcommands without a table that can print or
// write out files as a commit, a tree, a stash or the index holds them
// (git-whatchanged(1) -p, git-reflog(1) show -p, git-cat-file(1),
// git-archive(1), git-format-patch(1), git-stash(1) show -p,
// git-diff-tree(1) and git-diff-index(1) -p, git-range-diff(1),
// git-fast-export(1), git-bundle(1), git-unpack-file(1),
// git-checkout-index(1), git-difftool(1), git-for-each-ref(1)
// %(raw)): whatever else they do, they ask for that too.
var gitHistoryShows = map[string]bool{
	"whatchanged": true, "reflog": true, "cat-file": true, "archive": true, "format-patch": true, "stash": true,
	"diff-tree": true, "diff-index": true, "range-diff": true, "fast-export": true, "bundle": true, "unpack-file": true,
	"checkout-index": true, "difftool": true, "for-each-ref": true,
}

// gitDestructive subcommands can discard work.
var gitDestructive = map[string]bool{"clean": true, "reset": true, "checkout": true, "restore": true, "rm": true, "branch": true, "stash": true, "gc": true, "prune": true, "filter-branch": true, "filter-repo": true, "rebase": true, "update-ref": true, "worktree": true}

// find judges find by its expression (findPrimaries): its starting points
// are searched (names only); -exec and friends run a command on what it
// finds, which is judged as what runs, and read every file found when the
// command reads its operands; -delete deletes; -fprint writes; a word of
// the expression the table does not know is never allowed.
func (s *shellAnalyzer) find(args []string) {
	i := 0
lead:
	for i < len(args) {
		switch a := args[i]; {
		case a == "-H" || a == "-L" || a == "-P":
			i++
		case a == "-D":
			i += 2
		case strings.HasPrefix(a, "-O"):
			i++
		default:
			break lead
		}
	}
	var starts []string
	for ; i < len(args); i++ {
		a := args[i]
		if len(a) > 1 && strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == ")" || a == "," {
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
	expr := args[i:]
	filter := findNameFilter(expr)
	for ; i < len(args); i++ {
		a := args[i]
		switch a {
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
			inDir := a == "-execdir" || a == "-okdir"
			found := false
			for k, w := range inner {
				if strings.Contains(w, "{}") {
					start := starts[0]
					if l := s.env.locateFrom(start, s.cwd); inDir && l.abs != "" {
						start = l.abs
					}
					inner[k] = strings.ReplaceAll(w, "{}", start)
					found = true
				}
			}
			if inDir {
				// It runs in the folder of each file found: its other
				// words are read from a folder known only when it runs.
				mark := len(s.trail)
				s.setCwd(unknownCwd, "")
				s.judgeNested(inner)
				s.undoVars(mark)
			} else {
				s.judgeNested(inner)
			}
			if found && s.readsOperands(inner) {
				for _, st := range starts {
					s.readTree(st, "find "+a+" "+verbName(inner)+" reads", treeShows{}, filter)
				}
			}
			continue
		}
		p, ok := findPrimaries[a]
		if !ok && strings.HasPrefix(a, "-newer") && len(a) == len("-newerXY") {
			p, ok = findPrimary{args: 1, eff: effMeta}, true
		}
		if !ok {
			s.ask("find %s: a word of find's expression pp-lsp's table of find does not know", printable(a))
			continue
		}
		if i+p.args >= len(args) {
			i = len(args)
			continue
		}
		v := ""
		if p.args > 0 {
			v = args[i+1]
		}
		switch p.eff {
		case effWrite:
			s.touch(v, opWrite, "find "+a+" writes")
			s.wrote = true
			s.ask("find %s writes %s", a, printable(v))
			if a == "-fprintf" {
				if w, _ := formatWidth(args[i+2]); w > maxFieldWidth {
					s.deny("find -fprintf pads a field to more than a megabyte in %s: it fills the disk", printable(v))
				}
			}
		case effMeta:
			s.touch(v, opRead, "find "+a+" looks at")
		case effReadNames:
			s.readFile(v, "find "+a+" reads")
			s.ask("find %s reads the names of more files from %s", a, printable(v))
		case effAsk:
			s.ask("%s", p.why)
			if a == "-delete" {
				for _, st := range starts {
					l := s.env.locateFrom(st, s.cwd)
					if l.class != pathInside {
						s.touch(st, opDelete, "find -delete deletes below")
					}
				}
			}
		}
		i += p.args
	}
}

// findNameFilter is the base-name filter of a find expression that is
// one -name or -iname test joined to other tests by "and" alone: the only
// files an -exec can then be given. Anything else filters nothing.
func findNameFilter(expr []string) walkFilter {
	var f walkFilter
	for _, w := range expr {
		switch w {
		case "-o", "-or", "!", "-not", ",", "(", ")":
			return walkFilter{}
		}
	}
	for k, w := range expr {
		if (w == "-name" || w == "-iname") && k+1 < len(expr) {
			if len(f.include) > 0 {
				return walkFilter{}
			}
			f.include = []string{expr[k+1]}
			f.fold = w == "-iname"
		}
	}
	if len(f.include) == 1 {
		if _, err := path.Match(f.include[0], "x"); err != nil {
			return walkFilter{}
		}
	}
	return f
}

// readsOperands says whether a command reads the content of its operands
// (cat, grep) rather than only their names (ls, stat, echo).
func (s *shellAnalyzer) readsOperands(argv []string) bool {
	argv, _ = unwrap(argv)
	if len(argv) == 0 {
		return false
	}
	g, ok, _ := grammarFor(verbName(argv))
	if !ok {
		return verbKinds[verbName(argv)]&kindDelete == 0
	}
	// One more operand stands for the files it is handed ({} or xargs'
	// input): what role does the program give it?
	pc := g.parse(append(append([]string(nil), argv[1:]...), "\x00file"))
	for _, o := range pc.operands {
		if o.role == opdRead || o.role == opdEdit || o.role == opdReadTree {
			return true
		}
	}
	return len(pc.command) > 0
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
		s.readFile(f, "sed "+verb)
		if op == opWrite {
			s.touch(f, op, verb)
		}
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

// gitCmd judges git: its options before the subcommand by git's table,
// then the subcommand. A read-only subcommand a default rule allows is
// read by its own table: what it writes, what it runs, and which files'
// content it shows (all the repository's, when no path narrows it). Any
// other subcommand asks (network, history rewriting) or is denied
// (configuration that runs commands), as before.
func (s *shellAnalyzer) gitCmd(pc parsedCmd, args []string) {
	gitCwd := s.cwd
	uses := pc.uses[:0:0]
	for _, u := range pc.uses {
		switch u.opt {
		case "-c":
			k, v, _ := strings.Cut(u.word, "=")
			if gitCommandKey(k) {
				if strings.HasPrefix(strings.ToLower(k), "alias.") && strings.HasPrefix(v, "!") {
					v = v[1:]
				}
				s.payload(v, "git -c "+k)
			} else {
				s.ask("git -c changes git's configuration for this run")
			}
			continue
		case "-C":
			if l := s.env.locateFrom(u.word, gitCwd); l.abs != "" {
				gitCwd = l.abs
			}
		}
		uses = append(uses, u)
	}
	pc.uses = uses
	s.applyUses("git", pc)
	if len(pc.operands) == 0 {
		return
	}
	sub := pc.operands[0].word
	rest := make([]string, 0, len(pc.operands)-1)
	for _, o := range pc.operands[1:] {
		rest = append(rest, o.word)
	}
	saved := s.cwd
	s.cwd = gitCwd
	defer func() { s.cwd = saved }()
	sg := pc.g.subs[sub]
	if sg == nil {
		s.gitOther(sub, rest)
		return
	}
	spc := sg.parse(rest)
	for _, u := range spc.unknown {
		s.ask("git %s %s: an option pp-lsp's table of git %s does not know", sub, printable(u), sub)
	}
	s.applyUses("git "+sub, spc)
	for _, v := range spc.values {
		// -L START,END:FILE or -L :FUNC:FILE prints FILE's lines as each
		// commit changed them: a note private now is denied as read.
		if i := strings.LastIndexByte(v.val, ':'); v.opt == "-L" && i >= 0 && i+1 < len(v.val) {
			s.readFile(v.val[i+1:], "git "+sub+" -L shows the history of")
		}
	}
	content := sub == "diff" || sub == "show" || sub == "blame" || sub == "annotate" || sub == "grep"
	switch {
	case spc.modes&effContent != 0:
		content = true
	case spc.modes&(effNoContent|effNamesOnly) != 0:
		content = false
	}
	top := s.gitTop(gitCwd)
	s.gitRepoConfig(sub, gitCwd, top)
	if sub == "show" && !content && s.gitShowsBlob(spc, top) {
		content = true // git show prints a blob whole, whatever the options
	}
	switch {
	case (top != "" || gitCwd == unknownCwd || gitBare(gitCwd)) && s.gitFromHistory(sub, spc, content, top):
		verb := "shows"
		if sub == "grep" {
			verb = "searches"
		}
		s.ask("git %s %s files as they were in the history (a commit, the index, a stash), which may hold private notes the files no longer hold", sub, verb)
	case sub == "diff" && content && spc.modes&effWorktree == 0 && gitCwd == unknownCwd:
		s.ask("git diff shows files as the index holds them, in a repository known only when it runs: they may hold private notes the files no longer hold")
	case sub == "diff" && content && spc.modes&effWorktree == 0 && top != "":
		s.gitStaged(top, spc)
	}
	var paths []string
	for k, o := range spc.operands {
		switch o.role {
		case opdMeta:
			s.touch(o.word, opRead, "git "+sub+" looks at")
		case opdRev:
			if spc.dashAt >= 0 && k < spc.dashAt && !gitObjectPath(o.word) {
				continue // a revision before "--", even one naming a file
			}
			if p, ok := s.gitPath(o.word, top); ok {
				paths = append(paths, p)
			}
		}
	}
	if !content {
		for _, p := range paths {
			s.touch(p, opRead, "git "+sub+" looks at")
		}
		return
	}
	what := "git " + sub + " shows the content of"
	if top == "" && spc.modes&effNoFiles == 0 {
		// Outside a repository only diff --no-index reads files.
		for _, p := range paths {
			s.readFile(p, what)
		}
		return
	}
	if len(paths) == 0 {
		s.readTree(top, what, treeShows{match: gitShows(sub, spc)}, walkFilter{})
		return
	}
	for _, p := range paths {
		s.readTree(p, what, treeShows{match: gitShows(sub, spc)}, walkFilter{})
	}
}

// gitStaged judges what git diff with no revision prints of the index:
// the staged version of every file the working tree has changed since
// (gitobj.StagedVersions), within the paths it is given. One that holds a
// private note is a private read; one that cannot be read asks.
func (s *shellAnalyzer) gitStaged(top string, spc parsedCmd) {
	if s.quiet {
		return // nothing it finds would be recorded
	}
	var within []string
	for _, o := range spc.operands {
		l := s.env.locateFrom(o.word, s.cwd)
		rel, err := filepath.Rel(top, l.abs)
		if o.role != opdRev || hasGlob(o.word) || strings.HasPrefix(o.word, ":") || l.abs == "" || err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			within = nil // a pathspec this cannot follow: every file
			break
		}
		within = append(within, filepath.ToSlash(rel))
	}
	// Only the files within the paths given are read.
	files, err := gitobj.StagedVersions(top, func(p string) bool { return pathWithin(p, within) })
	if err != nil {
		s.ask("git diff shows files as the index holds them, which pp-lsp cannot read here (%s): they may hold private notes the files no longer hold", printable(err.Error()))
		return
	}
	for _, f := range files {
		if f.Data == nil {
			s.ask("git diff shows %s as the index holds it, %s: it may hold private notes the file no longer holds", printable(f.Path), f.Why)
			continue
		}
		if st := s.env.privacyOfText(f.Data); st.private {
			s.privateRead("git diff shows %s as the index holds it, a private note (%s)", printable(f.Path), st.why)
		}
	}
}

// pathWithin says whether a repository path is one of dirs or below one;
// no dirs at all means every path.
func pathWithin(p string, dirs []string) bool {
	if len(dirs) == 0 {
		return true
	}
	for _, d := range dirs {
		if d == "." || p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// gitSource is where a git subcommand takes the file content it shows.
type gitSource uint8

const (
	gitShowsNoContent gitSource = iota // names, hashes, messages: never a file's content
	gitShowsHistory                    // commits or the index, whenever it shows content (log -p, show, status -v)
	gitShowsOperands                   // the working tree, unless an operand or option names a commit, a tree or the index (diff, grep, blame)
)

// gitSources says, for every git subcommand with a table, where the file
// content it shows comes from (git-log(1), git-show(1), git-status(1)
// -v: "the textual changes that are staged to be committed"; git-diff(1):
// the working tree against the index unless given commits or --cached;
// git-grep(1): the tracked files of the working tree unless given trees
// or --cached; git-blame(1): the working tree's file unless given a
// revision). A subcommand it does not list shows no content.
var gitSources = map[string]gitSource{
	"log": gitShowsHistory, "show": gitShowsHistory, "shortlog": gitShowsHistory, "status": gitShowsHistory,
	"diff": gitShowsOperands, "grep": gitShowsOperands, "blame": gitShowsOperands, "annotate": gitShowsOperands,
	"ls-files": gitShowsNoContent, "rev-parse": gitShowsNoContent, "describe": gitShowsNoContent,
}

// gitFromHistory says whether a git command shows or searches files as a
// commit, a tree, a stash, the reflog or the index holds them, rather
// than as the working tree's files are now: what the privacy rule checks
// is only the files as they are, and the history may hold a note that
// was private, or deleted, or a private part since cut from a public
// note. A search (git grep, log -S) tells of what it searches even when
// it prints only names or counts.
func (s *shellAnalyzer) gitFromHistory(sub string, spc parsedCmd, content bool, top string) bool {
	src := gitSources[sub]
	searches := sub == "grep"
	switch {
	case src == gitShowsNoContent, spc.modes&effWorktree != 0:
		return false
	case src == gitShowsHistory, spc.modes&effHistory != 0:
		return content || searches
	case !content && !searches:
		return false
	}
	for k, o := range spc.operands {
		if o.role != opdRev || spc.dashAt >= 0 && k >= spc.dashAt {
			continue // the pattern, or a path after "--"
		}
		if gitObjectPath(o.word) {
			return true // REV:PATH, :PATH
		}
		if spc.dashAt >= 0 {
			return true // before "--" a word is a revision, even one naming a file
		}
		if _, ok := s.gitPath(o.word, top); !ok {
			return true // a revision, or a path the working tree no longer has
		}
	}
	return false
}

// gitObjectPath says whether a git operand names a file as a commit, a
// tree or the index holds it: REV:PATH, :PATH, :N:PATH.
func gitObjectPath(w string) bool {
	return strings.Contains(w, ":") && !strings.Contains(w, "://")
}

// gitShowsBlob says whether git show, given options that show no diff
// (--stat, -s, --name-only), may still print a file's content: it prints
// a blob whole whatever the options, and any operand that is not surely a
// commit (gitCommitSure) or a branch may name one (a blob's hash,
// REV:PATH, a tag pointing at a blob).
func (s *shellAnalyzer) gitShowsBlob(spc parsedCmd, top string) bool {
	head := true // no revision: git show shows HEAD
	for k, o := range spc.operands {
		if o.role != opdRev || spc.dashAt >= 0 && k >= spc.dashAt {
			continue
		}
		head = false
		if gitObjectPath(o.word) {
			return true
		}
		if strings.Contains(o.word, "@{") && top != "" && gitobj.ReflogIsCommit(top, o.word) {
			continue
		}
		if o.word == "HEAD" || o.word == "@" {
			if top != "" && !gitobj.HeadIsCommit(top) {
				return true // HEAD's file written by hand may name a blob
			}
			continue
		}
		if gitCommitSure(o.word) || top != "" && gitobj.IsBranch(top, o.word) {
			continue
		}
		if spc.dashAt >= 0 {
			return true // before "--" a word is a revision, even one naming a file
		}
		if _, ok := s.gitPath(o.word, top); !ok {
			return true
		}
	}
	return head && top != "" && !gitobj.HeadIsCommit(top)
}

// gitCommitSure says whether a revision is surely a commit, by its
// spelling (gitrevisions(7)): a range (A..B, A...B), an exclusion (^A),
// a parent or ancestor (REV^, REV~N), or REV^{commit}. A tag or a hash
// may name a blob, and so may HEAD and a reflog entry (REF@{N}) whose
// files were written by hand; a branch or HEAD is told by the repository
// (gitobj.IsBranch, gitobj.HeadIsCommit).
func gitCommitSure(w string) bool {
	if strings.Contains(w, "..") || strings.HasPrefix(w, "^") || strings.HasSuffix(w, "^{commit}") {
		return true
	}
	base := strings.TrimRight(w, "0123456789")
	return len(base) > 1 && (base[len(base)-1] == '~' || base[len(base)-1] == '^')
}

// gitBare says whether dir is, or is inside, a bare repository: a folder
// holding HEAD, objects/ and refs/ (git's is_git_directory), where git
// log and show read the history with no work tree at all.
func gitBare(dir string) bool { return gitBareDir(dir) != "" }

// gitBareDir is the bare repository dir is, or is inside: "" when none.
func gitBareDir(dir string) string {
	if dir == "" || dir == unknownCwd {
		return ""
	}
	for d := dir; d != "" && d != "/"; d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, "HEAD")); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		o, err1 := os.Stat(filepath.Join(d, "objects"))
		r, err2 := os.Stat(filepath.Join(d, "refs"))
		if err1 == nil && err2 == nil && o.IsDir() && r.IsDir() {
			return d
		}
	}
	return ""
}

// gitShows is searchMatcher for git grep: what else git shows of a file
// (a diff, a blame) may hold any of it.
func gitShows(sub string, pc parsedCmd) func([]byte) bool {
	if sub != "grep" {
		return nil
	}
	return searchMatcher("grep", pc)
}

// gitPath reads a git operand as the path it names, if it names one:
// REV:PATH names PATH from the top of the repository (or from here when
// it starts with ./), and a word that is an existing file or folder names
// it; anything else is a revision.
func (s *shellAnalyzer) gitPath(w, top string) (string, bool) {
	if i := strings.IndexByte(w, ':'); i >= 0 && !strings.Contains(w, "://") {
		p := w[i+1:]
		if p == "" {
			return "", false
		}
		if rest := strings.TrimLeft(p, "/"); i == 0 && rest != "" && strings.IndexByte("(!^", rest[0]) >= 0 {
			// A pathspec's magic (gitglossary(7)): ":(icase)NAME",
			// ":(glob)**/NAME", ":!DIR" (every file but DIR) name files
			// the word does not spell; the whole repository is read.
			if top == "" {
				return ".", true
			}
			return top, true
		}
		if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || top == "" {
			return p, true
		}
		return filepath.Join(top, p), true
	}
	if strings.HasPrefix(w, "-") || strings.Contains(w, "..") && !pathLike(w) {
		return "", false
	}
	if strings.ContainsAny(w, "*?[") {
		// A pathspec is a glob too, its * matching "/" ('priv*' took
		// private.org beside 'notes'): the whole repository is read.
		if top == "" {
			return ".", true
		}
		return top, true
	}
	l := s.env.locateFrom(w, s.cwd)
	if l.abs == "" {
		return "", false
	}
	if s.env.view().lstat(l.abs).err == nil {
		return w, true
	}
	return "", false
}

// gitTop returns the top of the work tree holding dir (the nearest folder
// with a .git), or "" when dir is in none: git then reads no repository.
func (s *shellAnalyzer) gitTop(dir string) string {
	for d := dir; d != "" && d != "/"; d = filepath.Dir(d) {
		if s.env.view().lstat(filepath.Join(d, ".git")).err == nil {
			return d
		}
	}
	return ""
}

// gitOther judges a git subcommand no default rule allows (and that so
// has no table here): reads ask through the permissions, network and
// history rewriting ask, configuration that runs commands is denied, and
// a subcommand that can show any file's content reads the whole
// repository.
func (s *shellAnalyzer) gitOther(sub string, rest []string) {
	for _, r := range rest {
		if strings.HasPrefix(r, "--output") || strings.HasPrefix(r, "--ext-diff") || strings.HasPrefix(r, "--textconv") || strings.HasPrefix(r, "--upload-pack") || strings.HasPrefix(r, "--receive-pack") || strings.HasPrefix(r, "--exec") {
			if v, ok := optValue(r); ok && strings.HasPrefix(r, "--output") {
				s.touch(v, opWrite, "git writes")
				s.wrote = true
			}
			s.ask("git %s %s writes files or runs a program", sub, r)
		}
	}
	if gitHistoryShows[sub] {
		s.ask("git %s can show files as they were in the history (a commit, the index, a stash), which may hold private notes the files no longer hold", sub)
	}
	switch {
	case gitReadOnly[sub]:
		s.ask("git %s: pp-lsp has no table of its options", sub)
		if top := s.gitTop(s.cwd); top != "" {
			s.readTree(top, "git "+sub+" can show the content of", treeShows{}, walkFilter{})
		}
	case sub == "config":
		if hasFlag(rest, "--get", "--get-all", "--list", "-l", "--get-regexp") {
			return
		}
		s.deny("git config changes configuration that runs commands (hooks, pagers, helpers)")
	case gitNetwork[sub]:
		s.ask("git %s talks to another machine", sub)
		s.addText(logEgress, "git "+sub)
		if sub == "push" {
			s.ask("git push publishes the notes")
		}
	case gitDestructive[sub]:
		s.ask("git %s can discard work", sub)
	default:
		s.ask("git %s changes the repository", sub)
	}
	if !gitReadOnly[sub] {
		// A subcommand that changes files writes the paths it is given:
		// git checkout HEAD~1 -- flightplans.org puts an old plan back.
		top := s.gitTop(s.cwd)
		for _, r := range rest {
			if strings.HasPrefix(r, "-") {
				continue
			}
			p, ok := s.gitPath(r, top)
			if !ok {
				p = r // a path that does not exist yet, or a revision
			}
			s.touch(p, opWrite, "git "+sub+" may rewrite")
		}
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

// copyCmd judges cp, mv, install, ln, link, rsync and scp: sources are read
// (mv: deleted), the destination written; a symlink out of the roots and
// rsync --delete are denied.
func (s *shellAnalyzer) copyCmd(verb string, args []string) {
	withValue := copyOpts
	if verb == "cp" || verb == "mv" || verb == "ln" || verb == "link" {
		withValue = coreutilsCopyOpts
	}
	var opts, ops []string
	var rs rsyncCmd
	if verb == "rsync" {
		rs = parseRsync(args)
		opts, ops = rs.names(), rs.ops
		for _, u := range rs.unknown {
			s.ask("rsync: pp-lsp does not know the option %s", printable(u))
		}
	} else {
		if verb != "scp" {
			args = coreutilsCopyArgs(args, verb == "install")
		}
		opts, ops = splitOpts(args, withValue)
	}
	if verb == "rsync" && hasFlag(opts, "--delete", "--delete-before", "--delete-after", "--delete-during", "--delete-delay", "--delete-excluded", "--del", "--delete-missing-args", "--remove-source-files") {
		s.deny("rsync --delete removes every file the source lacks")
	}
	if len(ops) == 0 {
		return
	}
	dest := ""
	sources := ops
	for i, o := range opts {
		if verb == "rsync" {
			break // rsync's -t is --times; it has no target option
		}
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
	// A hard link is a second name of the source: what is written through
	// it is written to the source.
	hard := verb == "ln" && !symbolic || verb == "link" || verb == "cp" && hasShortFlag(opts, 'l', "--link") || verb == "rsync" && rs.hardLinks()
	// cp -l and rsync -H go down the folders they are given.
	recurse := verb == "rsync" || verb == "cp" && (hasShortFlag(opts, 'r', "--recursive") || hasShortFlag(opts, 'R', "") || hasShortFlag(opts, 'a', "--archive"))
	if verb == "rsync" {
		s.rsyncValues(rs, s.rsyncDestDirs(dest, sources), remote(dest))
		if hard && dest != "" && !remote(dest) {
			// -H links a new file to the one the destination holds.
			s.linkedFrom(dest, "rsync -H", true)
		}
	}
	for _, src := range sources {
		switch {
		case remote(src):
			s.network(verb, []string{src})
		case hard && s.linkedFrom(src, verb, recurse):
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
			s.readFile(src, verb+" reads")
		}
	}
	if dest != "" {
		if remote(dest) {
			s.network(verb, []string{dest})
			s.ask("%s copies files to another machine", verb)
		} else {
			backup := s.backupSuffix(verb, opts, rs)
			s.touch(dest, opWrite, verb+" writes")
			if backup != "" && s.exists(dest) {
				s.touch(dest+backup, opWrite, verb+" backs up to")
			}
			if verb != "ln" && verb != "link" {
				s.copiedInto(verb, dest, sources, recurse, remote, backup)
			}
		}
	}
	if verb == "mv" || verb == "cp" || verb == "ln" || verb == "link" || verb == "install" {
		s.ask("%s changes files", verb)
	}
}

// coreutilsLongs are the long options of cp, mv, ln, link and install
// that decide what copyCmd judges.
var coreutilsLongs = []string{"--target-directory", "--link", "--recursive", "--archive", "--symbolic", "--suffix", "--backup"}

// coreutilsCopyArgs spells the words of cp, mv, ln, link or install (GNU
// coreutils 9, getopt_long) as copyCmd reads them: a long option given by
// a prefix of its name ('cp --targ=.git/hooks x', 'cp --li a b') by its
// whole name, and a cluster whose letter takes a value ('-t.git/hooks',
// '-vt DIR'; install's -m, -o and -g too) as its flags, that letter and
// the value. A prefix several options share is an error to the program,
// which then copies nothing; it is read as the first here.
func coreutilsCopyArgs(args []string, install bool) []string {
	valued := "tS"
	if install {
		valued = "tSmog"
	}
	out := make([]string, 0, len(args)+2)
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		switch {
		case strings.HasPrefix(a, "--") && len(a) > 2:
			name, val, hasVal := strings.Cut(a, "=")
			for _, l := range coreutilsLongs {
				if strings.HasPrefix(l, name) {
					name = l
					break
				}
			}
			if hasVal {
				name += "=" + val
			}
			out = append(out, name)
			continue
		case len(a) > 2 && a[0] == '-':
			if j := strings.IndexAny(a[1:], valued) + 1; j > 0 {
				if j > 1 {
					out = append(out, a[:j])
				}
				out = append(out, "-"+a[j:j+1])
				if j+1 < len(a) {
					out = append(out, a[j+1:])
				}
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// backupSuffix is what a copy that backs up the files it replaces (-b,
// --backup) appends to their names, else "": the last --suffix (-S) given,
// else $SIMPLE_BACKUP_SUFFIX when known, else "~" — 'cp -b -S .el x
// notes/.dir-locals' renames notes/.dir-locals to notes/.dir-locals.el.
// rsync backs up with --suffix, "~" unless --backup-dir is given.
func (s *shellAnalyzer) backupSuffix(verb string, opts []string, rs rsyncCmd) string {
	backup, suffix, backupDir := false, "", false
	if verb == "rsync" {
		for _, o := range rs.opts {
			switch o.name {
			case "--backup":
				backup = true
			case "--suffix":
				suffix = o.val
			case "--backup-dir":
				backupDir = true
			}
		}
		if backup && suffix == "" && !backupDir {
			suffix = "~"
		}
	} else {
		backup = hasShortFlag(opts, 'b', "--backup")
		for i, o := range opts {
			switch {
			case (o == "-S" || o == "--suffix") && i+1 < len(opts):
				suffix = opts[i+1]
			case strings.HasPrefix(o, "--suffix="):
				suffix, _ = optValue(o)
			}
		}
		if suffix == "" {
			suffix = "~"
			if v := s.lookup("SIMPLE_BACKUP_SUFFIX"); v.ok && v.val != "" {
				suffix = v.val
			}
		}
	}
	if !backup {
		return ""
	}
	return suffix
}

// exists says whether the path raw names exists now (a dangling
// symlink too).
func (s *shellAnalyzer) exists(raw string) bool {
	l := s.env.locateFrom(raw, s.cwd)
	return l.abs != "" && s.env.view().lstat(l.abs).err == nil
}

// maxCopiedFiles bounds the files below a copy's source folders that
// copiedInto judges one by one; past it the copy needs a human.
const maxCopiedFiles = 4096

// copiedInto judges the files a copy (cp, mv, install, rsync, scp) writes
// below its destination folder dest inside the roots, each by its own
// name: NAME for a source NAME (a name it makes may be a protected
// place's, .envrc), and with recurse each file below a source folder
// whose copy lands on a file that is there already (below NAME, or right
// below dest for cp's "SRC/." and rsync's "SRC/"; when dest is no folder
// yet and one folder is copied, right below dest). Through a name the
// folder already holds, a copy writes into that file ('cp new.sh notes/'
// where notes/new.sh is a second name of .envrc wrote .envrc).
func (s *shellAnalyzer) copiedInto(verb, dest string, sources []string, recurse bool, remote func(string) bool, backup string) {
	write := func(p string) {
		s.touch(p, opWrite, verb+" writes")
		if backup != "" && s.exists(p) {
			s.touch(p+backup, opWrite, verb+" backs up to")
		}
	}
	if strings.Contains(dest, dynMarker) || s.cwd == unknownCwd && relativeWord(dest) {
		return
	}
	dl := s.env.locateFrom(dest, s.cwd)
	if dl.abs == "" || dl.class != pathInside && dl.class != pathProtected {
		return // judged as a whole where it is
	}
	dn := s.env.view().lstat(dl.abs)
	isDir := dn.err == nil && dn.mode&fs.ModeDir != 0
	if !isDir && (dn.err == nil || !recurse || len(sources) != 1) {
		return // a file written by its own name, already judged
	}
	budget := maxCopiedFiles
	for _, src := range sources {
		if remote(src) || strings.Contains(src, dynMarker) || s.cwd == unknownCwd && relativeWord(src) {
			continue
		}
		names := []string{src}
		if hasGlob(src) {
			names = s.expandGlob(src)[1:]
		}
		for _, p := range names {
			trimmed := strings.TrimRight(p, "/")
			base := path.Base(trimmed)
			into := dest
			if isDir {
				into = strings.TrimSuffix(dest, "/") + "/" + base
				if base == "." || verb == "rsync" && strings.HasSuffix(p, "/") {
					into = dest
				}
				if base != "." && base != ".." && base != "/" {
					write(strings.TrimSuffix(dest, "/") + "/" + base)
				}
			}
			if !recurse {
				continue
			}
			sl := s.env.locateFrom(p, s.cwd)
			if sl.abs == "" {
				continue
			}
			if n := s.env.view().lstat(sl.abs); n.err != nil || n.mode&fs.ModeDir == 0 {
				continue
			}
			err := filepath.WalkDir(sl.abs, func(fp string, d fs.DirEntry, err error) error {
				if err != nil || fp == sl.abs {
					return nil
				}
				if budget--; budget < 0 {
					return fs.SkipAll
				}
				if d.IsDir() {
					return nil
				}
				rel, rerr := filepath.Rel(sl.abs, fp)
				if rerr != nil {
					return nil
				}
				to := strings.TrimSuffix(into, "/") + "/" + filepath.ToSlash(rel)
				if s.exists(to) {
					write(to)
				}
				return nil
			})
			if err != nil || budget < 0 {
				s.ask("%s copies more than %d files below %s; too many to check before it runs", verb, maxCopiedFiles, printable(p))
				return
			}
		}
	}
}

// linkedFrom denies a command (what) that makes a second name (a hard
// link) of the file raw names, or with recurse of a file below it (not
// through a symlink: cp and rsync -H copy a symlink as one), when
// that file is a protected place's or a credential, lies outside the
// roots, or is known only when it runs (said true): what is written
// through the second name is written there, and a write is told from
// another only by the name's own links, which a command that makes the
// link and then writes has none of when it is checked.
func (s *shellAnalyzer) linkedFrom(raw, what string, recurse bool) bool {
	return s.linkedFromTree(raw, what, recurse, false)
}

// linkedFromTree is linkedFrom; with follow, a symlink to a folder below
// raw is followed (protectedBelow).
func (s *shellAnalyzer) linkedFromTree(raw, what string, recurse, follow bool) bool {
	l := s.env.locateFrom(raw, s.cwd)
	switch l.class {
	case pathProtected, pathCredential:
		s.deny("%s makes a second name (hard link) of %s: %s", what, printable(raw), l.why)
		return true
	case pathOutside:
		s.deny("%s makes a second name (hard link) inside the roots of %s, outside them: a write through it writes there", what, printable(raw))
		return true
	case pathDynamic:
		s.deny("%s makes a second name (hard link) of %s, a path known only when it runs", what, printable(raw))
		return true
	}
	if !recurse || l.abs == "" {
		return false
	}
	if n := s.env.view().lstat(l.abs); n.err != nil || n.mode&fs.ModeDir == 0 {
		return false
	}
	if p, why, ok := s.env.protectedBelow(l.abs, follow); ok {
		s.deny("%s makes second names (hard links) of the files below %s, %s among them: %s", what, printable(raw), printable(p), why)
		return true
	}
	return false
}

// rsyncValues judges the files and folders rsync's options name: the
// folders whose files it links (--link-dest) or copies (--copy-dest),
// relative to the destination, the files it writes or reads.
func (s *shellAnalyzer) rsyncValues(rs rsyncCmd, destDirs []string, remoteDest bool) {
	table := rsyncOptions()
	// A relative folder is taken from the destination folder.
	fromDest := func(v string) []string {
		if v == "" || strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") || strings.HasPrefix(v, "$") || strings.Contains(v, dynMarker) || len(destDirs) == 0 {
			return []string{v}
		}
		out := make([]string, 0, len(destDirs))
		for _, d := range destDirs {
			out = append(out, strings.TrimSuffix(d, "/")+"/"+v)
		}
		return out
	}
	for _, o := range rs.opts {
		opt := table[o.name]
		if opt == nil {
			continue
		}
		switch opt.role {
		case "linkdest":
			if remoteDest {
				continue // a folder of the other machine
			}
			for _, d := range fromDest(o.val) {
				if s.linkedFromTree(d, "rsync --link-dest", true, true) {
					break
				}
			}
		case "copydest":
			if !remoteDest {
				for _, d := range fromDest(o.val) {
					s.readFile(d, "rsync --copy-dest copies the files of")
				}
			}
		case "read":
			s.readFile(o.val, "rsync "+o.name+" reads")
		case "write":
			s.touch(o.val, opWrite, "rsync "+o.name+" writes")
			if o.name == "--write-batch" || o.name == "--only-write-batch" {
				s.touch(o.val+".sh", opWrite, "rsync "+o.name+" writes")
			} else if !remoteDest && o.name != "--log-file" {
				for _, d := range fromDest(o.val) {
					if d != o.val {
						s.touch(d, opWrite, "rsync "+o.name+" writes")
					}
				}
			}
		}
	}
}

// rsyncDestDirs is the folder rsync writes into: the destination, or the
// folder holding it when it names a file (one source that is a file, the
// destination neither a folder now nor written with a trailing slash);
// both when that cannot be told now.
func (s *shellAnalyzer) rsyncDestDirs(dest string, sources []string) []string {
	if dest == "" {
		return nil
	}
	if strings.HasSuffix(dest, "/") || len(sources) != 1 {
		return []string{dest}
	}
	isDir := func(raw string) (dir, known bool) {
		l := s.env.locateFrom(raw, s.cwd)
		if l.abs == "" {
			return false, false
		}
		n := s.env.view().lstat(l.abs)
		if n.err != nil {
			return false, false
		}
		return n.mode&fs.ModeDir != 0, true
	}
	if d, _ := isDir(dest); d {
		return []string{dest}
	}
	src := sources[0]
	if strings.HasSuffix(src, "/") {
		return []string{dest}
	}
	switch d, known := isDir(src); {
	case d:
		return []string{dest}
	case known:
		return []string{path.Dir(dest)}
	}
	return []string{dest, path.Dir(dest)}
}

// absDir is the directory a link's relative target is resolved from.
func (s *shellAnalyzer) absDir(dest string) string {
	l := s.env.locateFrom(dest, s.cwd)
	if l.abs == "" {
		return s.cwd
	}
	return path.Dir(l.abs)
}

// dd judges dd's if= and of= operands: an endless input (if=/dev/zero)
// with no count, or more than a gigabyte, written to a file fills the
// disk.
func (s *shellAnalyzer) dd(args []string) {
	in, out := "", ""
	bs, count := 512.0, -1.0
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			continue
		}
		switch k {
		case "if":
			in = v
			s.readFile(v, "dd reads")
		case "of":
			out = v
			s.touch(v, opWrite, "dd writes")
			s.wrote = true
		case "bs", "obs":
			if n, ok := parseSize(v); ok {
				bs = n
			}
		case "count":
			if n, ok := parseSize(v); ok {
				count = n
			}
		}
	}
	if out != "" && out != "/dev/null" {
		switch {
		case endlessDevices[in] && count < 0:
			s.deny("dd copies the endless %s to %s: it fills the disk", in, printable(out))
		case count >= 0 && count*bs > maxWriteBytes:
			s.deny("dd writes %s to %s: it fills the disk", humanBytes(count*bs), printable(out))
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
		s.readFile(f, "tar reads")
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

// readOnly judges the read-only programs that have no grammar (xxd, od,
// hexdump, strings, expr, type): their operands are files they read.
func (s *shellAnalyzer) readOnly(verb string, args []string) {
	if noPathArgs[verb] || verb == "type" {
		return
	}
	_, ops := splitOpts(args, readOnlyOpts)
	if verb == "xxd" {
		_, xops := splitOpts(args, xxdOpts)
		if len(xops) >= 2 {
			s.touch(xops[1], opWrite, "xxd writes")
			s.wrote = true
			ops = xops[:1]
		}
	}
	for _, o := range ops {
		s.readFile(o, verb+" reads")
	}
	for _, o := range args {
		if v, ok := optValue(o); ok && strings.HasPrefix(o, "-") && pathLike(v) {
			s.readFile(v, verb+" reads")
		}
	}
}
