package gates

import (
	"strings"
	"sync"
)

// rsyncTable is rsync's options, from `rsync --help` and rsync(1) of
// rsync 3.x (held to the installed rsync by TestRsyncTableMatchesRsync):
// one option a line, its names (the first is the one the analysis goes
// by), "=X" when it takes a value (the rest of a short cluster, the text
// after "=", or the next word, whatever it starts with: rsync reads its
// command line with popt, which permutes options after operands and
// knows no abbreviations) and what the value is:
//
//	write     a file or folder rsync writes (relative: to the working
//	          folder and, for the folders, to the destination)
//	read      a file rsync reads
//	linkdest  a folder whose files rsync makes second names of (hard
//	          links), relative to the destination
//	copydest  a folder whose files rsync copies, relative to the
//	          destination
//
// Every "--no-…" is a flag turning one off (rsync knows a fixed list of
// them; any other is an error before anything is done).
const rsyncTable = `
--verbose -v
--info =X
--debug =X
--stderr =X
--msgs2stderr
--quiet -q
--no-motd
--motd
--checksum -c
--archive -a
--recursive -r
--inc-recursive --i-r
--i-d
--relative -R
--no-implied-dirs
--backup -b
--backup-dir =X write
--suffix =X
--update -u
--inplace
--append
--append-verify
--dirs -d
--old-dirs --old-d
--mkpath
--links -l
--copy-links -L
--copy-unsafe-links
--safe-links
--insecure-links
--confine-root =X
--munge-links
--copy-dirlinks -k
--keep-dirlinks -K
--hard-links -H
--perms -p
--executability -E
--chmod =X
--acls -A
--xattrs -X
--owner -o
--group -g
--devices
--copy-devices
--write-devices
--specials
--drop-D
-D
--times -t
--atimes -U
--open-noatime
--crtimes -N
--omit-dir-times -O
--omit-link-times -J
--super
--fake-super
--sparse -S
--preallocate
--dry-run -n
--whole-file -W
--checksum-choice --cc =X
--one-file-system -x
--block-size -B =X
--rsh -e =X
--rsync-path =X
--existing --ignore-non-existing
--ignore-existing
--remove-source-files
--del
--delete
--delete-before
--delete-during
--delete-delay
--delete-after
--delete-excluded
--ignore-missing-args
--delete-missing-args
--ignore-errors
--force
--max-delete =X
--max-size =X
--min-size =X
--max-alloc =X
--partial
--partial-dir =X write
--delay-updates
--prune-empty-dirs -m
--numeric-ids
--usermap =X
--groupmap =X
--chown =X
--timeout =X
--contimeout =X
--ignore-times -I
--size-only
--modify-window -@ =X
--temp-dir -T =X write
--fuzzy -y
--compare-dest =X
--copy-dest =X copydest
--link-dest =X linkdest
--compress -z
--old-compress
--new-compress
--compress-choice --zc =X
--compress-level --zl =X
--compress-threads --zt =X
--skip-compress =X
--cvs-exclude -C
--filter -f =X
-F
--exclude =X
--exclude-from =X read
--include =X
--include-from =X read
--files-from =X read
--from0 -0
--old-args
--secluded-args --protect-args -s
--trust-sender
--copy-as =X
--address =X
--port =X
--sockopts =X
--blocking-io
--outbuf =X
--stats
--8-bit-output -8
--human-readable -h
--progress
-P
--itemize-changes -i
--remote-option -M =X
--out-format --log-format =X
--log-file =X write
--log-file-format =X
--password-file =X read
--early-input =X read
--list-only
--bwlimit =X
--stop-after --time-limit =X
--stop-at =X
--fsync
--write-batch =X write
--only-write-batch =X write
--read-batch =X read
--protocol =X
--iconv =X
--checksum-seed =X
--ipv4 -4
--ipv6 -6
--version -V
--help
--qsort
--server
--sender
--daemon
--detach
--config =X
--dparam =X
`

// rsyncOption is one line of rsyncTable.
type rsyncOption struct {
	names []string
	value bool
	role  string
}

// rsyncOptions is rsyncTable read: by every name.
var rsyncOptions = sync.OnceValue(func() map[string]*rsyncOption {
	m := map[string]*rsyncOption{}
	for _, line := range strings.Split(rsyncTable, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		o := &rsyncOption{}
		for _, w := range f {
			switch {
			case w == "=X":
				o.value = true
			case strings.HasPrefix(w, "-"):
				o.names = append(o.names, w)
			default:
				o.role = w
			}
		}
		for _, n := range o.names {
			m[n] = o
		}
	}
	return m
})

// rsyncGiven is one option of an rsync command line, by its first name.
type rsyncGiven struct {
	name, val string
}

// rsyncCmd is an rsync command line read as rsync reads it.
type rsyncCmd struct {
	opts    []rsyncGiven
	ops     []string
	unknown []string
}

// names are the options given, by their first names.
func (c rsyncCmd) names() []string {
	out := make([]string, 0, len(c.opts))
	for _, o := range c.opts {
		out = append(out, o.name)
	}
	return out
}

// hardLinks says whether the command preserves hard links (-H, not turned
// off after by --no-H).
func (c rsyncCmd) hardLinks() bool {
	on := false
	for _, o := range c.opts {
		switch o.name {
		case "--hard-links":
			on = true
		case "--no-H", "--no-hard-links":
			on = false
		}
	}
	return on
}

// parseRsync reads rsync's command line as popt does: options anywhere
// until "--", long ones whole (no abbreviation) with "=value" or the next
// word, short ones clustered, a value taking the rest of the cluster or
// the next word. An option rsync does not know (rsync refuses the command)
// is kept in unknown and taken for a flag, so that no word after it is
// lost as its value.
func parseRsync(args []string) rsyncCmd {
	var c rsyncCmd
	table := rsyncOptions()
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			c.ops = append(c.ops, args[i+1:]...)
			return c
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a, "=")
			o := table[name]
			switch {
			case o == nil && strings.HasPrefix(name, "--no-") && !hasVal:
				c.opts = append(c.opts, rsyncGiven{name: name})
			case o == nil:
				c.unknown = append(c.unknown, a)
			case o.value && !hasVal && i+1 < len(args):
				i++
				c.opts = append(c.opts, rsyncGiven{o.names[0], args[i]})
			case o.value:
				c.opts = append(c.opts, rsyncGiven{o.names[0], val})
			case hasVal:
				c.unknown = append(c.unknown, a+" (takes no value)")
			default:
				c.opts = append(c.opts, rsyncGiven{name: o.names[0]})
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				o := table["-"+a[j:j+1]]
				if o == nil {
					c.unknown = append(c.unknown, "-"+a[j:j+1])
					continue
				}
				if !o.value {
					c.opts = append(c.opts, rsyncGiven{name: o.names[0]})
					continue
				}
				val := a[j+1:]
				if val == "" && i+1 < len(args) {
					i++
					val = args[i]
				}
				c.opts = append(c.opts, rsyncGiven{o.names[0], val})
				break
			}
		default:
			c.ops = append(c.ops, a)
		}
	}
	return c
}
