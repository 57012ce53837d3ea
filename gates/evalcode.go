package gates

import (
	"context"
	"regexp"
	"strings"
)

// codeReport is what the analysis of a program in another language found;
// shell holds the command lines it hands to a shell, for the shell vector.
type codeReport struct {
	denies []string
	asks   []string
	shell  []string
}

// evalLangs are the languages the eval tool accepts, by every spelling.
var evalLangs = map[string]string{
	"python": "python", "python3": "python", "py": "python",
	"elisp": "elisp", "emacs-lisp": "elisp", "emacs_lisp": "elisp",
	"lisp": "lisp", "common-lisp": "lisp", "cl": "lisp",
	"js": "js", "javascript": "js", "node": "js",
	"sh": "sh", "bash": "sh", "shell": "sh",
}

// The operations a program can do, spotted by the calls that do them in
// each language (lower-cased substrings, all found in one keyword pass).
// They are deliberately broad: the eval vector only ever adds asks and
// denies, never an allow.
var (
	opWriteKw = []string{"write_text(", "write_bytes(", "shutil.copy", "shutil.move", "os.rename", "os.replace", "os.symlink", "os.link(",
		"os.chmod", "os.chown", "os.makedirs", "os.mkdir", "os.truncate", "urlretrieve", ".touch(", "writefile", "appendfile",
		"copyfile", "createwritestream", "fs.rename", "fs.symlink", "fs.mkdir", "fs.chmod", "write-region", "append-to-file",
		"copy-file", "rename-file", "make-symbolic-link", "write-file", "save-buffer", "with-temp-file", "make-directory",
		"org-todo", "set-file-modes", ":direction :output", ":if-exists", "fopen(", ".write(", "fs.write", "file_put_contents"}
	opDeleteKw = []string{"os.remove", "os.unlink", "os.rmdir", "os.removedirs", "shutil.rmtree", ".unlink(", ".rmdir(", "unlinksync",
		"rmsync", "rmdirsync", "fs.rm(", "fs.unlink(", "fs.rmdir(", "rimraf", "delete-file", "delete-directory", "uiop:delete-"}
	opExecKw = []string{"os.system", "os.popen", "os.exec", "os.spawn", "os.posix_spawn", "subprocess", "popen(", "pty.spawn",
		"commands.getoutput", "child_process", "execsync", "execfilesync", "spawnsync", "exec(", "spawn(", "shell-command",
		"call-process", "start-process", "make-process", "process-file", "process-lines", "run-program", "run-shell-command",
		"launch-program", "system(", "runtime.getruntime"}
	opNetSendKw = []string{"requests.post", "requests.put", "requests.patch", "requests.delete", "http.client", ".send(", ".sendall(",
		".sendto(", "smtplib", "ftplib", "method: 'post'", "method: \"post\"", "axios.post", "axios.put", "http.request",
		"xmlhttprequest", "net.connect", "websocket", "url-retrieve", "url-http", "open-network-stream", "make-network-process",
		"drakma:http-request", "dex:post", "dex:put", "usocket"}
	opNetKw = []string{"requests.", "urlopen", "urllib", "http.client", "socket", "fetch(", "axios", "http.get", "https.get",
		"url-retrieve", "url-http", "open-network-stream", "drakma", "dex:", "usocket", "net.connect", "websocket"}
	opSocketKw   = []string{"socket(", ".connect(", "net.connect", "net.socket", "open-network-stream", "make-network-process", "usocket:socket-connect"}
	opShellOutKw = []string{"subprocess", "popen(", "os.dup2", "pty.spawn", "os.system", "child_process", "spawn(", "/bin/sh", "/bin/bash", "shell-command", "start-process", "run-program"}
	opDecodeKw   = []string{"b64decode", "base64.decodebytes", "a85decode", "b32decode", "atob(", "'base64'", "\"base64\"", "base64-decode-string",
		"base64-decode-region", "cl-base64", "codecs.decode", "bytes.fromhex", "unhexlify", "zlib.decompress", "marshal.loads"}
	opDynEvalKw = []string{"exec(", "eval(", "compile(", "new function", "function(", "(eval ", "(funcall ", "read-from-string", "os.system",
		"subprocess", "shell-command", "child_process", "run-program", "__import__"}
	opCredKw = []string{"auth-source-search", "auth-source-pick", "auth-source-user-and-password", "secrets-get-secret", "password-store-get",
		"keyring.get_password", "keytar", "getpass.getpass", "find-generic-password", "gnome-keyring", "kwallet", "ssh-agent"}
	opEnvKw   = []string{"process.env", "os.environ", "getenv", "process-environment"}
	opDeserKw = []string{"pickle.load", "yaml.load(", "marshal.loads", "shelve.open", "jsonpickle", "dill.load"}
	opHomeKw  = []string{"homedir()", "expanduser(", "path.home()", "os.homedir", "(getenv \"home\")", "user-homedir-pathname", "env['home']", "env[\"home\"]", "dir.home", "getenv('home')", "getenv(\"home\")"}
	joinKw    = []string{"join", "resolve", "path(", "expand-file-name", "concat", "merge-pathnames"}
)

// codeKeywords are the operations above in one keyword matcher.
type codeKeywords struct {
	m                                                *kwMatcher
	write, del, exec, netSend, net, socket, shellOut kwGroup
	decode, dynEval, cred, env, deser, home, join    kwGroup
	open, request, dataEq, urlopen, data             kwID
}

var codeKW = func() *codeKeywords {
	b := newKwBuilder()
	k := &codeKeywords{
		write: b.group(true, opWriteKw...), del: b.group(true, opDeleteKw...), exec: b.group(true, opExecKw...),
		netSend: b.group(true, opNetSendKw...), net: b.group(true, opNetKw...), socket: b.group(true, opSocketKw...),
		shellOut: b.group(true, opShellOutKw...), decode: b.group(true, opDecodeKw...), dynEval: b.group(true, opDynEvalKw...),
		cred: b.group(true, opCredKw...), env: b.group(true, opEnvKw...), deser: b.group(true, opDeserKw...),
		home: b.group(true, opHomeKw...), join: b.group(true, joinKw...),
		open: b.add("open", true), request: b.add("request(", true), dataEq: b.add("data=", true),
		urlopen: b.add("urlopen(", true), data: b.add("data", true),
	}
	k.m = b.build()
	return k
}()

// shellArgPattern finds a string handed to a function that runs a shell
// command. It has no assertions (\b, ^, $), and every match starts with
// one of shellArgStarts.
const shellArgPattern = `(?:os\.system|os\.popen|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|execSync|exec|spawnSync|shell-command(?:-to-string)?|async-shell-command|run-shell-command|uiop:run-program|sb-ext:run-program|uiop:launch-program|system)\s*\(?\s*(?:\(\s*)?(?:list\s+)?(?:f|r|b)?("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`" + `)`

// shellArgStarts are the words the alternatives of shellArgPattern's
// first group begin with.
var shellArgStarts = [...]string{"os.", "subprocess.", "exec", "spawnSync", "shell-command", "async-shell-command", "run-shell-command", "uiop:", "sb-ext:", "system"}

// shellArgMatches is FindAllStringSubmatch(line, -1) of shellArgPattern: the
// anchored pattern is tried only where one of shellArgStarts begins, left
// to right, from the end of the last match. The unanchored search finds its
// leftmost match at one of those places (every match starts with one), and
// there the same match (the pattern has no assertions that look behind).
func shellArgMatches(line string) [][]string {
	var out [][]string
	for pos := 0; pos < len(line); {
		start := -1
		for _, w := range shellArgStarts {
			end := len(line)
			if start >= 0 {
				end = min(len(line), start+len(w)-1) // only an earlier start matters
			}
			if i := strings.Index(line[pos:end], w); i >= 0 {
				start = pos + i
			}
		}
		if start < 0 {
			break
		}
		m := reShellArgAt.FindStringSubmatchIndex(line[start:])
		if m == nil {
			pos = start + 1
			continue
		}
		out = append(out, submatchesAt(line, start, m))
		pos = start + m[1]
	}
	return out
}

var (
	reOpenWrite = regexp.MustCompile(`open\s*\([^()]*,\s*(?:mode\s*=\s*)?['"](?:[rwxab]*[wxa+][rwxab+t]*)['"]`)
	// reShellArgAt is shellArgPattern anchored, tried where a match can
	// start (shellArgMatches).
	reShellArgAt = regexp.MustCompile("^" + shellArgPattern)
)

// analyzeCode analyses a program in lang (already normalised or not). It
// never allows: code evaluation always needs at least a human's approval,
// and the findings here decide whether it is refused outright.
func analyzeCode(env *Env, lang, code string, depth int) codeReport {
	var r codeReport
	l := evalLangs[strings.ToLower(lang)]
	if l == "" {
		l = strings.ToLower(lang)
	}
	if l == "perl" || l == "ruby" || l == "php" || l == "lua" || l == "tcl" || l == "r" || l == "applescript" || l == "powershell" || l == "java" || l == "groovy" {
		// Interpreters reached from the shell: analysed with the generic
		// rules below, plus their quote operators.
	}
	if l == "sh" {
		rep := analyzeShellDepth(context.Background(), env, code, ".", depth)
		r.denies = append(r.denies, rep.denies...)
		r.asks = append(r.asks, rep.asks...)
		return r
	}
	kw := codeKW
	var hitsBuf kwHits
	hits := &hitsBuf
	kw.m.scan(code, hits)
	lits := env.literalsOf(code)
	if hits.any(kw.home) {
		lits = append(lits, "~")
	}
	lits = append(lits, joinedPaths(code, lits, hits)...)
	writes := hits.any(kw.write) || hits.has(kw.open) && reOpenWrite.MatchString(code)
	deletes := hits.any(kw.del)
	sends := hits.any(kw.netSend) || hits.has(kw.request) && hits.has(kw.dataEq) || hits.has(kw.urlopen) && hits.has(kw.data)
	var outside, protected []string
	for _, lit := range lits {
		cs := pathCandidates(lit)
		for _, cand := range cs.list() {
			if !codePathLike(cand) {
				continue
			}
			loc := env.locate(cand, ".")
			switch loc.class {
			case pathCredential:
				r.denies = appendUnique(r.denies, "the code uses "+cand+": "+loc.why)
			case pathOutside, pathDynamic:
				outside = appendUnique(outside, cand)
			case pathProtected:
				protected = appendUnique(protected, cand)
			}
		}
	}
	if hits.any(kw.cred) {
		r.denies = append(r.denies, "the code queries a credential store")
	}
	if len(outside) > 0 && (writes || deletes) {
		r.denies = append(r.denies, "the code writes or deletes outside the roots ("+strings.Join(limitList(outside, 3), ", ")+")")
	}
	if len(outside) > 0 && sends {
		r.denies = append(r.denies, "the code sends data while touching files outside the roots ("+strings.Join(limitList(outside, 3), ", ")+")")
	}
	if len(protected) > 0 && (writes || deletes) {
		r.denies = append(r.denies, "the code changes files only a human may change (Flight Plans, the journal, pp-lsp's configuration, hooks)")
	}
	if hits.any(kw.socket) && hits.any(kw.shellOut) {
		r.denies = append(r.denies, "the code connects a socket and runs commands: a reverse shell")
	}
	if hits.any(kw.decode) && hits.any(kw.dynEval) {
		r.denies = append(r.denies, "the code decodes hidden text and runs it")
	}
	if l == "perl" || l == "ruby" {
		for _, q := range perlQuoted(code) {
			r.shell = append(r.shell, q)
		}
		for _, m := range reBackticks.FindAllStringSubmatch(code, -1) {
			r.shell = append(r.shell, m[1])
		}
	}
	hits.forLines(code, kw.exec, func(s, e int) bool {
		for _, m := range shellArgMatches(code[s:e]) {
			if sh := unquoteCode(m[1]); strings.TrimSpace(sh) != "" {
				r.shell = append(r.shell, sh)
			}
		}
		return true
	})
	if hits.any(kw.exec) {
		r.asks = append(r.asks, "the code runs other programs")
	}
	if hits.any(kw.net) {
		r.asks = append(r.asks, "the code reaches the network")
	}
	if hits.any(kw.env) {
		r.asks = append(r.asks, "the code reads environment variables, which may hold secrets")
	}
	if hits.any(kw.deser) {
		r.asks = append(r.asks, "the code deserialises data that can run code")
	}
	if len(outside) > 0 {
		r.asks = append(r.asks, "the code uses paths outside the roots ("+strings.Join(limitList(outside, 3), ", ")+")")
	}
	return r
}

func limitList(l []string, n int) []string {
	if len(l) > n {
		return append(l[:n:n], "…")
	}
	return l
}

// reBackticks finds Perl's and Ruby's `command` strings.
var reBackticks = regexp.MustCompile("`([^`]+)`")

// perlQuoted returns the bodies of Perl and Ruby quote-like operators
// (q{…}, qq(…), qx[…], %x{…}), which hide commands from a string scan.
func perlQuoted(code string) []string {
	var out []string
	closer := map[byte]byte{'{': '}', '(': ')', '[': ']', '<': '>'}
	for i := 0; i+2 < len(code); i++ {
		j := -1
		switch {
		case code[i] == 'q' && (i == 0 || !isWordByte(code[i-1])):
			j = i + 1
			if j < len(code) && (code[j] == 'q' || code[j] == 'x') {
				j++
			}
		case code[i] == '%' && (code[i+1] == 'x' || code[i+1] == 'q' || code[i+1] == 'Q'):
			j = i + 2
		}
		if j < 0 || j >= len(code) {
			continue
		}
		open := code[j]
		cl, ok := closer[open]
		if !ok {
			if open == '/' || open == '|' || open == '!' {
				cl = open
			} else {
				continue
			}
		}
		depth := 0
		for k := j + 1; k < len(code); k++ {
			if code[k] == open && cl != open {
				depth++
			} else if code[k] == cl {
				if depth == 0 {
					out = append(out, code[j+1:k])
					i = k
					break
				}
				depth--
			}
		}
	}
	return out
}

func isWordByte(c byte) bool { return byteClasses[c]&classWord != 0 }

// codePathLike is pathLike for string literals in code: absolute, ~, or a
// relative path with a slash; URLs and format strings are not paths.
func codePathLike(s string) bool {
	if s == "" || strings.Contains(s, "://") || strings.ContainsAny(s, "\n{}%<>|") || len(s) > 512 {
		return false
	}
	return s[0] == '/' || s[0] == '~' || strings.HasPrefix(s, "$HOME") || strings.HasPrefix(s, "../") || strings.Contains(s, "/../") || strings.HasPrefix(s, "./")
}

// codeLiterals returns the string literals of a program in any of the
// languages: '…', "…", `…` and Python's triple quotes, escapes decoded.
func codeLiterals(code string) []string {
	var out []string
	for i := 0; i < len(code); i++ {
		q := code[i]
		if q != '\'' && q != '"' && q != '`' {
			continue
		}
		if q == '\'' && i > 0 && (code[i-1] == '(' || code[i-1] == ' ' || code[i-1] == '#') && looksLisp(code) {
			continue // a Lisp quote, not a string
		}
		triple := strings.HasPrefix(code[i:], strings.Repeat(string(q), 3))
		var b strings.Builder
		j := i + 1
		if triple {
			j = i + 3
		}
		for ; j < len(code); j++ {
			c := code[j]
			if c == '\\' && j+1 < len(code) {
				j++
				switch code[j] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(code[j])
				}
				continue
			}
			if c == q && (!triple || strings.HasPrefix(code[j:], strings.Repeat(string(q), 3))) {
				break
			}
			if c == '\n' && !triple && q != '`' {
				break
			}
			b.WriteByte(c)
		}
		out = append(out, b.String())
		if triple {
			j += 2
		}
		i = j
	}
	return out
}

func looksLisp(code string) bool {
	t := strings.TrimSpace(code)
	return strings.HasPrefix(t, "(") || strings.HasPrefix(t, ";")
}

var (
	reJoin = regexp.MustCompile(`(?:os\.path\.join|path\.join|path\.resolve|Path|expand-file-name|concat|merge-pathnames)\s*\(?\s*([^()\n]*)\)`)
)

// joinedPaths computes paths a program builds with os.path.join and
// friends from literals and variables holding literals.
func joinedPaths(code string, lits []string, hits *kwHits) []string {
	if !hits.any(codeKW.join) {
		return nil
	}
	vars := literalAssignments(code)
	var out []string
	var joins [][]string
	hits.forLines(code, codeKW.join, func(s, e int) bool {
		joins = append(joins, reJoin.FindAllStringSubmatch(code[s:e], -1)...)
		return true
	})
	for _, m := range joins {
		var parts []string
		for _, arg := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ',' || r == ' ' }) {
			arg = strings.TrimSpace(arg)
			switch {
			case len(arg) >= 2 && (arg[0] == '\'' || arg[0] == '"'):
				parts = append(parts, strings.Trim(arg, `'"`))
			case vars[arg] != "":
				parts = append(parts, vars[arg])
			}
		}
		if len(parts) >= 1 {
			p := parts[0]
			for _, x := range parts[1:] {
				if strings.HasPrefix(x, "/") {
					p = x
				} else {
					p = strings.TrimSuffix(p, "/") + "/" + x
				}
			}
			out = append(out, p)
		}
	}
	// Variables holding a path used with ../ traversal elsewhere.
	for _, v := range vars {
		if codePathLike(v) {
			out = append(out, v)
		}
	}
	return out
}

// literalAssignments finds NAME = "literal" (and Lisp's (setq NAME
// "literal")) in code: the variables a later join may use.
func literalAssignments(code string) map[string]string {
	vars := map[string]string{}
	for i := 0; i < len(code); i++ {
		q := code[i]
		if q != '"' && q != '\'' {
			continue
		}
		end := strings.IndexByte(code[i+1:], q)
		if end < 0 {
			break
		}
		lit := code[i+1 : i+1+end]
		j := i - 1
		if j >= 0 && (code[j] == 'f' || code[j] == 'r') {
			j--
		}
		for j >= 0 && code[j] == ' ' {
			j--
		}
		hadEq := j >= 0 && code[j] == '='
		if hadEq {
			j--
			for j >= 0 && code[j] == ' ' {
				j--
			}
		}
		k := j
		for k >= 0 && (isWordByte(code[k]) || code[k] == '-') {
			k--
		}
		if k < j && !strings.ContainsAny(lit, "\n") && (hadEq || k >= 5 && strings.HasSuffix(code[:k+1], "setq ")) {
			vars[code[k+1:j+1]] = lit
		}
		i += end + 1
	}
	return vars
}

// codeUnescaper undoes the escapes of a quoted string in code.
var codeUnescaper = strings.NewReplacer(`\"`, `"`, `\'`, `'`, `\\`, `\`, `\n`, "\n")

func unquoteCode(s string) string {
	if len(s) < 2 {
		return ""
	}
	body := s[1 : len(s)-1]
	return codeUnescaper.Replace(body)
}

// evalVector judges the eval tool: always at least an ask.
func (d *dispatcher) evalVector(_ context.Context, lang, code string, env *Env) Result {
	r := analyzeCode(env, lang, code, 0)
	for _, sh := range r.shell {
		rep := analyzeShellDepth(context.Background(), env, sh, ".", 1)
		r.denies = append(r.denies, rep.denies...)
	}
	if len(r.denies) > 0 {
		return Denied("eval: " + strings.Join(limitList(r.denies, 3), "; "))
	}
	reasons := append([]string{"evaluating " + evalLangs[strings.ToLower(lang)] + " code always needs approval"}, r.asks...)
	return Asked(strings.Join(limitList(reasons, 4), "; "))
}
