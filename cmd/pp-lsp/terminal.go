package main

import (
	"fmt"
	"io"
	"regexp"
	"unicode/utf8"
)

// What a command prints for a person goes to a terminal, and much of it
// is not ours: a model's answer, streamed as it comes; an action's
// proposal, summary and output; a note's titles; an error quoting any of
// them. A terminal obeys the control sequences in what it is given — a
// model's answer could set the clipboard (OSC 52), clear the screen, or
// move the cursor back over the report of what ran and write another —
// so every control character but the line feed and the tab is shown, not
// sent: in caret notation (ESC is "^["), or as <U+XXXX> for DEL, the C1
// controls and the bidirectional overrides, and a byte that is not UTF-8
// as <XX>; a CR before a line feed is dropped (a CRLF line end).

// controlFree is a writer that passes what it is given on to w with its
// control characters shown (see above). A UTF-8 sequence or a CR cut
// by the end of a write waits for the next.
type controlFree struct {
	w       io.Writer
	pending []byte
}

func (c *controlFree) Write(p []byte) (int, error) {
	b := append(c.pending, p...)
	c.pending = nil
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 && !utf8.FullRune(b[i:]) {
			c.pending = append(c.pending, b[i:]...) // the rest of it comes next
			break
		}
		switch {
		case r == utf8.RuneError && n == 1:
			// Not UTF-8: a terminal reading Latin-1 takes 0x9B for CSI.
			out = fmt.Appendf(out, "<%02X>", b[i])
		case r == '\r' && i+1 == len(b):
			c.pending = append(c.pending, '\r')
		case r == '\r' && b[i+1] == '\n':
		case r == '\n' || r == '\t':
			out = append(out, byte(r))
		case r < 0x20:
			out = append(out, '^', byte(r)+'@')
		case r == 0x7f || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			out = fmt.Appendf(out, "<U+%04X>", r)
		default:
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	if _, err := c.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what waits for the rest of it, shown as it is.
func (c *controlFree) Flush() error {
	if len(c.pending) == 0 {
		return nil
	}
	p := c.pending
	c.pending = nil
	out := make([]byte, 0, len(p)+4)
	for _, x := range p {
		if x == '\r' {
			out = append(out, '^', 'M')
			continue
		}
		out = fmt.Appendf(out, "<%02X>", x)
	}
	_, err := c.w.Write(out)
	return err
}

// reJSONFlag is the flag that asks for JSON, spelt as the flag package
// takes it: --json, -json, or either given a true value.
var reJSONFlag = regexp.MustCompile(`^--?json(=(1|t|T|true|TRUE|True))?$`)

// asJSON reports whether args ask for JSON (reJSONFlag, before any "--"):
// what such a command prints on stdout is a JSON value, which escapes
// every C0 control itself, for a program to read as it is.
func asJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if reJSONFlag.MatchString(a) {
			return true
		}
	}
	return false
}

// forPeople is c with what its command prints for a person through
// controlFree, and the function that flushes it. The commands that speak
// a protocol or print JSON alone on stdout (the language server, the
// bridge, MCP, gate, outline, index) are left alone, and stdout of one
// asked for JSON.
func forPeople(c *cli, name string, args []string) (*cli, func()) {
	switch name {
	case "--stdio", "serve", "mcp", "gate", "outline", "index":
		return c, func() {}
	}
	cc := *c
	errs := &controlFree{w: c.stderr}
	cc.stderr = errs
	flush := []func() error{errs.Flush}
	if !asJSON(args) {
		outs := &controlFree{w: c.stdout}
		cc.stdout = outs
		flush = append([]func() error{outs.Flush}, flush...)
	}
	return &cc, func() {
		for _, f := range flush {
			f()
		}
	}
}
