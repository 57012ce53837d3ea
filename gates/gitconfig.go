package gates

import (
	"os"
	"path/filepath"
	"strings"
)

// A repository's own configuration ($GIT_DIR/config) can make the
// read-only subcommands a default rule allows run programs: core.fsmonitor
// runs its command (as shell text) at every git status and git diff, a
// diff driver's textconv at git diff, git log -p and git show, a filter's
// clean at git status; core.worktree points git at files elsewhere,
// include.path reads more configuration. A project folder may come with
// one. So the keys such a repository may set are an allow-list:
// gitConfigHarmless, keys that change only how git formats, names,
// counts or stores, by section.key (a subsection as *: remote.*.url);
// any other key, or a configuration that cannot be read, asks.
var gitConfigHarmless = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true, "core.logallrefupdates": true,
	"core.ignorecase": true, "core.precomposeunicode": true, "core.symlinks": true, "core.autocrlf": true,
	"core.eol": true, "core.safecrlf": true, "core.quotepath": true, "core.abbrev": true, "core.compression": true,
	"core.loosecompression": true, "core.packedgitwindowsize": true, "core.packedgitlimit": true,
	"core.deltabasecachelimit": true, "core.bigfilethreshold": true, "core.trustctime": true, "core.checkstat": true,
	"core.untrackedcache": true, "core.preloadindex": true, "core.commitgraph": true, "core.multipackindex": true,
	"core.sparsecheckout": true, "core.sparsecheckoutcone": true, "core.protecthfs": true, "core.protectntfs": true,
	"core.warnambiguousrefs": true, "core.whitespace": true, "core.splitindex": true, "core.fsync": true,
	"core.fsyncmethod": true, "core.filesreflocktimeout": true, "core.packedrefstimeout": true,
	"remote.*.url": true, "remote.*.pushurl": true, "remote.*.fetch": true, "remote.*.push": true,
	"remote.*.tagopt": true, "remote.*.prune": true, "remote.*.prunetags": true, "remote.*.mirror": true,
	"remote.*.skipdefaultupdate": true, "remote.*.skipfetchall": true,
	"branch.*.remote": true, "branch.*.merge": true, "branch.*.rebase": true, "branch.*.pushremote": true,
	"branch.*.description": true, "branch.autosetupmerge": true, "branch.autosetuprebase": true,
	"user.name": true, "user.email": true, "user.useconfigonly": true, "author.name": true, "author.email": true,
	"committer.name": true, "committer.email": true,
	"init.defaultbranch": true, "pull.rebase": true, "pull.ff": true, "push.default": true,
	"push.autosetupremote": true, "fetch.prune": true, "fetch.prunetags": true,
	"color.ui": true, "color.diff": true, "color.status": true, "color.branch": true, "color.grep": true,
	"color.interactive": true, "color.decorate": true, "color.showbranch": true,
	"log.date": true, "log.decorate": true, "log.abbrevcommit": true, "log.follow": true, "log.showroot": true,
	"log.mailmap": true, "status.showuntrackedfiles": true, "status.relativepaths": true, "status.short": true,
	"status.branch": true, "status.aheadbehind": true, "status.renames": true, "status.renamelimit": true,
	"status.showstash": true, "diff.renames": true, "diff.renamelimit": true, "diff.algorithm": true,
	"diff.colormoved": true, "diff.mnemonicprefix": true, "diff.noprefix": true, "diff.context": true,
	"diff.interhunkcontext": true, "diff.indentheuristic": true, "diff.statgraphwidth": true,
	"grep.linenumber": true, "grep.column": true, "grep.patterntype": true, "grep.extendedregexp": true,
	"grep.fullname": true, "grep.threads": true, "blame.date": true, "blame.showemail": true,
	"blame.showroot": true, "blame.blankboundary": true, "index.version": true, "index.threads": true,
	"extensions.objectformat": true, "extensions.worktreeconfig": true, "gc.auto": true, "gc.autodetach": true,
	"pack.threads": true, "rerere.enabled": true, "advice.detachedhead": true, "lfs.repositoryformatversion": true,
	"submodule.*.url": true, "submodule.*.active": true, "submodule.*.branch": true, "merge.conflictstyle": true,
	// git-config(1): what git maintenance register writes (maintenance.auto,
	// maintenance.strategy: which of git's own tasks run, and when);
	// options of commands that change the repository (rebase, merge,
	// commit, push, fetch), which name no program or file; sort orders.
	"maintenance.auto": true, "maintenance.strategy": true, "rebase.autostash": true, "rebase.autosquash": true,
	"rebase.updaterefs": true, "merge.ff": true, "commit.verbose": true, "push.followtags": true,
	"fetch.writecommitgraph": true, "gc.writecommitgraph": true, "tag.sort": true, "branch.sort": true,
	// Keys git has none of and ignores (git-config(1) lists every key git
	// reads), written by tools beside it: the GitHub CLI's default
	// repository (gh repo set-default), VS Code's merge base of a branch
	// and its pull-request extension's number.
	"remote.*.gh-resolved": true, "branch.*.vscode-merge-base": true, "branch.*.github-pr-owner-number": true,
}

// gitConfigEntry is one key a configuration file sets, as section.key or
// section.*.key, lower-cased, and its value (quotes and escapes kept).
type gitConfigEntry struct{ key, value string }

// gitConfigKeys returns the keys a git configuration file sets; ok is
// false when a line is not in one of the plain forms read here (a
// section header [name] or [name "sub"], name = value, a bare name, a
// comment), which git may read otherwise: a key missed could be
// core.fsmonitor, so such a file is not taken as known.
func gitConfigKeys(data []byte) (keys []gitConfigEntry, ok bool) {
	section, sub := "", false
	for _, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimLeft(strings.TrimSuffix(raw, "\r"), " \t")
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return nil, false
			}
			head := line[1:end]
			name, rest, quoted := strings.Cut(head, " ")
			if !gitConfigName(name, true) {
				return nil, false
			}
			section, sub = strings.ToLower(name), false
			if quoted {
				rest = strings.TrimLeft(rest, " \t")
				if len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' || strings.Contains(name, ".") {
					return nil, false
				}
				sub = true
			}
			if i := strings.IndexByte(section, '.'); i >= 0 {
				section, sub = section[:i], true // [section.sub], the old form
			}
			line = strings.TrimLeft(line[end+1:], " \t")
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
		}
		if section == "" {
			return nil, false
		}
		name, value, _ := strings.Cut(line, "=")
		name = strings.TrimRight(name, " \t")
		if !gitConfigName(name, false) {
			return nil, false
		}
		name = strings.ToLower(name)
		key := section + "." + name
		if sub {
			key = section + ".*." + name
		}
		keys = append(keys, gitConfigEntry{key, strings.TrimSpace(value)})
	}
	return keys, true
}

// gitConfigName says whether a section (letters, digits, - and .) or a
// key (a letter, then letters, digits and -) is named as git names them.
func gitConfigName(n string, section bool) bool {
	if n == "" || !section && !(n[0] >= 'a' && n[0] <= 'z' || n[0] >= 'A' && n[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || section && c == '.') {
			return false
		}
	}
	return true
}

// gitConfigFiles returns the configuration files of the repository whose
// top (the folder holding .git) or bare git directory is given: config of
// the git directory and of its common directory, config.worktree. ok is
// false when where they are cannot be told (a .git file naming no
// folder).
func gitConfigFiles(top string, bare bool) ([]string, bool) {
	gitDir := top
	if !bare {
		gitDir = filepath.Join(top, ".git")
		fi, err := os.Lstat(gitDir)
		if err != nil {
			return nil, false
		}
		if !fi.IsDir() {
			data, err := readAtMost(gitDir, 4096)
			if err != nil {
				return nil, false
			}
			d, found := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
			if !found {
				return nil, false
			}
			if d = strings.TrimSpace(d); !filepath.IsAbs(d) {
				d = filepath.Join(top, d)
			}
			gitDir = d
		}
	}
	files := []string{filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree")}
	common := gitDir
	if data, err := readAtMost(filepath.Join(gitDir, "commondir"), 4096); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = c
		files = append(files, filepath.Join(c, "config"), filepath.Join(c, "config.worktree"))
	}
	// A submodule's git directory lies below modules/: git status and git
	// diff run git in each submodule, which reads its configuration.
	seen := 0
	err := filepath.WalkDir(filepath.Join(common, "modules"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if seen++; seen > maxSubmoduleEntries {
			return filepath.SkipAll
		}
		if d.Name() == "objects" && d.IsDir() {
			return filepath.SkipDir
		}
		if !d.IsDir() && (d.Name() == "config" || d.Name() == "config.worktree") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil || seen > maxSubmoduleEntries {
		return nil, false
	}
	return files, true
}

// submoduleWorktree says whether core.worktree in a submodule's
// configuration file (below modules/) names a folder inside the
// superproject, as git submodule writes it (../../../NAME), symlinks
// resolved as git follows them: a folder that does not resolve is not
// known to be inside.
func submoduleWorktree(file, value, top string) bool {
	if !strings.Contains(filepath.ToSlash(file), "/modules/") || top == "" || strings.ContainsAny(value, "\"\\") || value == "" {
		return false
	}
	wt := value
	if !filepath.IsAbs(wt) {
		wt = filepath.Join(filepath.Dir(file), wt)
	}
	wt, err := filepath.EvalSymlinks(wt)
	if err != nil {
		return false
	}
	if top, err = filepath.EvalSymlinks(top); err != nil {
		return false
	}
	rel, err := filepath.Rel(top, wt)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// maxSubmoduleEntries bounds the walk of a repository's modules/ folder
// for the submodules' configuration; past it the configuration is not
// known.
const maxSubmoduleEntries = 2000

// gitRepoConfig judges the configuration of the repository a read-only
// git subcommand runs in: a key not known harmless asks.
func (s *shellAnalyzer) gitRepoConfig(sub, gitCwd, top string) {
	bare := false
	switch {
	case gitCwd == unknownCwd:
		s.ask("git %s runs in a repository known only when it runs, whose configuration may make it run programs", sub)
		return
	case top == "":
		if top = gitBareDir(gitCwd); top == "" {
			return // no repository: git reads no repository's configuration
		}
		bare = true
	}
	files, ok := gitConfigFiles(top, bare)
	if !ok {
		s.ask("git %s: where the repository's configuration is cannot be told, and it may make git run programs", sub)
		return
	}
	for _, f := range files {
		data, err := readAtMost(f, 1<<20)
		if err != nil {
			if _, statErr := os.Lstat(f); os.IsNotExist(statErr) {
				continue
			}
			s.ask("git %s: the repository's configuration %s cannot be read, and it may make git run programs", sub, printable(f))
			return
		}
		keys, ok := gitConfigKeys(data)
		if !ok {
			s.ask("git %s: the repository's configuration %s is not read as git reads it, and it may make git run programs", sub, printable(f))
			return
		}
		for _, k := range keys {
			if gitConfigHarmless[k.key] || k.key == "core.worktree" && submoduleWorktree(f, k.value, top) {
				continue
			}
			s.ask("git %s: the repository's configuration sets %s, which may make git run a program or read other files", sub, k.key)
			return
		}
	}
}
