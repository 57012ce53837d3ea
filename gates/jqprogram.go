package gates

import (
	"os"
	"strings"
)

// maxJqProgram is the largest jq program file (jq -f) the gates read to
// see what it loads.
const maxJqProgram = 1 << 20

// jqProgram judges what a jq program loads besides its operands: its
// import and include directives read any JSON or jq file a search path
// leads to (`import "vault" as $v {search: "~/.config/passepartout"}`
// prints the vault, `include` prints the lines of a file it cannot
// parse), and modulemeta reads a module file named at run time. A
// program that holds one, or a program file (jq -f) the gates cannot
// read, asks.
func (s *shellAnalyzer) jqProgram(pc parsedCmd) {
	for _, o := range pc.operands {
		switch {
		case o.role == opdFilter:
			if w, ok := jqLoadsFiles(o.word); ok {
				s.ask("jq's filter loads files it names (%s): which cannot be checked before it runs", w)
			}
			return
		case o.role == opdRead && pc.modes&effProgFile != 0:
			// The first operand is the program file (jq -f FILE).
			if strings.Contains(o.word, dynMarker) {
				s.ask("jq -f runs a program file named only when it runs")
				return
			}
			l := s.env.locateFrom(o.word, s.cwd)
			if l.abs == "" || s.cwd == unknownCwd && relativeWord(o.word) {
				s.ask("jq -f %s: the program file cannot be read before it runs", printable(o.word))
				return
			}
			if st, err := os.Stat(l.abs); err == nil && st.IsDir() {
				return // jq cannot open a folder as its program, and stops
			}
			data, err := readAtMost(l.abs, maxJqProgram)
			if err != nil {
				s.ask("jq -f %s: the program file cannot be read before it runs", printable(o.word))
				return
			}
			if w, ok := jqLoadsFiles(string(data)); ok {
				s.ask("jq -f %s: the program loads files it names (%s): which cannot be checked before it runs", printable(o.word), w)
			}
			return
		}
	}
}

// readAtMost reads a regular file of at most limit bytes: one larger is
// an error. It reads through readBounded, which never waits on a FIFO
// planted where the file should be.
func readAtMost(path string, limit int64) ([]byte, error) {
	data, err := readBounded(path, limit+1)
	if err == nil && int64(len(data)) > limit {
		return nil, os.ErrInvalid
	}
	return data, err
}

// jqLoadsFiles reports the first word of a jq program (jq 1.6's lexer:
// comments from # to the line's end, strings with \(…) interpolations
// holding code) that loads a file: the module directives and modulemeta,
// or a name qualified by a module (mod::f). A string left open is taken
// to load one (fail closed).
func jqLoadsFiles(prog string) (string, bool) {
	type frame struct {
		inString bool
		parens   int
	}
	stack := []frame{{}}
	for i := 0; i < len(prog); {
		top := &stack[len(stack)-1]
		c := prog[i]
		if top.inString {
			switch c {
			case '\\':
				if i+1 < len(prog) && prog[i+1] == '(' {
					stack = append(stack, frame{})
				}
				i += 2
			case '"':
				stack = stack[:len(stack)-1]
				i++
			default:
				i++
			}
			continue
		}
		switch {
		case c == '#':
			for i < len(prog) && prog[i] != '\n' {
				i++
			}
		case c == '"':
			stack = append(stack, frame{inString: true})
			i++
		case c == '(':
			top.parens++
			i++
		case c == ')':
			if top.parens == 0 && len(stack) > 1 {
				stack = stack[:len(stack)-1] // back into the string
			} else {
				top.parens--
			}
			i++
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(prog) && (prog[j] == '_' || prog[j] == ':' || prog[j] >= 'a' && prog[j] <= 'z' || prog[j] >= 'A' && prog[j] <= 'Z' || prog[j] >= '0' && prog[j] <= '9') {
				j++
			}
			w := prog[i:j]
			field := i > 0 && (prog[i-1] == '.' || prog[i-1] == '$')
			if !field {
				switch {
				case w == "import" || w == "include" || w == "module" || w == "modulemeta", strings.Contains(w, "::"):
					return w, true
				}
			}
			i = j
		default:
			i++
		}
	}
	if len(stack) > 1 {
		return "a string left open", true
	}
	return "", false
}
