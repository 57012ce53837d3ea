package gates

import "strings"

// readOnlyVerbs only read files and print: with every path inside the
// roots they are what the default permissions allow without asking.
var readOnlyVerbs = map[string]bool{
	"ls": true, "cat": true, "grep": true, "egrep": true, "fgrep": true, "rg": true, "find": true,
	"head": true, "tail": true, "wc": true, "du": true, "df": true, "stat": true, "file": true,
	"sort": true, "uniq": true, "tree": true, "echo": true, "pwd": true, "printf": true, "true": true,
	"false": true, "basename": true, "dirname": true, "realpath": true, "readlink": true, "cut": true,
	"nl": true, "tac": true, "column": true, "comm": true, "cmp": true, "diff": true, "date": true,
	"md5sum": true, "sha1sum": true, "sha256sum": true, "sha512sum": true, "whoami": true, "id": true,
	"uname": true, "which": true, "type": true, "less": false, "xxd": true, "od": true, "hexdump": true,
	"strings": true, "test": true, "[": true, "sleep": true, "seq": true, "yes": false, "tr": true,
	"git": true, "cd": true, "jq": true, "expr": true,
}

// noPathArgs print their arguments: nothing they are given is opened.
var noPathArgs = map[string]bool{"echo": true, "printf": true, "true": true, "false": true, "expr": true, "seq": true, "sleep": true, "test": true, "[": true}

// shellVerbs run a script: from -c, a file, or stdin.
var shellVerbs = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true,
	"fish": true, "csh": true, "tcsh": true, "rbash": true, "yash": true, "posh": true,
}

// interpreters run code in another language; codeFlags are the options
// that take the code itself as their argument.
var interpreters = map[string]string{
	"python": "python", "python2": "python", "python3": "python", "pypy": "python", "pypy3": "python",
	"perl": "perl", "ruby": "ruby", "node": "js", "nodejs": "js", "deno": "js", "bun": "js",
	"php": "php", "lua": "lua", "luajit": "lua", "Rscript": "r", "osascript": "applescript",
	"tclsh": "tcl", "guile": "lisp", "sbcl": "lisp", "clisp": "lisp", "ecl": "lisp", "racket": "lisp",
	"emacs": "elisp", "pwsh": "powershell", "powershell": "powershell", "jshell": "java", "groovy": "groovy",
}

var codeFlags = map[string]bool{
	"-c": true, "-e": true, "-E": true, "-r": true, "-p": true, "--eval": true, "--exec": true,
	"-x": false, "--command": true, "-Command": true, "-command": true, "--expr": true,
}

var awkVerbs = map[string]bool{"awk": true, "gawk": true, "mawk": true, "nawk": true}

// networkVerbs reach other machines.
var networkVerbs = map[string]bool{
	"curl": true, "wget": true, "nc": true, "ncat": true, "netcat": true, "socat": true, "telnet": true,
	"ssh": true, "scp": true, "sftp": true, "ftp": true, "tftp": true, "rsync": false, "dig": true,
	"nslookup": true, "host": true, "drill": true, "ping": true, "traceroute": true, "http": true,
	"https": true, "aria2c": true, "lynx": true, "w3m": true, "links": true, "openssl": false, "xh": true,
	"lftp": true, "smbclient": true, "mosh": true, "tailscale": true,
	"mail": true, "mailx": true, "s-nail": true, "sendmail": true, "msmtp": true, "ssmtp": true, "mutt": true,
	"neomutt": true, "swaks": true, "nmap": true, "whois": true, "finger": true,
}

// deleteVerbs remove files.
var deleteVerbs = map[string]bool{
	"rm": true, "rmdir": true, "unlink": true, "shred": true, "wipe": true, "srm": true,
	"trash": true, "trash-put": true, "gio": false,
}

// writeVerbs change or create every path they are given.
var writeVerbs = map[string]bool{
	"touch": true, "mkdir": true, "chmod": true, "chown": true, "chgrp": true, "chattr": true,
	"setfacl": true, "truncate": true, "gzip": true, "gunzip": true, "bzip2": true, "xz": true,
	"zstd": true, "unzip": true, "zip": true, "7z": true, "patch": true, "split": true,
	"mkfifo": true, "mknod": true, "shuf": false, "csplit": true, "install": false,
}

// diskVerbs format, partition or wipe disks.
var diskVerbs = map[string]bool{
	"mkfs": true, "mke2fs": true, "mkswap": true, "fdisk": true, "sfdisk": true, "cfdisk": true,
	"parted": true, "wipefs": true, "sgdisk": true, "gdisk": true, "blkdiscard": true, "hdparm": true,
	"cryptsetup": true, "mkntfs": true, "mkdosfs": true, "badblocks": true,
}

// systemVerbs stop the machine or change accounts.
var systemVerbs = map[string]bool{
	"shutdown": true, "reboot": true, "halt": true, "poweroff": true, "telinit": true,
	"passwd": true, "chpasswd": true, "usermod": true, "useradd": true, "userdel": true,
	"groupmod": true, "visudo": true, "chsh": true, "insmod": true, "rmmod": true, "modprobe": true,
	"iptables": true, "nft": true, "ufw": true, "sysctl": true, "mount": true, "umount": true, "swapoff": true,
}

// verbKind says which of the tables above hold a program (with true):
// judge asks one map instead of each table in turn.
type verbKind uint16

const (
	kindShell verbKind = 1 << iota
	kindInterpreter
	kindAwk
	kindDelete
	kindWrite
	kindDisk
	kindSystem
	kindNetwork
	kindReadOnly
)

var verbKinds = func() map[string]verbKind {
	m := map[string]verbKind{}
	for _, t := range []struct {
		table map[string]bool
		kind  verbKind
	}{
		{shellVerbs, kindShell}, {awkVerbs, kindAwk}, {deleteVerbs, kindDelete}, {writeVerbs, kindWrite}, {diskVerbs, kindDisk},
		{systemVerbs, kindSystem}, {networkVerbs, kindNetwork}, {readOnlyVerbs, kindReadOnly},
	} {
		for v, in := range t.table {
			if in {
				m[v] |= t.kind
			}
		}
	}
	for v, lang := range interpreters {
		if lang != "" {
			m[v] |= kindInterpreter
		}
	}
	return m
}()

// verbName is the program a command runs, path-qualified binaries reduced
// to their name (/usr/bin/rm is rm).
func verbName(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	v := argv[0]
	if i := strings.LastIndexByte(v, '/'); i >= 0 {
		v = v[i+1:]
	}
	if strings.HasPrefix(v, "mkfs.") {
		return "mkfs"
	}
	return v
}

// systemBinDirs hold the system's own programs; a verb qualified with
// another directory runs something that may not be what its name says.
func systemBinary(path string) bool {
	for _, d := range []string{"/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/", "/usr/local/sbin/"} {
		if strings.HasPrefix(path, d) && !strings.Contains(path[len(d):], "/") {
			return true
		}
	}
	return false
}

// splitOpts separates a command's options from its operands: "--" ends
// options; optsWithArg lists the options that take the next word.
func splitOpts(args []string, optsWithArg map[string]bool) (opts, operands []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return opts, append(operands, args[i+1:]...)
		}
		if len(a) > 1 && a[0] == '-' {
			opts = append(opts, a)
			if optsWithArg[a] && i+1 < len(args) {
				i++
				opts = append(opts, args[i])
			}
			continue
		}
		operands = append(operands, a)
	}
	return opts, operands
}

// hasShortFlag reports whether a short option letter appears in opts,
// alone or grouped (-rf), or as the long form.
func hasShortFlag(opts []string, letter byte, long string) bool {
	for _, o := range opts {
		if long != "" && (o == long || strings.HasPrefix(o, long+"=")) {
			return true
		}
		if len(o) > 1 && o[0] == '-' && o[1] != '-' && strings.IndexByte(o[1:], letter) >= 0 {
			return true
		}
	}
	return false
}

// pathLike says whether a word names a file: it has a slash, starts with
// ~ or a dot, and is not a URL.
func pathLike(w string) bool {
	if w == "" || strings.HasPrefix(w, "-") || strings.Contains(w, "://") {
		return false
	}
	return strings.ContainsRune(w, '/') || w[0] == '~' || w == "." || w == ".." || strings.HasPrefix(w, "$")
}

// optValue splits --opt=value and key=value words.
func optValue(w string) (string, bool) {
	if i := strings.IndexByte(w, '='); i > 0 {
		return w[i+1:], true
	}
	return "", false
}

// The options of each program that take the next word as their argument
// (so that the word is not read as an operand), by program.
var (
	sudoOpts      = map[string]bool{"-u": true, "-g": true, "-C": true, "-D": true, "-h": true, "-p": true, "-r": true, "-t": true, "-U": true, "--user": true, "--group": true}
	timeoutOpts   = map[string]bool{"-s": true, "-k": true, "--signal": true, "--kill-after": true}
	niceOpts      = map[string]bool{"-n": true, "-c": true, "-p": true, "--adjustment": true, "--class": true, "--classdata": true}
	wrapperOpts   = map[string]bool{"-o": true, "-i": true, "-e": true, "-a": true}
	watchOpts     = map[string]bool{"-n": true, "--interval": true, "-d": false}
	writeVerbOpts = map[string]bool{"-s": true, "--size": true, "-m": true, "--mode": true, "-r": true, "--reference": true}
	xargsOpts     = map[string]bool{"-I": true, "-i": false, "-n": true, "-P": true, "-d": true, "-a": true, "-E": true, "-L": true, "-s": true, "--max-args": true, "--delimiter": true, "--arg-file": true, "--max-procs": true}
	// coreutilsCopyOpts are the options of cp, mv and ln that take a
	// value (their -i and -P are flags, whose next word is an operand).
	coreutilsCopyOpts = map[string]bool{"-t": true, "--target-directory": true, "-S": true, "--suffix": true}
	copyOpts          = map[string]bool{"-t": true, "--target-directory": true, "-S": true, "--suffix": true, "-m": true, "-o": true, "-g": true, "-e": true, "-i": true, "-P": true, "-p": false, "-F": true}
	xxdOpts           = map[string]bool{"-l": true, "-s": true, "-c": true, "-g": true, "-o": true, "-n": true}
	readOnlyOpts      = map[string]bool{"-e": true, "-f": true, "-m": true, "-A": true, "-B": true, "-C": true, "--context": true, "-n": true, "-c": true, "--lines": true, "--bytes": true, "-t": true, "-g": true, "--glob": true, "-o": true, "--format": true, "-k": true, "-L": false, "-T": true, "-d": true, "-I": true, "--type": true}
)
