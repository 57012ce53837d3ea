package gates

import (
	"slices"

	"mvdan.cc/sh/v3/syntax"
)

// A function body is analysed where it is declared and again at every call
// (and a function called from another is analysed again at each analysis
// of the caller's body). An analysis of a body is a function of the
// analyzer's state where it starts: the body, the text it was parsed
// from, the working directory, the depth of payloads within payloads
// (not whether it is a function's body: the analysis where it is declared
// and that of a call of it at the top level are alike), and what the body
// reads: the variables and positional parameters it reads before it sets them, the
// value each had before the body first set it (what undoing the setting
// restores, and whether a branch changed it, depend on it), the
// functions it calls or declares (declared or not, being analysed or
// not), the files it asks whether a download wrote. Its effect is what it adds to the
// report (commands, denies, asks, private reads, ways into the user's
// session, egress, files written), the variables and functions it sets
// (the working directory among them, as cwdName), the files it downloads,
// whether it writes, and how many calls it followed. So an analysis is
// recorded (those reads and effects, in order), and a later analysis of
// the same body from a state where those reads give the same answers
// replays the record instead of walking the body again: the same report,
// the same state after, in the same order. Nothing is remembered across
// actions.
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
	logFuncRead                        // the function text was looked up (body, val.val its text)
	logInFuncRead                      // whether the function text is being analysed was asked (val.ok)
	logDownloadRead                    // whether a download wrote text was asked (val.ok)
	logPrior                           // the variable text was val before a setting of it (the trail's old value)
	logSet                             // the variable text was set to val
	logFunc                            // the function text was declared (body, val.val its text)
	logCmd                             // the command rep.cmds[idx] was listed
	logDeny                            // text was denied
	logAsk                             // text was asked
	logPrivate                         // text: a private read
	logSelf                            // text: a way into the user's session
	logEgress                          // text: an egress command
	logReadProtected                   // text: a protected file read
	logWrite                           // text: a file inside the roots written (ShellWrites)
	logDownload                        // text: a file a download wrote
	logLocal                           // text: a variable declared local to the call being analysed
)

// shellEffect is one entry of the analysis log.
type shellEffect struct {
	kind effectKind
	idx  int32
	text string // the variable's, function's or file's name, or the text added
	val  varVal
	body *syntax.Stmt
}

// def is the function of a logFuncRead or logFunc entry (its flags in idx).
func (e *shellEffect) def() funcDef {
	return funcDef{body: e.body, src: e.val.val, alsoProgram: e.idx&1 != 0, unknown: e.idx&2 != 0}
}

// funcEffect is the log entry of kind (logFuncRead, logFunc) for def.
func funcEffect(kind effectKind, name string, def funcDef) shellEffect {
	var flags int32
	if def.alsoProgram {
		flags |= 1
	}
	if def.unknown {
		flags |= 2
	}
	return shellEffect{kind: kind, text: name, body: def.body, val: varVal{val: def.src}, idx: flags}
}

// bodyMemo is an analysis of a body, recorded or being recorded: the
// entries [start, end) of the log are what it read and did, in order.
type bodyMemo struct {
	key        bodyKey
	start, end int
	calls      int // calls it followed
	cmds       int // commands it listed
	wrote      bool
	invalid    bool
}

// bodyKey is the state an analysis of a body starts from, its reads aside.
type bodyKey struct {
	body  *syntax.Stmt
	src   string
	cwd   string
	depth int
}

// bodyMemos are a command's recorded analyses of its function bodies.
type bodyMemos struct {
	log    []shellEffect
	recs   []bodyMemo // being recorded, innermost last
	memos  []bodyMemo // recorded
	shadow []shellEffect
	off    bool // analyse every body (the tests' oracle)
}

// reset empties the memo for another command, keeping the room its
// slices grew (up to a bound) and dropping what they refer to (past their
// length they hold nothing: a reset clears what was used).
func (bm *bodyMemos) reset() {
	clear(bm.log)
	if cap(bm.log) > 4096 {
		bm.log = nil
	}
	clear(bm.memos)
	clear(bm.shadow[:cap(bm.shadow)])
	*bm = bodyMemos{log: bm.log[:0], recs: bm.recs[:0], memos: bm.memos[:0], shadow: bm.shadow[:0]}
}

// logEffect adds an entry to the log while an analysis is recorded.
func (s *shellAnalyzer) logEffect(e shellEffect) {
	if len(s.memo.recs) > 0 {
		s.memo.log = append(s.memo.log, e)
	}
}

// spoil keeps the analyses being recorded from being remembered.
func (s *shellAnalyzer) spoil() {
	for i := range s.memo.recs {
		s.memo.recs[i].invalid = true
	}
}

// body analyses a function body (declared or called), from the memo when
// an equal analysis was recorded.
func (s *shellAnalyzer) body(b *syntax.Stmt) {
	if s.quiet || b == nil || s.memo.off {
		s.stmt(b, stdinSrc{})
		return
	}
	key := bodyKey{body: b, src: s.src, cwd: s.cwd, depth: s.depth}
	for i := range s.memo.memos {
		if m := &s.memo.memos[i]; m.key == key && s.replays(m) {
			s.replay(m)
			return
		}
	}
	s.memo.recs = append(s.memo.recs, bodyMemo{key: key, start: len(s.memo.log), calls: s.calls, cmds: len(s.rep.cmds)})
	// The functions being analysed: enterFunc marks one (true) and the
	// call's end deletes it, so the map's length counts them without
	// iterating it.
	inFunc := len(s.inFunc)
	wrote := s.wrote
	s.wrote = false
	s.stmt(b, stdinSrc{})
	bodyWrote := s.wrote
	s.wrote = wrote || bodyWrote
	m := s.memo.recs[len(s.memo.recs)-1]
	s.memo.recs = s.memo.recs[:len(s.memo.recs)-1]
	// A body can only unmark functions (a function declared anew inside
	// its own body): the same count is the same set.
	if !m.invalid && len(s.inFunc) == inFunc {
		m.end, m.calls, m.cmds, m.wrote = len(s.memo.log), s.calls-m.calls, len(s.rep.cmds)-m.cmds, bodyWrote
		s.memo.memos = append(s.memo.memos, m)
	}
}

// replays says whether m's analysis is the one that would run now: each
// thing it read before changing it reads the same now. The reads are
// asked again, so that they are logged for the analyses around this one.
func (s *shellAnalyzer) replays(m *bodyMemo) bool {
	if s.calls+m.calls >= maxInlineCalls || len(s.rep.cmds)+m.cmds >= maxShellCommands {
		return false
	}
	// shadow holds what the analysis changed so far (a variable set, a
	// function declared, a file downloaded): a read of one of them reads
	// what the analysis itself made. A function marked as being analysed
	// is only ever marked around a call, after the call asked, and
	// unmarked after it.
	shadow := s.memo.shadow[:0]
	defer func() { s.memo.shadow = shadow[:0] }()
	changed := func(kind effectKind, name string) bool {
		for i := range shadow {
			if shadow[i].kind == kind && shadow[i].text == name {
				return true
			}
		}
		return false
	}
	for i := m.start; i < m.end; i++ {
		e := s.memo.log[i]
		switch e.kind {
		case logSet, logFunc, logDownload:
			if !changed(e.kind, e.text) {
				shadow = append(shadow, shellEffect{kind: e.kind, text: e.text})
			}
		case logRead:
			if !changed(logSet, e.text) && s.lookup(e.text) != e.val {
				return false
			}
		case logPrior:
			// What undoing a setting restores, and whether a branch
			// changed a variable, depend on its value before.
			if !changed(logSet, e.text) && s.current(e.text) != e.val {
				return false
			}
		case logFuncRead:
			if !changed(logFunc, e.text) && s.funcOf(e.text) != e.def() {
				return false
			}
		case logInFuncRead:
			if s.inFuncHas(e.text) != e.val.ok {
				return false
			}
		case logDownloadRead:
			if !changed(logDownload, e.text) && s.downloadedAbs(e.text) != e.val.ok {
				return false
			}
		}
	}
	return true
}

// funcOf is the function declared as name (body nil when none is).
func (s *shellAnalyzer) funcOf(name string) funcDef {
	def := s.funcs[name]
	s.logEffect(funcEffect(logFuncRead, name, def))
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
	for i := m.start; i < m.end; i++ {
		e := s.memo.log[i]
		switch e.kind {
		case logSet:
			s.setVar(e.text, e.val)
		case logCmd:
			c := s.rep.cmds[e.idx]
			c.argv = slices.Clone(c.argv)
			s.addCmd(c)
		case logDeny, logAsk, logPrivate, logSelf, logEgress, logReadProtected, logWrite:
			s.addText(e.kind, e.text)
		case logDownload:
			s.addDownload(e.text)
		case logFunc:
			s.declare(e.text, e.def())
		case logLocal:
			s.declareLocal(e.text)
		}
	}
	s.calls += m.calls
	if m.wrote {
		s.wrote = true
	}
}

// The analyzer's changes to its report and state, logged.

func (s *shellAnalyzer) addCmd(c shellCmd) {
	s.rep.cmds = append(s.rep.cmds, c)
	s.logEffect(shellEffect{kind: logCmd, idx: int32(len(s.rep.cmds) - 1)})
}

// list is the list of texts an entry of kind adds to (logDeny…logReadProtected).
func (s *shellAnalyzer) list(kind effectKind) *[]string {
	switch kind {
	case logDeny:
		return &s.rep.denies
	case logAsk:
		return &s.rep.asks
	case logPrivate:
		return &s.rep.private
	case logSelf:
		return &s.rep.self
	case logEgress:
		return &s.rep.egress
	case logReadProtected:
		return &s.readProtected
	case logWrite:
		return &s.rep.writes
	}
	panic("gates: no list of texts for this log entry")
}

// addText adds text to the list of kind, once.
func (s *shellAnalyzer) addText(kind effectKind, text string) {
	l := s.list(kind)
	*l = appendUnique(*l, text)
	s.logEffect(shellEffect{kind: kind, text: text})
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
	if len(s.memo.recs) > 0 {
		// What undoing the declaration restores depends on the
		// function before: a read of it.
		s.logEffect(funcEffect(logFuncRead, name, s.funcs[name]))
	}
	s.pushTrail(varChange{name: name, fn: true, oldDef: s.funcs[name]})
	s.funcs[name] = def
	s.logEffect(funcEffect(logFunc, name, def))
}
