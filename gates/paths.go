package gates

import (
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"pp-lsp/internal/protname"
)

// pathClass is what a path is, for the gates; higher is more sensitive.
type pathClass int

const (
	pathInside     pathClass = iota // inside a root, not special
	pathProtected                   // inside a root, but runs code or steers the agent (.git/hooks, .envrc, flightplans.org…)
	pathOutside                     // outside every root
	pathDynamic                     // cannot be known statically ($VAR, substitution)
	pathCredential                  // a credential store or pp-lsp's own files: never touched
)

// loc is a located path.
type loc struct {
	raw   string
	abs   string // canonical: cleaned, symlinks resolved as far as they exist
	class pathClass
	root  int    // index of the root holding abs, or -1
	rel   string // abs relative to that root
	why   string // what makes it credential/protected
}

// locate canonicalises a path the way the actuator would open it (DESIGN
// §6: relative to cwd, which is relative to the first root; "~" and
// "~user" expanded; $HOME and the XDG variables expanded; "..", "//", "."
// and /proc/self/root indirection removed; symlinks resolved) and
// classifies it. A percent-encoded path is located both as written and
// decoded, and the more sensitive reading wins: a tool may decode it.
func (e *Env) locate(raw, cwd string) loc {
	if e.check == nil {
		return e.locateUncached(raw, cwd)
	}
	memo := &e.check.locs
	if l, ok := memo.get([2]string{raw, cwd}); ok {
		return l
	}
	l := e.locateUncached(raw, cwd)
	if memo.len() < 256 {
		memo.put([2]string{raw, cwd}, l)
	}
	return l
}

func (e *Env) locateUncached(raw, cwd string) loc {
	l := e.locate1(raw, cwd)
	if strings.Contains(raw, "%") {
		if dec, err := url.PathUnescape(raw); err == nil && dec != raw {
			if d := e.locate1(dec, cwd); d.class > l.class {
				d.raw = raw
				return d
			}
		}
	}
	return l
}

func (e *Env) locate1(raw, cwd string) loc {
	l := loc{raw: raw, root: -1}
	p, ok := e.expand(raw)
	if !ok {
		l.class = pathDynamic
		l.why = "depends on a variable that cannot be known before it runs"
		return l
	}
	if !filepath.IsAbs(p) {
		p = e.cwdDir(cwd) + "/" + p
	}
	if hasDotDot(p) {
		p = e.physicalDots(p)
	}
	p = stripProcRoot(filepath.Clean(p))
	abs, sawLink, whole := e.view().resolve(p)
	l.abs = abs
	l.class, l.why = e.classify(l.abs)
	if l.class < pathCredential && whole {
		// A second name of a protected file (a hard link) is that file.
		// Only an existing file can be one: a path whose walk did not
		// reach its end names none (the view's Lstat of it would fail,
		// or find the dangling link it ended on), and is not asked.
		if n := e.view().lstat(abs); n.err == nil && n.mode == 0 && n.nlink > 1 {
			if cls, why, ok := e.hardLinkOf(n.dev, n.ino, n.nlink); ok && cls > l.class {
				l.class, l.why = cls, why
			}
		}
	}
	if l.class == pathInside || l.class == pathProtected {
		l.root, l.rel = e.rootOf(l.abs)
		// Prove confinement with os.Root on the path as written below the
		// root: it refuses any symlink that leaves the root. A walk that
		// met no symlink at all has nothing for it to refuse (os.Root
		// only ever refuses a symlink or a "..", and a clean path below a
		// root holds no ".."), so the proof is only asked for when one was
		// met.
		if i, rel := e.rootOf(p); sawLink && i >= 0 && rel != "." && i < len(e.osRoots) {
			if _, err := e.osRoots[i].Lstat(rel); err != nil && !errors.Is(err, os.ErrNotExist) {
				if strings.Contains(err.Error(), "escapes") {
					l.class, l.why = pathOutside, "a symlink leads out of the root"
				}
			}
		}
	}
	return l
}

// hasDotDot says whether a path has a ".." component.
func hasDotDot(p string) bool {
	for p != "" {
		var c string
		c, p, _ = strings.Cut(p, "/")
		if c == ".." {
			return true
		}
	}
	return false
}

// physicalDots reads the ".." components of the absolute path p as the
// kernel does: from where the path before it leads, through symlinks
// (etc-link/../x is /x when etc-link leads to /etc), not lexically.
func (e *Env) physicalDots(p string) string {
	cur := "/"
	for _, c := range strings.Split(p, "/") {
		switch c {
		case "", ".":
		case "..":
			r, _ := e.view().resolveExisting(cur)
			cur = filepath.Dir(r)
		default:
			cur = filepath.Join(cur, c)
		}
	}
	return cur
}

// hardLinkOf says whether the file (dev, ino) is one of the protected
// files under another name: Flight Plans, the journal, the configuration,
// the vault, the data directory's key, the bridge token, a conversation,
// and (protectedLinkOf) any file of a protected place in the roots,
// of pp-lsp's own folders or of a credential store, or one with a name
// outside the roots; nlink is its link count.
func (e *Env) hardLinkOf(dev, ino, nlink uint64) (pathClass, string, bool) {
	type named struct {
		path  string
		class pathClass
		why   string
	}
	list := []named{
		{filepath.Join(e.firstRoot(), "flightplans.org"), pathProtected, "a second name (hard link) of flightplans.org, which only a human changes"},
		{filepath.Join(e.firstRoot(), "journal.org"), pathProtected, "a second name (hard link) of journal.org, which only a human changes"},
		{filepath.Join(e.world.ConfigDir, "config.json"), pathCredential, "a second name (hard link) of pp-lsp's configuration"},
		{filepath.Join(e.world.ConfigDir, "vault.json"), pathCredential, "a second name (hard link) of the vault"},
		{filepath.Join(e.world.DataDir, "key"), pathCredential, "a second name (hard link) of pp-lsp's key"},
		{filepath.Join(e.world.RuntimeDir, "token"), pathCredential, "a second name (hard link) of the bridge token"},
	}
	if e.configFile != "" {
		list = append(list, named{e.configFile, pathCredential, "a second name (hard link) of the gate configuration"})
	}
	for _, f := range list {
		if n := e.view().lstat(f.path); n.err == nil && n.mode == 0 && n.dev == dev && n.ino == ino {
			return f.class, f.why, true
		}
	}
	if e.chatLinkOf(dev, ino) {
		return pathProtected, "a second name (hard link) of a conversation, which the server makes, never the model", true
	}
	return e.protectedLinkOf(dev, ino, nlink)
}

// cwdDir is the absolute directory a command or relative path starts from.
func (e *Env) cwdDir(cwd string) string {
	if cwd == "" || cwd == "." {
		return e.firstRoot()
	}
	c, ok := e.expand(cwd)
	if !ok {
		return unknownCwd
	}
	if !filepath.IsAbs(c) {
		c = filepath.Join(e.firstRoot(), c)
	}
	abs, _ := e.view().resolveExisting(stripProcRoot(filepath.Clean(c)))
	return abs
}

// expand replaces a leading ~ or ~user and the variables a path may carry
// ($HOME, ${HOME}, the XDG directories, $USER). ok is false for any other
// variable or substitution: the path is then not knowable.
func (e *Env) expand(p string) (string, bool) {
	if strings.HasPrefix(p, "~") {
		rest := p[1:]
		user, tail, _ := strings.Cut(rest, "/")
		switch {
		case user == "":
			p = e.home + "/" + tail
		case user == "root":
			p = "/root/" + tail
		case user == "+" || user == "-":
			p = "/nonexistent-dirstack/" + tail
		default:
			p = "/home/" + user + "/" + tail
		}
	}
	if !strings.ContainsAny(p, "$`") {
		return p, true
	}
	if strings.Contains(p, "`") || strings.Contains(p, "$(") {
		return "", false
	}
	vars := e.knownVars()
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '$' {
			b.WriteByte(p[i])
			continue
		}
		name, n := varName(p[i+1:])
		v, known := lookupKnown(vars, name)
		if name == "" || !known || v == "" || v == "." {
			return "", false
		}
		b.WriteString(v)
		i += n
	}
	return b.String(), true
}

// knownVars are the environment variables whose values the gates know:
// the ones that locate the user's and pp-lsp's files.
func (e *Env) knownVars() []knownVar {
	if e.known != nil {
		return e.known
	}
	return []knownVar{
		{"HOME", e.home},
		{"USER", filepath.Base(e.home)},
		{"XDG_CONFIG_HOME", filepath.Dir(e.world.ConfigDir)},
		{"XDG_DATA_HOME", filepath.Dir(e.world.DataDir)},
		{"XDG_RUNTIME_DIR", filepath.Dir(e.world.RuntimeDir)},
		{"PWD", e.firstRoot()},
		// The action's environment has no CDPATH (server/actuate
		// cleanEnv): until the command sets it, every cd is by the path.
		{"CDPATH", ""},
	}
}

// knownVar is one variable whose value the gates know. They are few: a
// list searched in order beats a map.
type knownVar struct{ name, val string }

// lookupKnown returns a known variable's value.
func lookupKnown(vars []knownVar, name string) (string, bool) {
	for _, v := range vars {
		if v.name == name {
			return v.val, true
		}
	}
	return "", false
}

// varName reads NAME or {NAME} after a '$', returning the name and how many
// bytes it took.
func varName(s string) (string, int) {
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return "", 0
		}
		return s[1:end], end + 1
	}
	n := 0
	for n < len(s) && (s[n] == '_' || s[n] >= 'A' && s[n] <= 'Z' || s[n] >= 'a' && s[n] <= 'z' || n > 0 && s[n] >= '0' && s[n] <= '9') {
		n++
	}
	return s[:n], n
}

// stripProcRoot removes /proc/self/root, /proc/thread-self/root and
// /proc/<pid>/root prefixes: each is the filesystem root seen again.
func stripProcRoot(p string) string {
	for strings.HasPrefix(p, "/proc/") {
		rest := p[len("/proc/"):]
		seg, tail, _ := strings.Cut(rest, "/")
		if !(seg == "self" || seg == "thread-self" || isDigits(seg)) {
			return p
		}
		inner, tail2, _ := strings.Cut(tail, "/")
		if inner != "root" && inner != "cwd" {
			return p
		}
		if inner == "cwd" {
			return "/nonexistent-proc-cwd/" + tail2
		}
		p = "/" + tail2
	}
	return p
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// homeCredentials are credential stores below a home directory: keys,
// tokens, password stores, keyrings and browser profiles. Entries ending in
// '/' cover the whole directory.
var homeCredentials = []string{
	".ssh/", ".gnupg/", ".aws/", ".azure/", ".kube/", ".docker/config.json", ".oci/",
	".config/gcloud/", ".config/gh/", ".config/hub", ".config/rclone/", ".config/doctl/",
	".config/op/", ".1password/", ".config/Bitwarden/", ".config/keepassxc/",
	".netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc", ".yarnrc.yml",
	".password-store/", ".authinfo", ".authinfo.gpg", ".local/share/keyrings/", ".local/share/kwalletd/",
	".mozilla/", ".thunderbird/", ".config/google-chrome/", ".config/chromium/", ".config/BraveSoftware/",
	".config/microsoft-edge/", ".config/vivaldi/", ".terraform.d/credentials.tfrc.json", ".vault-token",
	".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials", ".m2/settings-security.xml",
	".Xauthority", ".ICEauthority", ".s3cfg", ".boto", ".msmtprc", ".fetchmailrc", ".my.cnf",
	".config/passepartout/", ".local/share/passepartout/", "Library/Keychains/",
}

// systemCredentials are credential files of the system.
var systemCredentials = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/security/opasswd",
	"/etc/ssl/private/", "/etc/sudoers", "/etc/sudoers.d/", "/var/lib/passepartout/",
}

// credentialAnywhere is homeCredentials as classify looks for them in any
// path: "/"+entry, in the same order. Each entry is a hidden name or under
// Library/ (classify relies on it to skip the others).
var credentialAnywhere = func() []credentialName {
	out := make([]credentialName, 0, len(homeCredentials))
	for _, c := range homeCredentials {
		if !strings.HasPrefix(c, ".") && !strings.HasPrefix(c, "Library/") {
			panic("gates: credential store " + c + " is neither hidden nor under Library/")
		}
		out = append(out, credentialName{entry: c, slashed: "/" + c, dir: strings.HasSuffix(c, "/"), name: strings.TrimSuffix(c, "/")})
	}
	return out
}()

type credentialName struct {
	entry, slashed, name string
	dir                  bool
}

// hasPathPrefixFold is hasPathPrefix without regard to case: on a file
// system that ignores case (macOS, a FAT stick, an ext4 casefold folder),
// ~/.Config/Passepartout is the same folder.
func hasPathPrefixFold(p, prefix string) bool {
	if strings.HasSuffix(prefix, "/") {
		return len(p) >= len(prefix) && strings.EqualFold(p[:len(prefix)], prefix) || len(p)+1 == len(prefix) && strings.EqualFold(prefix[:len(p)], p)
	}
	return strings.EqualFold(p, prefix)
}

// hasPathPrefix says whether p is prefix, or lies below it when prefix
// ends in '/' (p+"/" starts with prefix).
func hasPathPrefix(p, prefix string) bool {
	if strings.HasSuffix(prefix, "/") {
		return strings.HasPrefix(p, prefix) || len(p)+1 == len(prefix) && prefix[:len(p)] == p
	}
	return p == prefix
}

// protectedRel says whether a root-relative path is a file that runs code
// or steers tools or the agent: internal/protname's table, the one the
// sandbox keeps unwritable too.
func protectedRel(rel string) (string, bool) {
	return protname.Rel(rel)
}

// classify says what a canonical absolute path is.
func (e *Env) classify(abs string) (pathClass, string) {
	for _, own := range e.own {
		if hasPathPrefixFold(abs, own) {
			return pathCredential, "pp-lsp's own configuration, data, vault or token"
		}
	}
	for _, cf := range e.configFiles {
		if strings.EqualFold(abs, cf) {
			return pathCredential, "the gate configuration"
		}
	}
	if base := filepath.Base(abs); strings.HasPrefix(abs, "/run/user/") && strings.Contains(abs, "/passepartout/") || base == "token" && strings.Contains(abs, "/passepartout/") {
		return pathCredential, "the bridge token"
	}
	for _, c := range systemCredentials {
		if hasPathPrefix(abs, c) {
			return pathCredential, "a system credential file"
		}
	}
	if strings.HasPrefix(abs, "/etc/ssh/") && strings.HasSuffix(abs, "_key") {
		return pathCredential, "an SSH host private key"
	}
	if strings.HasPrefix(abs, "/proc/") {
		if b := filepath.Base(abs); b == "environ" || b == "mem" || b == "auxv" || abs == "/proc/kcore" {
			return pathCredential, "a process's environment or memory"
		}
	}
	if rel, ok := e.homeRel(abs); ok {
		for _, c := range homeCredentials {
			if hasPathPrefix(rel, c) {
				return pathCredential, "the credential store ~/" + strings.TrimSuffix(c, "/")
			}
		}
	}
	// A credential store's name anywhere in the path: another user's home,
	// a home mounted elsewhere, a traversal that lands in a .ssh folder.
	// Every one is a hidden name or under Library/: a path with neither
	// is none of them.
	if strings.Contains(abs, "/.") || strings.Contains(abs, "/Library/") {
		absSlash := abs + "/"
		for _, c := range credentialAnywhere {
			if c.dir {
				if strings.Contains(absSlash, c.slashed) {
					return pathCredential, "a credential store (" + c.name + ")"
				}
			} else if strings.HasSuffix(abs, c.slashed) {
				return pathCredential, "a credential store (" + c.entry + ")"
			}
		}
	}
	if e.homeDots != "" && strings.HasPrefix(abs, e.homeDots) {
		// A root that holds the home folder does not hold its dot-entries:
		// shell start-up files, history and every program's configuration
		// (~/.bashrc runs in the user's next terminal, outside any
		// sandbox; ~/.gitconfig, ~/.jq and ~/.magic steer programs the
		// gates allow). The sandbox hides them too (sandbox.dotEntries).
		return pathOutside, "a dot-entry of the home folder, which no root holds"
	}
	if i, rel := e.rootOf(abs); i >= 0 {
		if why, ok := protectedRel(rel); ok {
			return pathProtected, why
		}
		if e.inChatDir(abs) {
			return pathProtected, rel + " is in the folder of conversations, which the server makes, never the model (a changed turn would be sent to the model as its own history)"
		}
		if rel != "." && e.aboveChatDir(abs) {
			return pathProtected, rel + " holds the folder of conversations, which the server makes, never the model (a folder moved into its place would bring turns the model wrote)"
		}
		return pathInside, ""
	}
	return pathOutside, ""
}

// inChatDir says whether the canonical path abs is the folder of
// conversations or lies below it, its name compared without case.
func (e *Env) inChatDir(abs string) bool {
	for _, d := range e.chatDirs {
		if hasPathPrefixFold(abs, d) {
			return true
		}
	}
	return false
}

// aboveChatDir says whether the folder of conversations lies below the
// canonical path abs (moving abs away and another folder into its place
// would replace the conversations).
func (e *Env) aboveChatDir(abs string) bool {
	for _, d := range e.chatDirs {
		if len(d) > len(abs)+1 && hasPathPrefixFold(d, abs+"/") {
			return true
		}
	}
	return false
}

// chatLinkOf says whether the file (dev, ino) is a conversation under
// another name (a hard link into the chat folder). The chat folder is
// walked once per check, however many hard-linked files the check meets.
func (e *Env) chatLinkOf(dev, ino uint64) bool {
	var links *chatLinks
	if e.check != nil {
		links = &e.check.chatLinks
	} else {
		links = &chatLinks{}
	}
	if !links.walked {
		links.walk(e.chatDirs)
	}
	if links.overflow {
		return true
	}
	_, ok := links.files[[2]uint64{dev, ino}]
	return ok
}

// chatLinks are the files of the chat folder, by device and inode, as one
// check found them: past maxLinkScan entries every file is taken for one.
type chatLinks struct {
	linkScan
	files map[[2]uint64]struct{}
}

func (c *chatLinks) walk(dirs []string) {
	c.walked = true
	var walked []os.FileInfo
	for _, d := range dirs {
		d = strings.TrimSuffix(d, "/")
		// The folder as given and as resolved are one folder when only
		// an ancestor is a symlink: walked once.
		if fi, err := os.Lstat(d); err == nil {
			if slices.ContainsFunc(walked, func(w os.FileInfo) bool { return os.SameFile(w, fi) }) {
				continue
			}
			walked = append(walked, fi)
		}
		c.tree(d, func(_ string, de fs.DirEntry) bool {
			if k, _, ok := regularFile(de); ok {
				if c.files == nil {
					c.files = map[[2]uint64]struct{}{}
				}
				c.files[k] = struct{}{}
			}
			return true
		})
	}
}

// homeRel returns abs relative to the user's home, /root or any /home/NAME.
func (e *Env) homeRel(abs string) (string, bool) {
	for _, h := range e.homes {
		if h != "" && h != "/" && len(abs) > len(h) && abs[len(h)] == '/' && strings.HasPrefix(abs, h) {
			return abs[len(h)+1:], true
		}
	}
	if strings.HasPrefix(abs, "/root/") {
		return abs[len("/root/"):], true
	}
	if strings.HasPrefix(abs, "/home/") {
		rest := abs[len("/home/"):]
		if _, tail, ok := strings.Cut(rest, "/"); ok {
			return tail, true
		}
	}
	return "", false
}
