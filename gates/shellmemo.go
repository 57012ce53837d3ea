package gates

import (
	"slices"

	"mvdan.cc/sh/v3/syntax"
)

// A function body is analysed where it is declared and again at every call
// (and a function called from another is analysed again at each analysis
// of the caller's body). An analysis of a body is a function of the
// analyzer's state where it starts: the body, the text it was parsed
// from, the working directory, the nesting, and what the body reads: the
// variables and positional parameters it reads before it sets them, the
// functions it calls (declared or not, being analysed or not), the files
// it asks whether a download wrote. Its effect is what it adds to the
// report (commands, denies, asks, private reads, ways into the user's
// session, egress), the variables and functions it sets, the files it
// downloads, whether it writes, where it leaves the working directory, and
// how many calls it followed. So an analysis is recorded (those reads and
// effects, in order), and a later analysis of the same body from a state
// where those reads give the same answers replays the record instead of
// walking the body again: the same report, the same state after, in the
// same order. Nothing is remembered across actions.
//
// A record is not kept when the analysis met a limit (calls followed,
// commands counted), ran a reading of its own (denyingReading shares the
// maps without recording into them), or left a function marked as being
// analysed that was before; a record is replayed only when its calls and
// commands cannot reach those limits from where the replay starts. Tests
// compare analyses with and without the memo (TestShellBodyMemoAgrees,
// FuzzShellBodyMemo).

// effectKind says what one entry of the analysis log is.
type effectKind uint8

const (
	logRead          effectKind = iota // the variable text's value was read (val)
	logFuncRead                        // the function text was looked up (def)
	logInFuncRead                      // whether the function text is being analysed was asked (val.ok)
	logDownloadRead                    // whether a download wrote text was asked (val.ok)
	logSet                             // the variable text was set to val
	logCmd                             // a command was listed (cmd)
	logDeny                            // text was denied
	logAsk                             // text was asked
	logPrivate                         // text: a private read
	logSelf                            // text: a way into the user's session
	logEgress                          // text: an egress command
	logReadProtected                   // text: a protected file read
	logDownload                        // text: a file a download wrote
	logFunc                            // the function text was declared as def
)

// shellEffect is one entry of the analysis log.
type shellEffect struct {
	kind effectKind
	text string // the variable's, function's or file's name, or the text added
	val  varVal
	cmd  shellCmd
	def  funcDef
}

// bodyRecording is an analysis of a body being recorded.
type bodyRecording struct {
	start   int // its first entry in the log
	calls   int // s.calls where it started
	cmds    int // len(s.rep.cmds) where it started
	invalid bool
}

// bodyMemo is a recorded analysis of a body.
type bodyMemo struct {
	key      bodyKey
	reads    []shellEffect // what it read before changing it, each once
	effects  []shellEffect // its changes, in order
	calls    int           // calls it followed
	cmds     int           // commands it listed
	wrote    bool
	cwdAfter string
}

// bodyKey is the state an analysis of a body starts from, its reads aside.
type bodyKey struct {
	src    string
	cwd    string
	nested bool
	depth  int
}

// bodyMemos are a command's recorded analyses of its function bodies.
type bodyMemos struct {
	log   []shellEffect
	recs  []*bodyRecording // being recorded, innermost last
	memos map[*syntax.Stmt][]*bodyMemo
	off   bool // analyse every body (the tests' oracle)
}

// logEffect adds an entry to the log while an analysis is recorded.
func (s *shellAnalyzer) logEffect(e shellEffect) {
	if len(s.memo.recs) > 0 {
		s.memo.log = append(s.memo.log, e)
	}
}

// spoil keeps the analyses being recorded from being remembered.
func (s *shellAnalyzer) spoil() {
	for _, r := range s.memo.recs {
		r.invalid = true
	}
}

// body analyses a function body (declared or called), from the memo when
// an equal analysis was recorded.
func (s *shellAnalyzer) body(b *syntax.Stmt) {
	if s.quiet || b == nil || s.memo.off {
		s.stmt(b, stdinSrc{})
		return
	}
	key := bodyKey{src: s.src, cwd: s.cwd, nested: s.nested, depth: s.depth}
	for _, m := range s.memo.memos[b] {
		if s.replays(m, key) {
			s.replay(m)
			return
		}
	}
	rec := &bodyRecording{start: len(s.memo.log), calls: s.calls, cmds: len(s.rep.cmds)}
	inFunc := countTrue(s.inFunc)
	s.memo.recs = append(s.memo.recs, rec)
	wrote := s.wrote
	s.wrote = false
	s.stmt(b, stdinSrc{})
	bodyWrote := s.wrote
	s.wrote = wrote || bodyWrote
	s.memo.recs = s.memo.recs[:len(s.memo.recs)-1]
	// A body can only unmark functions (a function declared anew inside
	// its own body): the same count is the same set.
	if !rec.invalid && countTrue(s.inFunc) == inFunc {
		s.remember(b, key, rec, bodyWrote)
	}
	if len(s.memo.recs) == 0 {
		clear(s.memo.log)
		s.memo.log = s.memo.log[:0]
	}
}

// remember keeps the analysis rec recorded of b.
func (s *shellAnalyzer) remember(b *syntax.Stmt, key bodyKey, rec *bodyRecording, wrote bool) {
	m := &bodyMemo{key: key, calls: s.calls - rec.calls, cmds: len(s.rep.cmds) - rec.cmds, wrote: wrote, cwdAfter: s.cwd}
	// A read counts when nothing the body did before it set what it
	// reads: a variable set, a function declared, a function marked as
	// being analysed (only around a call, which is read first), a file
	// downloaded.
	changed := func(kind effectKind, name string) bool {
		for _, e := range m.effects {
			if e.kind == kind && e.text == name {
				return true
			}
		}
		return false
	}
	read := func(kind effectKind, name string) bool {
		for _, r := range m.reads {
			if r.kind == kind && r.text == name {
				return true
			}
		}
		return false
	}
	for _, e := range s.memo.log[rec.start:] {
		switch e.kind {
		case logRead, logFuncRead, logInFuncRead, logDownloadRead:
			var by effectKind
			switch e.kind {
			case logRead:
				by = logSet
			case logFuncRead:
				by = logFunc
			case logDownloadRead:
				by = logDownload
			default:
				by = logInFuncRead // never an effect: a mark is always undone
			}
			if !changed(by, e.text) && !read(e.kind, e.text) {
				m.reads = append(m.reads, e)
			}
		default:
			m.effects = append(m.effects, e)
		}
	}
	if s.memo.memos == nil {
		s.memo.memos = map[*syntax.Stmt][]*bodyMemo{}
	}
	s.memo.memos[b] = append(s.memo.memos[b], m)
}

// replays says whether m's analysis is the one that would run now, from
// key.
func (s *shellAnalyzer) replays(m *bodyMemo, key bodyKey) bool {
	if m.key != key || s.calls+m.calls >= maxInlineCalls || len(s.rep.cmds)+m.cmds >= maxShellCommands {
		return false
	}
	// Each read is asked again, and logged for the analyses around this
	// one, which read the same.
	for _, r := range m.reads {
		switch r.kind {
		case logRead:
			if s.lookup(r.text) != r.val {
				return false
			}
		case logFuncRead:
			if s.funcOf(r.text) != r.def {
				return false
			}
		case logInFuncRead:
			if s.inFuncHas(r.text) != r.val.ok {
				return false
			}
		case logDownloadRead:
			if s.downloadedAbs(r.text) != r.val.ok {
				return false
			}
		}
	}
	return true
}

func countTrue(m map[string]bool) int {
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}

// funcOf is the function declared as name (body nil when none is).
func (s *shellAnalyzer) funcOf(name string) funcDef {
	def := s.funcs[name]
	s.logEffect(shellEffect{kind: logFuncRead, text: name, def: def})
	return def
}

// inFuncHas says whether the function name is being analysed.
func (s *shellAnalyzer) inFuncHas(name string) bool {
	in := s.inFunc[name]
	s.logEffect(shellEffect{kind: logInFuncRead, text: name, val: varVal{ok: in}})
	return in
}

// downloadedAbs says whether a download of the command wrote the file abs.
func (s *shellAnalyzer) downloadedAbs(abs string) bool {
	d := s.downloads[abs]
	s.logEffect(shellEffect{kind: logDownloadRead, text: abs, val: varVal{ok: d}})
	return d
}

// replay applies a recorded analysis: its effects in order, through the
// same calls that made them (so that the analyses around it record them).
func (s *shellAnalyzer) replay(m *bodyMemo) {
	for _, e := range m.effects {
		switch e.kind {
		case logSet:
			s.setVar(e.text, e.val)
		case logCmd:
			c := e.cmd
			c.argv = slices.Clone(c.argv)
			s.addCmd(c)
		case logDeny:
			s.addDeny(e.text)
		case logAsk:
			s.addAsk(e.text)
		case logPrivate:
			s.addPrivate(e.text)
		case logSelf:
			s.addSelf(e.text)
		case logEgress:
			s.addEgress(e.text)
		case logReadProtected:
			s.addReadProtected(e.text)
		case logDownload:
			s.addDownload(e.text)
		case logFunc:
			s.declare(e.text, e.def)
		}
	}
	s.calls += m.calls
	if m.wrote {
		s.wrote = true
	}
	s.cwd = m.cwdAfter
}

// The analyzer's changes to its report and state, logged.

func (s *shellAnalyzer) addCmd(c shellCmd) {
	s.rep.cmds = append(s.rep.cmds, c)
	s.logEffect(shellEffect{kind: logCmd, cmd: c})
}

func (s *shellAnalyzer) addDeny(text string) {
	s.rep.denies = appendUnique(s.rep.denies, text)
	s.logEffect(shellEffect{kind: logDeny, text: text})
}

func (s *shellAnalyzer) addAsk(text string) {
	s.rep.asks = appendUnique(s.rep.asks, text)
	s.logEffect(shellEffect{kind: logAsk, text: text})
}

func (s *shellAnalyzer) addPrivate(text string) {
	s.rep.private = appendUnique(s.rep.private, text)
	s.logEffect(shellEffect{kind: logPrivate, text: text})
}

func (s *shellAnalyzer) addSelf(text string) {
	s.rep.self = appendUnique(s.rep.self, text)
	s.logEffect(shellEffect{kind: logSelf, text: text})
}

func (s *shellAnalyzer) addEgress(text string) {
	s.rep.egress = appendUnique(s.rep.egress, text)
	s.logEffect(shellEffect{kind: logEgress, text: text})
}

func (s *shellAnalyzer) addReadProtected(text string) {
	s.readProtected = appendUnique(s.readProtected, text)
	s.logEffect(shellEffect{kind: logReadProtected, text: text})
}

func (s *shellAnalyzer) addDownload(abs string) {
	if s.downloads == nil {
		s.downloads = map[string]bool{}
	}
	s.downloads[abs] = true
	s.logEffect(shellEffect{kind: logDownload, text: abs})
}

func (s *shellAnalyzer) declare(name string, def funcDef) {
	if s.funcs == nil {
		s.funcs = map[string]funcDef{}
	}
	s.funcs[name] = def
	s.logEffect(shellEffect{kind: logFunc, text: name, def: def})
}
