package gates

// The command-line grammars of the programs the gates reason about: every
// program a default permission rule can allow, the wrappers that run
// another command, and the editor and terminal clients that could reach
// the user's own session. One table per program, each citing the manual
// (and version) it was written from and checked against; grammar_real_test.go
// holds every table to the installed program's --help and getopt
// behaviour, and gates/README.md says how to add one.
//
// A line is one option: its names (aliases share the line, as getopt's
// ambiguity rule treats them as one option), its value (=X required,
// [=X] optional and attached only, =X =Y two words), and its effects:
//
//	read       the value names a file the program reads the content of
//	meta       the value names a path whose name or metadata alone is used
//	write      the value names a file the program creates or replaces
//	run        the program runs the value (or a fixed program) as a program
//	shell      the program runs the value as shell text
//	readnames  the value names a file that lists more files to read
//	cwd        the value is a directory the program works in
//	readtree   the value names a file, or a folder every file below which is read
//	ask : why  a human must see it
//	deny : why never for an agent
//	self : why it reaches into the user's own editor or terminal session
//	recurse, pattern, namesonly, content, nocontent, dirs, progfile, nofiles, opsnames,
//	history, worktree, follow (a recursive read follows symbolic links), nofollow
//	           modes: how the option changes the reading of the operands
//
// An option with no effect is known safe. An option a table does not list
// is unknown, and an unknown option is never allowed.
//
// Operand roles: read, meta, text, write, edit (read, and maybe written),
// editcmd (as edit, but +CMD is an editor command), readtree (a file, or
// a folder every file below which is read),
// pattern (the pattern unless an
// option gave it), filter (jq), date, command (the rest runs as a
// command), cwd, rev (git: a revision, REV:PATH or a path); "*" repeats the
// last; dflt=. is the operand when there is none.

// programTable is every program with a grammar.
var programTable = []programSpec{
	// ---- GNU coreutils 9.1 (Debian 12); each from `PROG --help` and PROG(1).
	{names: "cat", source: "cat(1), GNU coreutils 9.1", rules: rulesGNU, operands: "read*", opts: `
		-A --show-all
		-b --number-nonblank
		-e
		-E --show-ends
		-n --number
		-s --squeeze-blank
		-t
		-T --show-tabs
		-u
		-v --show-nonprinting
		--help
		--version`},
	{names: "tac", source: "tac(1), GNU coreutils 9.1", rules: rulesGNU, operands: "read*", opts: `
		-b --before
		-r --regex
		-s --separator =STRING
		--help
		--version`},
	{names: "nl", source: "nl(1), GNU coreutils 9.1", rules: rulesGNU, operands: "read*", opts: `
		-b --body-numbering =STYLE
		-d --section-delimiter =CC
		-f --footer-numbering =STYLE
		-h --header-numbering =STYLE
		-i --line-increment =NUMBER
		-l --join-blank-lines =NUMBER
		-n --number-format =FORMAT
		-p --no-renumber
		-s --number-separator =STRING
		-v --starting-line-number =NUMBER
		-w --number-width =NUMBER
		--help
		--version`},
	{names: "head", source: "head(1), GNU coreutils 9.1", rules: rulesGNU, operands: "read*", opts: `
		-NUM
		-c --bytes =NUM
		-n --lines =NUM
		-q --quiet --silent
		-v --verbose
		-z --zero-terminated
		--help
		--version`},
	{names: "tail", source: "tail(1), GNU coreutils 9.1", rules: rulesGNU, operands: "read*", opts: `
		-NUM ask : follows the file forever
		-c --bytes =NUM
		-f --follow [=HOW] ask : follows the file forever
		-F ask : follows the file forever
		-n --lines =NUM
		--max-unchanged-stats =N
		--pid =PID
		-q --quiet --silent
		--retry
		-s --sleep-interval =N
		-v --verbose
		-z --zero-terminated
		--help
		--version`},
	{names: "wc", source: "wc(1), GNU coreutils 9.1", rules: rulesGNU, operands: "read*", opts: `
		-c --bytes
		-m --chars
		-l --lines
		--files0-from =F readnames
		-L --max-line-length
		-w --words
		--help
		--version`},
	{names: "sort", source: "sort(1), GNU coreutils 9.1", rules: rulesGNU, operands: "read*", opts: `
		-b --ignore-leading-blanks
		-d --dictionary-order
		-f --ignore-case
		-g --general-numeric-sort
		-i --ignore-nonprinting
		-M --month-sort
		-h --human-numeric-sort
		-n --numeric-sort
		-R --random-sort
		--random-source =FILE read
		-r --reverse
		--sort =WORD
		-V --version-sort
		--batch-size =NMERGE
		-c --check [=HOW]
		-C
		--compress-program =PROG run : sort runs PROG on its temporary files
		--debug
		--files0-from =F readnames
		-k --key =KEYDEF
		-m --merge
		-o --output =FILE write
		-s --stable
		-S --buffer-size =SIZE
		-t --field-separator =SEP
		-T --temporary-directory =DIR write
		--parallel =N
		-u --unique
		-z --zero-terminated
		--help
		--version`},
	{names: "uniq", source: "uniq(1), GNU coreutils 9.1", rules: rulesGNU, operands: "read write", opts: `
		-c --count
		-d --repeated
		-D
		--all-repeated [=METHOD]
		-f --skip-fields =N
		--group [=METHOD]
		-i --ignore-case
		-s --skip-chars =N
		-u --unique
		-z --zero-terminated
		-w --check-chars =N
		--help
		--version`},
	{names: "cut", source: "cut(1), GNU coreutils 9.1", rules: rulesGNU, operands: "read*", opts: `
		-b --bytes =LIST
		-c --characters =LIST
		-d --delimiter =DELIM
		-f --fields =LIST
		-n
		--complement
		-s --only-delimited
		--output-delimiter =STRING
		-z --zero-terminated
		--help
		--version`},
	{names: "comm", source: "comm(1), GNU coreutils 9.1", rules: rulesGNU, operands: "read read", opts: `
		-1
		-2
		-3
		--check-order
		--nocheck-order
		--output-delimiter =STR
		--total
		-z --zero-terminated
		--help
		--version`},
	{names: "tr", source: "tr(1), GNU coreutils 9.1: reads standard input only", rules: rulesGNU, operands: "text*", opts: `
		-c -C --complement
		-d --delete
		-s --squeeze-repeats
		-t --truncate-set1
		--help
		--version`},
	{names: "md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum", source: "md5sum(1) and sha256sum(1), GNU coreutils 9.1", rules: rulesGNU, operands: "read*", opts: `
		-b --binary
		-c --check opsnames
		--tag
		-t --text
		-z --zero
		--ignore-missing
		--quiet
		--status
		--strict
		-w --warn
		--help
		--version`},
	{names: "ls dir vdir", source: "ls(1), GNU coreutils 9.1", rules: rulesGNU, operands: "meta*", opts: `
		-a --all
		-A --almost-all
		--author
		-b --escape
		--block-size =SIZE
		-B --ignore-backups
		-c
		-C
		--color [=WHEN]
		-d --directory
		-D --dired
		-f
		-F --classify [=WHEN]
		--file-type
		--format =WORD
		--full-time
		-g
		--group-directories-first
		-G --no-group
		-h --human-readable
		--si
		-H --dereference-command-line
		--dereference-command-line-symlink-to-dir
		--hide =PATTERN
		--hyperlink [=WHEN]
		--indicator-style =WORD
		-i --inode
		-I --ignore =PATTERN
		-k --kibibytes
		-l
		-L --dereference
		-m
		-n --numeric-uid-gid
		-N --literal
		-o
		-p
		-q --hide-control-chars
		--show-control-chars
		-Q --quote-name
		--quoting-style =WORD
		-r --reverse
		-R --recursive
		-s --size
		-S
		--sort =WORD
		--time =WORD
		--time-style =TIME_STYLE
		-t
		-T --tabsize =COLS
		-u
		-U
		-v
		-w --width =COLS
		-x
		-X
		-Z --context
		--zero
		-1
		--help
		--version`},
	{names: "du", source: "du(1), GNU coreutils 9.1", rules: rulesGNU, operands: "meta*", opts: `
		-0 --null
		-a --all
		--apparent-size
		-B --block-size =SIZE
		-b --bytes
		-c --total
		-D --dereference-args
		-d --max-depth =N
		--files0-from =F readnames
		-H
		-h --human-readable
		--inodes
		-k
		-L --dereference
		-l --count-links
		-m
		-P --no-dereference
		-S --separate-dirs
		--si
		-s --summarize
		-t --threshold =SIZE
		--time [=WORD]
		--time-style =STYLE
		-X --exclude-from =FILE read
		--exclude =PATTERN
		-x --one-file-system
		--help
		--version`},
	{names: "df", source: "df(1), GNU coreutils 9.1", rules: rulesGNU, operands: "meta*", opts: `
		-a --all
		-B --block-size =SIZE
		-h --human-readable
		-H --si
		-i --inodes
		-k
		-l --local
		--no-sync
		--output [=FIELD_LIST]
		-P --portability
		--sync
		--total
		-t --type =TYPE
		-T --print-type
		-x --exclude-type =TYPE
		-v
		--help
		--version`},
	{names: "stat", source: "stat(1), GNU coreutils 9.1", rules: rulesGNU, operands: "meta*", opts: `
		-L --dereference
		-f --file-system
		--cached =MODE
		-c --format =FORMAT
		--printf =FORMAT
		-t --terse
		--help
		--version`},
	{names: "readlink", source: "readlink(1), GNU coreutils 9.1", rules: rulesGNU, operands: "meta*", opts: `
		-f --canonicalize
		-e --canonicalize-existing
		-m --canonicalize-missing
		-n --no-newline
		-q --quiet
		-s --silent
		-v --verbose
		-z --zero
		--help
		--version`},
	{names: "realpath", source: "realpath(1), GNU coreutils 9.1", rules: rulesGNU, operands: "meta*", opts: `
		-e --canonicalize-existing
		-m --canonicalize-missing
		-L --logical
		-P --physical
		-q --quiet
		--relative-to =DIR meta
		--relative-base =DIR meta
		-s --strip --no-symlinks
		-z --zero
		--help
		--version`},
	{names: "basename", source: "basename(1), GNU coreutils 9.1", rules: rulesGNU, operands: "text*", opts: `
		-a --multiple
		-s --suffix =SUFFIX
		-z --zero
		--help
		--version`},
	{names: "dirname", source: "dirname(1), GNU coreutils 9.1", rules: rulesGNU, operands: "text*", opts: `
		-z --zero
		--help
		--version`},
	{names: "id", source: "id(1), GNU coreutils 9.1", rules: rulesGNU, operands: "text*", opts: `
		-a
		-Z --context
		-g --group
		-G --groups
		-n --name
		-r --real
		-u --user
		-z --zero
		--help
		--version`},
	{names: "uname", source: "uname(1), GNU coreutils 9.1", rules: rulesGNU, operands: "", opts: `
		-a --all
		-s --kernel-name
		-n --nodename
		-r --kernel-release
		-v --kernel-version
		-m --machine
		-p --processor
		-i --hardware-platform
		-o --operating-system
		--help
		--version`},
	{names: "whoami", source: "whoami(1), GNU coreutils 9.1", rules: rulesGNU, operands: "", opts: `
		--help
		--version`},
	{names: "seq", source: "seq(1), GNU coreutils 9.1", rules: rulesGNU, operands: "text*", opts: `
		-f --format =FORMAT
		-s --separator =STRING
		-w --equal-width
		--help
		--version`},
	{names: "sleep", source: "sleep(1), GNU coreutils 9.1", rules: rulesGNU, operands: "text*", opts: `
		--help
		--version`},
	{names: "date", source: "date(1), GNU coreutils 9.1", rules: rulesGNU, operands: "date", opts: `
		-d --date =STRING
		--debug
		-f --file =DATEFILE read
		-I= --iso-8601 [=FMT]
		--resolution
		-R --rfc-email --rfc-822 --rfc-2822
		--rfc-3339 =FMT
		-r --reference =FILE meta
		-s --set =STRING ask : sets the system clock
		-u --utc --universal
		--help
		--version`},

	// ---- GNU grep 3.8, diffutils 3.8, findutils 4.9 (Debian 12).
	{names: "grep egrep fgrep", source: "grep(1), GNU grep 3.8 (egrep and fgrep are grep -E and grep -F)", rules: rulesGNU, operands: "pattern read*", opts: `
		-NUM
		-E --extended-regexp
		-F --fixed-strings
		-G --basic-regexp
		-P --perl-regexp
		-e --regexp =PATTERNS pattern
		-f --file =FILE read pattern
		-i -y --ignore-case
		--no-ignore-case
		-w --word-regexp
		-x --line-regexp
		-z --null-data
		-s --no-messages
		-v --invert-match
		-V --version
		--help
		-m --max-count =NUM
		-b --byte-offset
		-n --line-number
		--line-buffered
		-H --with-filename
		-h --no-filename
		--label =LABEL
		-o --only-matching
		-q --quiet --silent
		--binary-files =TYPE
		-a --text
		-I
		-d --directories =ACTION dirs
		-D --devices =ACTION
		-r --recursive recurse
		-R --dereference-recursive recurse follow
		--include =GLOB
		--exclude =GLOB
		--exclude-from =FILE read
		--exclude-dir =GLOB
		-L --files-without-match
		-l --files-with-matches
		-c --count
		-T --initial-tab
		-Z --null
		-B --before-context =NUM
		-A --after-context =NUM
		-C --context =NUM
		--group-separator =SEP
		--no-group-separator
		--color --colour [=WHEN]
		-U --binary`},
	{names: "diff", merged: true, source: "diff(1), GNU diffutils 3.8: a folder operand is compared file by file (FILE DIR reads DIR/FILE)", rules: rulesGNU, operands: "readtree readtree", opts: `
		--normal
		-q --brief
		-s --report-identical-files
		-c
		-C =NUM
		--context [=NUM]
		-u
		-U =NUM
		--unified [=NUM]
		-e --ed
		-n --rcs
		-y --side-by-side
		-W --width =NUM
		--left-column
		--suppress-common-lines
		-p --show-c-function
		-F --show-function-line =RE
		--label =LABEL
		-t --expand-tabs
		-T --initial-tab
		--tabsize =NUM
		--suppress-blank-empty
		-l --paginate run : diff runs pr on its output
		-r --recursive recurse
		--no-dereference nofollow
		-N --new-file
		--unidirectional-new-file
		--ignore-file-name-case
		--no-ignore-file-name-case
		-x --exclude =PAT
		-X --exclude-from =FILE read
		-S --starting-file =FILE
		--from-file =FILE1 readtree
		--to-file =FILE2 readtree
		-i --ignore-case
		-E --ignore-tab-expansion
		-Z --ignore-trailing-space
		-b --ignore-space-change
		-w --ignore-all-space
		-B --ignore-blank-lines
		-I --ignore-matching-lines =RE
		-a --text
		--strip-trailing-cr
		-D --ifdef =NAME
		--old-group-format =GFMT
		--new-group-format =GFMT
		--unchanged-group-format =GFMT
		--changed-group-format =GFMT
		--line-format =LFMT
		--old-line-format =LFMT
		--new-line-format =LFMT
		--unchanged-line-format =LFMT
		-d --minimal
		--binary
		--forward-ed
		--inhibit-hunk-merge
		--sdiff-merge-assist
		--horizon-lines =NUM
		--speed-large-files
		--color [=WHEN]
		--palette =PALETTE
		--help
		-v --version`},
	{names: "cmp", source: "cmp(1), GNU diffutils 3.8", rules: rulesGNU, operands: "read read text text", opts: `
		-b --print-bytes
		--print-chars
		-i --ignore-initial =SKIP
		-l --verbose
		-n --bytes =LIMIT
		-s --quiet --silent
		--help
		-v --version`},

	// ---- util-linux 2.38, file 5.44, tree 2.1.0, ripgrep 13.0.0, jq 1.6 (Debian 12).
	{names: "column", source: "column(1), util-linux 2.38.1", rules: rulesGNU, operands: "read*", opts: `
		-t --table
		-n --table-name =NAME
		-O --table-order =COLUMNS
		-N --table-columns =NAMES
		-l --table-columns-limit =NUM
		-E --table-noextreme =COLUMNS
		-d --table-noheadings
		-e --table-header-repeat
		-H --table-hide =COLUMNS
		-R --table-right =COLUMNS
		-T --table-truncate =COLUMNS
		-W --table-wrap =COLUMNS
		-L --keep-empty-lines
		-J --json
		-r --tree =COLUMN
		-i --tree-id =COLUMN
		-p --tree-parent =COLUMN
		-c --output-width =WIDTH
		-o --output-separator =STRING
		-s --separator =STRING
		-x --fillrows
		-h --help
		-V --version`},
	{names: "file", source: "file(1), file 5.44", rules: rulesGNU, operands: "read*", opts: `
		--help
		-v --version
		-m --magic-file =LIST read
		-z --uncompress run : file runs decompressors on compressed files
		-Z --uncompress-noreport run : file runs decompressors on compressed files
		-b --brief
		-c --checking-printout
		-e --exclude =TEST
		--exclude-quiet =TEST
		-f --files-from =FILE readnames
		-F --separator =STRING
		-i --mime
		--apple
		--extension
		--mime-type
		--mime-encoding
		-k --keep-going
		-l --list
		-L --dereference
		-h --no-dereference
		-n --no-buffer
		-N --no-pad
		-0 --print0
		-p --preserve-date
		-P --parameter =NAME_VALUE
		-r --raw
		-s --special-files
		-S --no-sandbox ask : file turns off its own system-call sandbox
		-C --compile ask : file -C writes a compiled magic file
		-d --debug`},
	{names: "tree", source: "tree(1), tree 2.1.0 (its own parser: full long names, a cluster's values are the next words)", rules: rulesTree, operands: "meta*", opts: `
		-a
		-d
		-l
		-f
		-x
		-L =LEVEL
		-R ask : tree -R runs tree again and writes 00Tree.html files
		-P =PATTERN
		-I =PATTERN
		--gitignore
		--gitfile =FILE read
		--ignore-case
		--matchdirs
		--metafirst
		--prune
		--info
		--infofile =FILE read
		--noreport
		--charset =X
		--filelimit =N
		-o =FILENAME write
		-q
		-N
		-Q
		-p
		-u
		-g
		-s
		-h
		--si
		--du
		-D
		--timefmt =FORMAT
		-F
		--inodes
		--device
		-v
		-t
		-c
		-U
		-r
		--dirsfirst
		--filesfirst
		--sort =NAME
		-i
		-A
		-S
		-n
		-C
		-X
		-J
		-H =BASEHREF
		-T =TITLE
		--nolinks
		--hintro =FILE read
		--houtro =FILE read
		--fromfile opsnames
		--fflinks
		--version
		--help`},
	{names: "rg", source: "rg(1), ripgrep 13.0.0 (clap: full long names)", rules: rulesExact, operands: "pattern read* dflt=.", opts: `
		-A --after-context =NUM
		--auto-hybrid-regex
		--no-auto-hybrid-regex
		-B --before-context =NUM
		--binary
		--no-binary
		--block-buffered
		--no-block-buffered
		-b --byte-offset
		-s --case-sensitive
		--color =WHEN
		--colors =COLOR_SPEC
		--column
		--no-column
		-C --context =NUM
		--context-separator =SEPARATOR
		--no-context-separator
		-c --count
		--count-matches
		--crlf
		--no-crlf
		--debug
		--trace
		--dfa-size-limit =NUM
		-E --encoding =ENCODING
		--no-encoding
		--engine =ENGINE
		--field-context-separator =SEPARATOR
		--field-match-separator =SEPARATOR
		-f --file =PATTERNFILE read pattern
		--files namesonly pattern
		-l --files-with-matches
		--files-without-match
		-F --fixed-strings
		--no-fixed-strings
		-L --follow follow
		--no-follow
		-g --glob =GLOB
		--glob-case-insensitive
		--no-glob-case-insensitive
		-h --help
		--heading
		--no-heading
		-. --hidden
		--no-hidden
		--iglob =GLOB
		-i --ignore-case
		--ignore-file =PATH read
		--ignore-file-case-insensitive
		--no-ignore-file-case-insensitive
		--include-zero
		-v --invert-match
		--json
		--no-json
		--line-buffered
		--no-line-buffered
		-n --line-number
		-x --line-regexp
		-M --max-columns =NUM
		--max-columns-preview
		--no-max-columns-preview
		-m --max-count =NUM
		--max-depth =NUM
		--max-filesize =NUM
		--mmap
		-U --multiline
		--no-multiline
		--multiline-dotall
		--no-multiline-dotall
		--no-config
		-I --no-filename
		--no-ignore
		--ignore
		--no-ignore-dot
		--ignore-dot
		--no-ignore-exclude
		--ignore-exclude
		--no-ignore-files
		--ignore-files
		--no-ignore-global
		--ignore-global
		--no-ignore-messages
		--ignore-messages
		--no-ignore-parent
		--ignore-parent
		--no-ignore-vcs
		--ignore-vcs
		-N --no-line-number
		--no-messages
		--messages
		--no-mmap
		--no-pcre2-unicode
		--pcre2-unicode
		--no-require-git
		--require-git
		--no-unicode
		--unicode
		-0 --null
		--null-data
		--one-file-system
		--no-one-file-system
		-o --only-matching
		--passthru --passthrough
		--path-separator =SEPARATOR
		-P --pcre2
		--no-pcre2
		--pcre2-version
		--pre =COMMAND run : rg runs COMMAND on every file it searches
		--no-pre
		--pre-glob =GLOB
		-p --pretty
		-q --quiet
		--regex-size-limit =NUM
		-e --regexp =PATTERN pattern
		-r --replace =REPLACEMENT_TEXT
		-z --search-zip run : rg runs decompressors on compressed files
		--no-search-zip
		-S --smart-case
		--sort =SORTBY
		--sortr =SORTBY
		--sort-files
		--no-sort-files
		--stats
		--no-stats
		-a --text
		--no-text
		-j --threads =NUM
		--trim
		--no-trim
		-t --type =TYPE
		--type-add =TYPE_SPEC
		--type-clear =TYPE
		--type-list
		-T --type-not =TYPE
		-u --unrestricted
		-V --version
		--vimgrep
		-H --with-filename
		-w --word-regexp`},
	{names: "jq", source: "jq(1), jq 1.6 (its own parser: full long names, options anywhere)", rules: rulesExact, operands: "filter read*", opts: `
		-c --compact-output
		-n --null-input
		-e --exit-status
		-s --slurp
		-r --raw-output
		-j --join-output
		-a --ascii-output
		-R --raw-input
		-C --color-output
		-M --monochrome-output
		-S --sort-keys
		--tab
		--indent =N
		--unbuffered
		--stream
		--stream-errors
		--seq
		-f --from-file progfile
		-L =DIRECTORY ask : jq loads modules from the directory
		--arg =NAME =VALUE
		--argjson =NAME =JSON
		--slurpfile =NAME =FILE read
		--rawfile =NAME =FILE read
		--argfile =NAME =FILE read
		--args nofiles
		--jsonargs nofiles
		--run-tests ask : jq runs the tests of the named files
		--debug-dump-disasm
		--debug-trace
		-h --help
		-V --version`},
	{names: "which", source: "which(1), debianutils 5.7 (a shell script: getopts a)", rules: rulesBuiltin, operands: "text*", opts: `
		-a
		-s`},

	// ---- bash 5.2 builtins and programs that take no options.
	{names: "echo", source: "bash(1) 5.2, echo builtin: -n -e -E, nothing it prints is opened", rules: rulesWords, operands: "text*"},
	{names: "printf", source: "bash(1) 5.2, printf builtin: printf [-v VAR] FORMAT [ARGS]", rules: rulesBuiltin, operands: "text*", opts: `
		-v =VAR ask : printf -v assigns a shell variable`},
	{names: "test [", source: "bash(1) 5.2, test builtin: an expression of strings and file tests (names only)", rules: rulesWords, operands: "text*"},
	{names: "true false :", source: "bash(1) 5.2: ignore their arguments", rules: rulesWords, operands: "text*"},
	{names: "pwd", source: "bash(1) 5.2, pwd builtin", rules: rulesBuiltin, operands: "", opts: `
		-L
		-P`},
	{names: "cd pushd", source: "bash(1) 5.2, cd and pushd builtins", rules: rulesBuiltin, operands: "cwd", opts: `
		-L
		-P
		-e
		-@
		-n`},
	{names: "popd", source: "bash(1) 5.2, popd builtin: popd [-n] [+N | -N]", rules: rulesBuiltin, operands: "text*", opts: `
		-n`},

	// ---- find (GNU findutils 4.9): its expression is judged by find() in
	// shellverbs.go from findPrimaries below; this entry is its leading
	// options only.
	{names: "find", source: "find(1), GNU findutils 4.9", rules: rulesPOSIX, operands: "meta*", opts: `
		-H
		-L
		-P
		-D =DEBUGOPTS
		-O= [=LEVEL]`},

	// ---- git 2.39 (Debian 12): global options, then the read-only
	// subcommands a default rule allows.
	{names: "git", source: "git(1), git 2.39.5: options before the subcommand", rules: rulesExactPOSIX, operands: "text*", opts: `
		-v --version
		-h --help
		-C =PATH cwd
		-c =NAME_VALUE ask : git -c changes git's configuration for this run
		--config-env =NAME_ENVVAR ask : git --config-env sets configuration from the environment
		--exec-path [=PATH] ask : git --exec-path=DIR runs git's programs from DIR
		--html-path
		--man-path
		--info-path
		-p --paginate run : git runs a pager
		-P --no-pager
		--no-replace-objects
		--bare ask : points git at another repository
		--git-dir =PATH ask : points git at another repository
		--work-tree =PATH ask : points git at another work tree
		--namespace =PATH
		--super-prefix =PATH ask : an internal git option
		--literal-pathspecs
		--glob-pathspecs
		--noglob-pathspecs
		--icase-pathspecs
		--no-optional-locks
		--list-cmds =GROUPS`,
		subs: []programSpec{
			{names: "status", merged: true, source: "git-status(1), git 2.39.5 (parse-options: unique prefixes)", rules: rulesParseOpt, operands: "meta*", opts: gitStatusOpts},
			{names: "log", merged: true, source: "git-log(1), git 2.39.5 (revision and diff options: full names)", rules: rulesExact, operands: "rev*", opts: gitLogOpts + gitRevOpts + gitDiffOpts},
			{names: "show", merged: true, source: "git-show(1), git 2.39.5", rules: rulesExact, operands: "rev*", opts: gitLogOpts + gitRevOpts + gitDiffOpts},
			{names: "diff", merged: true, source: "git-diff(1), git 2.39.5", rules: rulesExact, operands: "rev*", opts: gitDiffOpts + gitDiffOnlyOpts},
			{names: "blame annotate", merged: true, source: "git-blame(1), git 2.39.5 (parse-options, then revision options by their full names)", rules: rulesParseOpt, operands: "rev*", opts: gitBlameOpts, exactOpts: gitBlameRevOpts},
			{names: "shortlog", merged: true, source: "git-shortlog(1), git 2.39.5 (parse-options, then revision and diff options by their full names)", rules: rulesParseOpt, operands: "rev*", opts: gitShortlogOpts, exactOpts: gitRevOpts + gitDiffOpts},
			{names: "ls-files", merged: true, source: "git-ls-files(1), git 2.39.5 (parse-options)", rules: rulesParseOpt, operands: "meta*", opts: gitLsFilesOpts},
			{names: "grep", merged: true, source: "git-grep(1), git 2.39.5 (parse-options)", rules: rulesParseOpt, operands: "pattern rev*", opts: gitGrepOpts},
			{names: "rev-parse", merged: true, source: "git-rev-parse(1), git 2.39.5 (its own parser: full names)", rules: rulesExact, operands: "text*", opts: gitRevParseOpts},
			{names: "describe", merged: true, source: "git-describe(1), git 2.39.5 (parse-options)", rules: rulesParseOpt, operands: "text*", opts: gitDescribeOpts},
		}},

	// ---- Wrappers: programs that run another command. The command is
	// judged as what runs, and the wrapper's own risk is added.
	{names: "timeout", source: "timeout(1), GNU coreutils 9.1", rules: rulesPOSIX, operands: "text command", opts: `
		--preserve-status
		--foreground
		-k --kill-after =DURATION
		-s --signal =SIGNAL
		-v --verbose
		--help
		--version`},
	{names: "nice", source: "nice(1), GNU coreutils 9.1", rules: rulesPOSIX, operands: "command", opts: `
		-NUM
		-n --adjustment =N
		--help
		--version`},
	{names: "nohup", source: "nohup(1), GNU coreutils 9.1", rules: rulesPOSIX, operands: "command", opts: `
		--help
		--version`},
	{names: "stdbuf", source: "stdbuf(1), GNU coreutils 9.1", rules: rulesPOSIX, operands: "command", opts: `
		-i --input =MODE
		-o --output =MODE
		-e --error =MODE
		--help
		--version`},
	{names: "env", source: "env(1), GNU coreutils 9.1 (NAME=VALUE operands are judged by the shell analysis)", rules: rulesPOSIX, operands: "command", opts: `
		-i --ignore-environment
		-0 --null
		-u --unset =NAME
		-C --chdir =DIR cwd
		-S --split-string =S shell
		--block-signal [=SIG]
		--default-signal [=SIG]
		--ignore-signal [=SIG]
		--list-signal-handling
		-v --debug
		--help
		--version`},
	{names: "chroot", source: "chroot(1), GNU coreutils 9.1", rules: rulesPOSIX, operands: "meta command", opts: `
		--groups =G_LIST
		--userspec =USER_GROUP
		--skip-chdir
		--help
		--version`},
	{names: "ionice", source: "ionice(1), util-linux 2.38.1", rules: rulesPOSIX, operands: "command", opts: `
		-c --class =CLASS
		-n --classdata =NUM
		-p --pid ask : ionice -p changes other processes
		-P --pgid ask : ionice -P changes other processes
		-t --ignore
		-u --uid ask : ionice -u changes other processes
		-h --help
		-V --version`},
	{names: "chrt", source: "chrt(1), util-linux 2.38.1", rules: rulesPOSIX, operands: "text command", opts: `
		-b --batch
		-d --deadline
		-f --fifo
		-i --idle
		-o --other
		-r --rr
		-R --reset-on-fork
		-T --sched-runtime =NS
		-P --sched-period =NS
		-D --sched-deadline =NS
		-a --all-tasks
		-m --max
		-p --pid ask : chrt -p changes another process
		-v --verbose
		-h --help
		-V --version`},
	{names: "taskset", source: "taskset(1), util-linux 2.38.1", rules: rulesPOSIX, operands: "text command", opts: `
		-a --all-tasks
		-p --pid ask : taskset -p changes another process
		-c --cpu-list
		-h --help
		-V --version`},
	{names: "setsid", source: "setsid(1), util-linux 2.38.1", rules: rulesPOSIX, operands: "command", opts: `
		-c --ctty
		-f --fork
		-w --wait
		-h --help
		-V --version`},
	{names: "flock", source: "flock(1), util-linux 2.38.1", rules: rulesPOSIX, operands: "write command", opts: `
		-s --shared
		-x -e --exclusive
		-u --unlock
		-n --nb --nonblock
		-w --wait --timeout =SECS
		-E --conflict-exit-code =NUMBER
		-o --close
		-c --command =COMMAND shell
		-F --no-fork
		--verbose
		-h --help
		-V --version`},
	{names: "script", source: "script(1), util-linux 2.38.1 (without -c it starts an interactive shell)", rules: rulesGNU, operands: "write", opts: `
		-I --log-in =FILE write
		-O --log-out =FILE write
		-B --log-io =FILE write
		-T --log-timing =FILE write
		-t= --timing [=FILE] write
		-m --logging-format =NAME
		-a --append
		-c --command =COMMAND shell
		-e --return
		-f --flush
		--force
		-E --echo =WHEN
		-o --output-limit =SIZE
		-q --quiet
		-h --help
		-V --version`},
	{names: "unshare", source: "unshare(1), util-linux 2.38.1", rules: rulesPOSIX, operands: "command", opts: `
		-m --mount [=FILE]
		-u --uts [=FILE]
		-i --ipc [=FILE]
		-n --net [=FILE]
		-p --pid [=FILE]
		-U --user [=FILE]
		-C --cgroup [=FILE]
		-T --time [=FILE]
		-f --fork
		--map-user =UID
		--map-group =GID
		-r --map-root-user
		-c --map-current-user
		--map-auto
		--map-users =MAP
		--map-groups =MAP
		--kill-child [=SIGNAME]
		--mount-proc [=DIR]
		--propagation =MODE
		--setgroups =MODE
		--keep-caps
		-R --root =DIR meta
		-w --wd =DIR cwd
		-S --setuid =UID
		-G --setgid =GID
		--monotonic =OFFSET
		--boottime =OFFSET
		-h --help
		-V --version`},
	{names: "nsenter", source: "nsenter(1), util-linux 2.38.1", rules: rulesPOSIX, operands: "command", opts: `
		-a --all
		-t --target =PID
		-m= --mount [=FILE]
		-u= --uts [=FILE]
		-i= --ipc [=FILE]
		-n= --net [=FILE]
		-p= --pid [=FILE]
		-C= --cgroup [=FILE]
		-U= --user [=FILE]
		-T= --time [=FILE]
		-S --setuid =UID
		-G --setgid =GID
		--preserve-credentials
		-r= --root [=DIR]
		-w= --wd [=DIR]
		-W --wdns =DIR
		-F --no-fork
		-Z --follow-context
		-h --help
		-V --version`},
	{names: "setpriv", source: "setpriv(1), util-linux 2.38.1", rules: rulesPOSIX, operands: "command", opts: `
		-d --dump
		--nnp --no-new-privs
		--ambient-caps =CAPS
		--inh-caps =CAPS
		--bounding-set =CAPS
		--ruid =UID
		--euid =UID
		--rgid =GID
		--egid =GID
		--reuid =UID
		--regid =GID
		--clear-groups
		--keep-groups
		--init-groups
		--groups =GROUPS
		--securebits =BITS
		--pdeathsig =SIG
		--selinux-label =LABEL
		--apparmor-profile =PROFILE
		--reset-env
		-h --help
		-V --version`},
	{names: "runuser su", source: "runuser(1) and su(1), util-linux 2.38.1 (the first operand is the user, unless -u gave it)", rules: rulesGNU, operands: "command", opts: `
		-u --user =USER
		-m -p --preserve-environment
		-w --whitelist-environment =LIST
		-g --group =GROUP
		-G --supp-group =GROUP
		-l --login
		-c --command =COMMAND shell
		--session-command =COMMAND shell
		-f --fast
		-s --shell =SHELL run : runs the named shell
		-P --pty
		-h --help
		-V --version`},
	{names: "xargs", source: "xargs(1), GNU findutils 4.9 (its command's operands come from its input)", rules: rulesPOSIX, operands: "command", opts: `
		-0 --null
		-a --arg-file =FILE read
		-d --delimiter =CHARACTER
		-E =END
		-e= --eof [=END]
		-I =R
		-i= --replace [=R]
		-L --max-lines =MAX_LINES
		-l= [=MAX_LINES]
		-n --max-args =MAX_ARGS
		-o --open-tty
		-P --max-procs =MAX_PROCS
		-p --interactive
		--process-slot-var =VAR
		-r --no-run-if-empty
		-s --max-chars =MAX_CHARS
		--show-limits
		-t --verbose
		-x --exit
		--help
		--version`},
	{names: "watch", source: "watch(1), procps-ng 4.0.2 (runs its command through sh -c unless -x)", rules: rulesPOSIX, operands: "command", opts: `
		-b --beep
		-c --color
		-C --no-color
		-d= --differences [=PERMANENT]
		-e --errexit
		-g --chgexit
		-q --equexit =CYCLES
		-n --interval =SECS
		-p --precise
		-t --no-title
		-w --no-wrap
		-x --exec
		-h --help
		-v --version`},
	{names: "sudo doas", source: "sudo(8) 1.9 and doas(1): run a command as another user", rules: rulesPOSIX, operands: "command", opts: `
		-A --askpass
		-b --background
		-C --close-from =NUM
		-D --chdir =DIR cwd
		-E --preserve-env [=LIST]
		-e --edit ask : sudo -e edits files as root
		-g --group =GROUP
		-H --set-home
		-h --host =HOST
		-i --login
		-K --remove-timestamp
		-k --reset-timestamp
		-l --list
		-n --non-interactive
		-P --preserve-groups
		-p --prompt =PROMPT
		-R --chroot =DIR meta
		-r --role =ROLE
		-S --stdin
		-s --shell
		-T --command-timeout =TIMEOUT
		-t --type =TYPE
		-U --other-user =USER
		-u --user =USER
		-V --version
		-v --validate`},
	{names: "pkexec run0", source: "pkexec(1) and run0(1): run a command as root", rules: rulesPOSIX, operands: "command", opts: `
		--user =USER
		--disable-internal-agent
		--keep-cwd
		--version
		--help`},
	{names: "command", source: "bash(1) 5.2, command builtin: command [-pVv] COMMAND", rules: rulesBuiltin, operands: "command", opts: `
		-p
		-v nofiles
		-V nofiles`},
	{names: "exec", source: "bash(1) 5.2, exec builtin: exec [-cl] [-a NAME] COMMAND", rules: rulesBuiltin, operands: "command", opts: `
		-c
		-l
		-a =NAME`},
	{names: "time", source: "bash(1) 5.2, time reserved word: time [-p] PIPELINE", rules: rulesBuiltin, operands: "command", opts: `
		-p`},
	{names: "builtin eatmydata nocache torsocks proxychains proxychains4 fakeroot fakechroot catchsegv caffeinate", source: "bash(1) 5.2 builtin, and wrappers that take no options of their own (eatmydata(1), nocache(1), torsocks(1), proxychains(1), fakeroot(1), …)", rules: rulesPOSIX, operands: "command"},
	{names: "chronic", source: "chronic(1), moreutils 0.67", rules: rulesPOSIX, operands: "command", opts: `
		-e
		-v`},
	{names: "unbuffer", source: "unbuffer(1), expect 5.45", rules: rulesPOSIX, operands: "command", opts: `
		-p`},
	{names: "strace ltrace valgrind firejail proot bwrap flatpak-spawn", source: "strace(1), ltrace(1), valgrind(1), firejail(1), proot(1), bwrap(1): tracers and sandboxes that run a command; their options are not tabled, so the command is found by trying each start", rules: rulesPOSIX, operands: "command"},
	{names: "busybox", source: "busybox(1): busybox APPLET ARGS runs the applet as a command", rules: rulesPOSIX, operands: "command", opts: `
		--list
		--list-full
		--install =DIR write
		--help`},
	{names: "parallel", source: "parallel(1), GNU parallel: its commands take their arguments from ::: lists or its input", rules: rulesPOSIX, operands: "command", opts: `
		-j --jobs =N
		-k --keep-order
		-q --quote
		-X
		-m
		--dry-run
		--halt =WHEN
		--tag
		--line-buffer
		--bar
		--progress
		-0 --null
		-d --delimiter =DELIM
		-a --arg-file =FILE read
		-n --max-args =N
		-N =N
		--colsep =REGEXP
		-I =REPLACE
		--sshlogin -S =LOGIN deny : parallel runs the commands on other machines
		--ssh =CMD deny : parallel runs the commands on other machines
		--shebang-wrap
		--pipe
		--block =SIZE
		--timeout =DURATION
		--retries =N
		--results =DIR write
		--joblog =FILE write`},
	{names: "systemd-run", source: "systemd-run(1), systemd 252: starts the command as a service of the system or user manager, outside this action's sandbox", rules: rulesPOSIX, operands: "command", opts: `
		--user
		--system
		--scope
		-u --unit =NAME
		-p --property =NAME_VALUE
		--description =TEXT
		--slice =SLICE
		-r --remain-after-exit
		--send-sighup
		--service-type =TYPE
		--uid =USER
		--gid =GROUP
		--nice =NICE
		--working-directory =DIR
		-E --setenv =NAME_VALUE
		-t --pty
		-P --pipe
		-q --quiet
		-G --collect
		--wait
		--on-active =SEC
		--on-boot =SEC
		--on-calendar =SPEC
		-H --host =HOST
		-M --machine =MACHINE
		--no-block
		--no-ask-password
		-h --help
		--version`},

	// ---- Clients of the user's own editor and terminal sessions: code
	// sent there runs with the user's authority, and can approve a
	// Flight Plan (DESIGN §8).
	{names: "emacsclient", source: "emacsclient(1), GNU Emacs 28.2", rules: rulesGNU, operands: "edit*", opts: `
		-V --version
		-H --help
		-n --no-wait
		-w --timeout =N
		-q --quiet
		-u --suppress-output
		-d --display =DISPLAY
		--parent-id =ID
		-t --tty
		-c --create-frame
		-F --frame-parameters =ALIST
		-e --eval self : emacsclient --eval runs Lisp inside the user's Emacs, which can approve a Flight Plan
		-s --socket-name =FILENAME meta
		-f --server-file =FILENAME meta
		-a --alternate-editor =EDITOR run : runs another editor when Emacs is not running
		-T --tramp =PREFIX`},
	{names: "nvim vim vi view ex rvim gvim", source: "nvim(1) 0.7.2 and vim(1) 9.0: --server/--servername reach a running editor; -c/--cmd/-S run editor commands; an operand +CMD runs an Ex command as -c does (vim(1), +{command})", rules: rulesExact, operands: "editcmd*", opts: `
		--server =ADDR self : talks to a running editor, which can approve a Flight Plan
		--servername =NAME self : talks to a running editor, which can approve a Flight Plan
		--remote self : sends files to a running editor
		--remote-silent self : sends files to a running editor
		--remote-wait self : sends files to a running editor
		--remote-wait-silent self : sends files to a running editor
		--remote-tab self : sends files to a running editor
		--remote-tab-silent self : sends files to a running editor
		--remote-tab-wait self : sends files to a running editor
		--remote-tab-wait-silent self : sends files to a running editor
		--remote-send =KEYS self : types keys into a running editor, which can approve a Flight Plan
		--remote-expr =EXPR self : runs an expression inside a running editor, which can approve a Flight Plan
		--remote-ui self : drives a running editor
		--listen =ADDR ask : opens a control socket for the editor
		-c =COMMAND ask code : runs an editor command
		--cmd =COMMAND ask code : runs an editor command
		-S= [=SESSION] ask : runs an editor script
		-u =VIMRC ask : runs an editor script
		-s =SCRIPTIN read write ask : types the keys of a file into the editor; after -e (and as ex) -s is silent mode and the word is a file it edits
		-e
		-E
		-es
		-Es
		-R
		-Z
		-m
		-M
		-b
		-l
		-A
		-H
		-V= [=N]
		-D
		-n
		-r
		-L
		-o= [=N]
		-O= [=N]
		-p= [=N]
		-d
		-i =SHADA write
		--noplugin
		--clean
		--headless
		--embed
		--startuptime =FILE write
		-v --version
		-h --help`},
	{names: "tmux screen byobu tmate zellij dtach abduco nvr xdotool ydotool wtype dotool xte", source: "tmux(1) 3.3a, screen(1) 4.9, byobu(1), tmate(1), zellij, dtach(1), abduco(1), nvr (neovim-remote), xdotool(1), ydotool(1), wtype(1), dotool(1), xte(1): clients of the user's terminal server, editor or display, which can type into the editor that approves a Flight Plan", rules: rulesWords, operands: "text*"},
	{names: "kitty kitten wezterm", source: "kitty(1) and kitten @ (remote control), wezterm cli: with @ or cli, a client of the user's running terminal, which can send text to the editor that approves a Flight Plan", rules: rulesWords, operands: "text*"},
}

// findPrimaries are find's expression words (GNU findutils 4.9, find(1)):
// how many words each takes and what it does with them.
var findPrimaries = map[string]findPrimary{
	// Positional and normal options.
	"-daystart": {}, "-follow": {}, "-nowarn": {}, "-warn": {}, "-depth": {}, "-d": {}, "-mount": {}, "-xdev": {},
	"-noleaf": {}, "-ignore_readdir_race": {}, "-noignore_readdir_race": {},
	"-regextype": {args: 1}, "-maxdepth": {args: 1}, "-mindepth": {args: 1},
	"-files0-from": {args: 1, eff: effReadNames},
	// Tests.
	"-amin": {args: 1}, "-anewer": {args: 1, eff: effMeta}, "-atime": {args: 1}, "-cmin": {args: 1},
	"-cnewer": {args: 1, eff: effMeta}, "-context": {args: 1}, "-ctime": {args: 1}, "-empty": {},
	"-executable": {}, "-false": {}, "-fstype": {args: 1}, "-gid": {args: 1}, "-group": {args: 1},
	"-ilname": {args: 1}, "-iname": {args: 1}, "-inum": {args: 1}, "-ipath": {args: 1}, "-iregex": {args: 1},
	"-iwholename": {args: 1}, "-links": {args: 1}, "-lname": {args: 1}, "-mmin": {args: 1}, "-mtime": {args: 1},
	"-name": {args: 1}, "-newer": {args: 1, eff: effMeta}, "-nogroup": {}, "-nouser": {}, "-path": {args: 1},
	"-perm": {args: 1}, "-readable": {}, "-regex": {args: 1}, "-samefile": {args: 1, eff: effMeta},
	"-size": {args: 1}, "-true": {}, "-type": {args: 1}, "-uid": {args: 1}, "-used": {args: 1},
	"-user": {args: 1}, "-wholename": {args: 1}, "-writable": {}, "-xtype": {args: 1},
	// Actions.
	"-print": {}, "-print0": {}, "-printf": {args: 1}, "-ls": {}, "-prune": {}, "-quit": {},
	"-fprint": {args: 1, eff: effWrite}, "-fprint0": {args: 1, eff: effWrite}, "-fls": {args: 1, eff: effWrite},
	"-fprintf": {args: 2, eff: effWrite},
	"-delete":  {eff: effAsk, why: "find -delete deletes every file found"},
	// Operators.
	"(": {}, ")": {}, "!": {}, "-not": {}, "-a": {}, "-and": {}, "-o": {}, "-or": {}, ",": {},
}

// findPrimary is one word of find's expression.
type findPrimary struct {
	args int    // words it takes
	eff  effect // what its first word is (effWrite: -fprint FILE)
	why  string
}

// The git option lists, shared between subcommands as git shares them.
const (
	// Options only git log and git show take (builtin/log.c), before the
	// revision options they share with git shortlog.
	gitLogOpts = `
		--no-decorate
		--decorate [=STYLE]
		--decorate-refs =PATTERN
		--decorate-refs-exclude =PATTERN
		--clear-decorations
		--source
		--mailmap
		--no-mailmap
		--use-mailmap
		--no-use-mailmap
		-L =RANGE ask : git log -L reads a range of a file's history
		--single-worktree
		--stdin
		--dd content
		-q --quiet nocontent`
	// Revision and log options: rev-list-options.txt and pretty-options.txt
	// of git 2.39.5, as git-log(1) lists them.
	gitRevOpts = `
		-NUM
		--follow
		--full-diff
		--log-size
		-n --max-count =NUMBER
		--skip =NUMBER
		--since --after =DATE
		--since-as-filter =DATE
		--until --before =DATE
		--author =PATTERN
		--committer =PATTERN
		--grep-reflog =PATTERN
		--grep =PATTERN
		--all-match
		--invert-grep
		-i --regexp-ignore-case
		--basic-regexp
		-E --extended-regexp
		-F --fixed-strings
		-P --perl-regexp
		--remove-empty
		--merges
		--no-merges
		--min-parents =NUMBER
		--max-parents =NUMBER
		--no-min-parents
		--no-max-parents
		--first-parent
		--exclude-first-parent-only
		--not
		--all
		--branches [=PATTERN]
		--tags [=PATTERN]
		--remotes [=PATTERN]
		--glob =PATTERN
		--exclude =PATTERN
		--exclude-hidden =SECTION
		--reflog
		--alternate-refs
		--ignore-missing
		--bisect
		--cherry-mark
		--cherry-pick
		--left-only
		--right-only
		--cherry
		-g --walk-reflogs
		--merge
		--boundary
		--simplify-by-decoration
		--show-pulls
		--full-history
		--dense
		--sparse
		--simplify-merges
		--ancestry-path [=COMMIT]
		--date-order
		--author-date-order
		--topo-order
		--reverse
		--no-walk [=ORDER]
		--do-walk
		--pretty [=FORMAT]
		--format =FORMAT
		--abbrev-commit
		--no-abbrev-commit
		--oneline
		--encoding =ENCODING
		--expand-tabs [=N]
		--no-expand-tabs
		--notes [=REF]
		--no-notes
		--show-notes [=REF]
		--standard-notes
		--no-standard-notes
		--show-signature run : git runs gpg to check signatures
		--relative-date
		--date =FORMAT
		--parents
		--children
		--left-right
		--graph
		--show-linear-break [=BARRIER]
		--diff-merges =FORMAT content
		--no-diff-merges
		--combined-all-paths
		-c content
		--cc content
		-m content
		--remerge-diff content
		-r
		-t
		--root`
	// Diff options: diff-options.txt of git 2.39.5, as git-diff(1) lists them.
	gitDiffOpts = `
		-p -u --patch content
		-s --no-patch nocontent
		-U --unified =N content
		--output =FILE write
		--output-indicator-new =CHAR
		--output-indicator-old =CHAR
		--output-indicator-context =CHAR
		--raw nocontent
		--patch-with-raw content
		--indent-heuristic
		--no-indent-heuristic
		--minimal
		--patience
		--histogram
		--anchored =TEXT
		--diff-algorithm =ALGORITHM
		--stat [=WIDTH] nocontent
		--stat-width =WIDTH
		--stat-name-width =WIDTH
		--stat-count =COUNT
		--stat-graph-width =WIDTH
		--compact-summary nocontent
		--numstat nocontent
		--shortstat nocontent
		-X= --dirstat [=PARAMS] nocontent
		--cumulative
		--dirstat-by-file [=PARAMS] nocontent
		--summary nocontent
		--patch-with-stat content
		-z
		--name-only nocontent
		--name-status nocontent
		--submodule [=FORMAT] history
		--color [=WHEN]
		--no-color
		--color-moved [=MODE]
		--no-color-moved
		--color-moved-ws =MODES
		--no-color-moved-ws
		--word-diff [=MODE] content
		--word-diff-regex =REGEX
		--color-words [=REGEX] content
		--no-renames
		--rename-empty
		--no-rename-empty
		--check content
		--ws-error-highlight =KIND
		--full-index
		--binary content
		--abbrev [=N]
		--no-abbrev
		-B= --break-rewrites [=N]
		-M= --find-renames [=N]
		-C= --find-copies [=N]
		--find-copies-harder
		-D --irreversible-delete
		-l =NUM
		--diff-filter =FILTER
		-S =STRING content
		-G =REGEX content
		--find-object =OBJECT content
		--pickaxe-all
		--pickaxe-regex
		-O =ORDERFILE read
		--skip-to =FILE
		--rotate-to =FILE
		-R
		--relative [=PATH]
		--no-relative
		-a --text
		--ignore-cr-at-eol
		--ignore-space-at-eol
		-b --ignore-space-change
		-w --ignore-all-space
		--ignore-blank-lines
		-I --ignore-matching-lines =REGEX
		--inter-hunk-context =LINES
		-W --function-context
		--ext-diff run : git runs the configured external diff program
		--no-ext-diff
		--textconv run : git runs the configured text conversion programs
		--no-textconv
		--ignore-submodules [=WHEN]
		--src-prefix =PREFIX
		--dst-prefix =PREFIX
		--no-prefix
		--line-prefix =PREFIX
		--ita-invisible-in-index`
	// Options only git diff takes (git-diff(1)).
	gitDiffOnlyOpts = `
		--cached --staged history
		--follow
		--ita-visible-in-index
		--no-index worktree
		--exit-code
		--quiet
		-1 --base history
		-2 --ours history
		-3 --theirs history
		-0`
	gitStatusOpts = `
		-v --verbose content
		-s --short
		-b --branch
		--show-stash
		--ahead-behind
		--no-ahead-behind
		--porcelain [=VERSION]
		--long
		-z --null
		-u= --untracked-files [=MODE]
		--ignored [=MODE]
		--ignore-submodules [=WHEN]
		--column [=STYLE]
		--no-column
		--no-renames
		-M= --find-renames [=N]`
	gitBlameOpts = `
		--incremental
		-b
		--root
		--show-stats
		--progress
		--score-debug
		-f --show-name
		-n --show-number
		-p --porcelain
		--line-porcelain
		-c
		-t
		-l
		-s
		-e --show-email
		-w
		--ignore-rev =REV
		--ignore-revs-file =FILE read
		--color-lines
		--color-by-age
		--minimal
		-S =FILE read
		--contents =FILE read
		-C= [=SCORE]
		-M= [=SCORE]
		-L =RANGE
		--abbrev [=N]`
	// The revision options git blame hands on (git-blame(1)).
	gitBlameRevOpts = `
		--date =FORMAT
		--reverse
		--first-parent
		--since =DATE
		--encoding =ENCODING`
	gitShortlogOpts = `
		-c --committer
		-n --numbered
		-s --summary
		-e --email
		-w= [=WIDTH]
		--group =FIELD`
	gitLsFilesOpts = `
		-z
		-t
		-v
		-f
		-c --cached
		-d --deleted
		-m --modified
		-o --others
		-i --ignored
		-s --stage
		-k --killed
		--directory
		--eol
		--empty-directory
		-u --unmerged
		--resolve-undo
		-x --exclude =PATTERN
		-X --exclude-from =FILE read
		--exclude-per-directory =FILE
		--exclude-standard
		--full-name
		--recurse-submodules
		--error-unmatch
		--with-tree =TREE
		--abbrev [=N]
		--debug
		--deduplicate
		--sparse
		--format =FORMAT`
	gitGrepOpts = `
		-NUM
		--cached history
		--no-index worktree ask : git grep --no-index searches files git does not track
		--untracked
		--exclude-standard
		--recurse-submodules
		-v --invert-match
		-i --ignore-case
		-w --word-regexp
		-a --text
		-I
		--textconv run : git runs the configured text conversion programs
		-r --recursive
		--max-depth =DEPTH
		-E --extended-regexp
		-G --basic-regexp
		-F --fixed-strings
		-P --perl-regexp
		-n --line-number
		--column
		-h
		-H
		--full-name
		-l --files-with-matches --name-only
		-L --files-without-match
		-z --null
		-o --only-matching
		-c --count
		--color [=WHEN]
		--break
		--heading
		-C --context =N
		-B --before-context =N
		-A --after-context =N
		--threads =N
		-p --show-function
		-W --function-context
		-f =FILE read pattern
		-e =PATTERN pattern
		--and
		--or
		--not
		-q --quiet
		--all-match
		-O= --open-files-in-pager [=PAGER] shell : git grep runs PAGER on the files found
		--ext-grep
		-m --max-count =N`
	gitRevParseOpts = `
		--parseopt
		--sq-quote nofiles
		--keep-dashdash
		--stop-at-non-option
		--stuck-long
		--revs-only
		--no-revs
		--flags
		--no-flags
		--default =ARG
		--prefix =ARG
		--verify
		-q --quiet
		--sq
		--short [=LENGTH]
		--not
		--abbrev-ref [=MODE]
		--symbolic
		--symbolic-full-name
		--all
		--branches [=PATTERN]
		--tags [=PATTERN]
		--remotes [=PATTERN]
		--glob =PATTERN
		--exclude =PATTERN
		--exclude-hidden =SECTION
		--disambiguate =PREFIX
		--local-env-vars
		--path-format =FORMAT
		--git-dir
		--git-common-dir
		--resolve-git-dir =PATH meta
		--git-path =PATH
		--show-toplevel
		--show-superproject-working-tree
		--shared-index-path
		--absolute-git-dir
		--is-inside-git-dir
		--is-inside-work-tree
		--is-bare-repository
		--is-shallow-repository
		--show-cdup
		--show-prefix
		--show-object-format [=WHICH]
		--since --after =DATE
		--until --before =DATE`
	gitDescribeOpts = `
		--contains
		--debug
		--all
		--tags
		--long
		--first-parent
		--abbrev [=N]
		--exact-match
		--candidates =N
		--match =PATTERN
		--exclude =PATTERN
		--always
		--dirty [=MARK]
		--broken [=MARK]`
)
