// Package orgsetup is the one rule by which a note is private through its
// #+SETUPFILE: lines. Org reads the keywords of the file such a line names
// (a path from the note's folder, ~, or a URL it fetches) as the note's
// own (Org 9.5: org-collect-keywords, org-file-tags), so a #+FILETAGS:
// there carrying a privacy tag makes the whole note private. The gates
// (gates/privatefiles.go), the memex (memory) and the output filters
// judge a note's setup files by Follow.
//
// Invariant: a #+SETUPFILE: line is found wherever it stands, as a
// #+FILETAGS: line is (a privacy rule errs on the side of hiding); a chain
// of setup files is followed at most MaxDepth deep, each file read at most
// once at each depth; a URL, or a chain deeper, is never fetched nor
// followed: its privacy is unknown, and each caller fails closed on it.
// Follow reads files only through the reader it is given.
package orgsetup

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"

	"pp-lsp/internal/regfile"
)

// MaxDepth bounds the chain of #+SETUPFILE: files followed.
const MaxDepth = 8

// Result is what a note's setup files make of its privacy.
type Result struct {
	// Private: a setup file's #+FILETAGS: carries a privacy tag; Setup
	// names it.
	Private bool
	// Unknown, when not empty, says why the privacy cannot be told (a
	// URL, a chain too deep, a file the reader could not judge); Setup
	// names the setup file.
	Unknown string
	Setup   string
}

// ErrUnknown is returned by a Reader for a setup file that exists but
// whose keywords cannot be told (too large, not a regular file), alone or
// wrapped: Follow reports the note's privacy unknown. Any other error is a
// file Org could not read either, and brings no keyword.
type ErrUnknown struct{ Why string }

func (e ErrUnknown) Error() string { return e.Why }

// Reader reads the setup file at an absolute path.
type Reader func(path string) ([]byte, error)

// ReadFile reads the setup file at path for a Reader: a regular file,
// followed through symlinks as Org follows them, read whole up to limit
// bytes and never waiting (internal/regfile). A file too large to read
// whole, or no regular file (a FIFO a writer fills as Org reads it), is
// one whose keywords cannot be told: ErrUnknown.
func ReadFile(path string, limit int64) ([]byte, error) {
	data, _, err := regfile.Read(path, true, limit)
	if errors.Is(err, regfile.ErrTooLarge) || errors.Is(err, regfile.ErrNotRegular) {
		return nil, ErrUnknown{Why: err.Error()}
	}
	return data, err
}

// Mentions says whether src may hold a #+SETUPFILE: line: a note that
// does not is not looked at further.
func Mentions(src []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '#')
		if j < 0 {
			return false
		}
		i += j
		if i+12 <= len(src) && foldEq(src[i:i+12], "#+setupfile:") {
			return true
		}
		i++
	}
}

// Targets returns the values of src's #+SETUPFILE: lines, in order.
func Targets(src []byte) []string {
	if !Mentions(src) {
		return nil
	}
	var out []string
	eachLine(src, func(t []byte) bool {
		if len(t) >= 12 && foldEq(t[:12], "#+setupfile:") {
			if v := strings.Trim(strings.TrimSpace(string(t[12:])), `"`); v != "" {
				out = append(out, v)
			}
		}
		return false
	})
	return out
}

// eachLine calls f with each line of src, its leading blanks trimmed,
// until f returns true; it reports whether one did.
func eachLine(src []byte, f func(t []byte) bool) bool {
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		if f(bytes.TrimLeft(line, " \t")) {
			return true
		}
	}
	return false
}

// Resolve is the file a #+SETUPFILE: value names for a note in folder dir:
// ok is false for a URL, which is never fetched, and for a home folder
// not known here (~/ with no home, ~USER/), which Emacs expands.
func Resolve(v, dir, home string) (string, bool) {
	switch {
	case strings.Contains(v, "://"):
		return "", false
	case strings.HasPrefix(v, "~/") && home != "":
		return filepath.Join(home, v[2:]), true
	case strings.HasPrefix(v, "~"):
		return "", false
	case !filepath.IsAbs(v):
		return filepath.Join(dir, v), true
	}
	return filepath.Clean(v), true
}

// FileTagsLine says whether a #+FILETAGS: line anywhere in src carries
// one of tags (compared without regard to case, colons trimmed),
// whatever Org would make of its place.
func FileTagsLine(src []byte, tags []string) bool {
	return eachLine(src, func(t []byte) bool {
		return len(t) > 11 && t[0] == '#' && t[1] == '+' && foldEq(t[2:11], "filetags:") && anyTag(string(t[11:]), tags)
	})
}

// Follow judges the note at path, whose bytes are src, by its setup files
// (read with read), following setup files' own #+SETUPFILE: lines up to
// MaxDepth deep. It stops at the first setup file that makes the note
// private or its privacy unknown. A setup file named again at a depth
// where it was already followed is not read again: it brought nothing
// there, and would bring nothing again (however many times a malicious
// folder's files name each other, each is read at most MaxDepth times).
func Follow(path string, src []byte, home string, tags []string, read Reader) Result {
	if len(tags) == 0 {
		return Result{}
	}
	return FollowTargets(path, Targets(src), home, tags, read)
}

// FollowTargets is Follow for a note whose #+SETUPFILE: values, Targets
// of its bytes, are known: the note's bytes are not read again.
func FollowTargets(path string, targets []string, home string, tags []string, read Reader) Result {
	var r Result
	if len(tags) == 0 {
		return r
	}
	f := follower{home: home, tags: tags, read: read, r: &r}
	f.follow(path, targets, 0)
	return r
}

// follower is one Follow's walk: seen holds the setup files read, by
// path and the depth they were read at, that did not end it.
type follower struct {
	home string
	tags []string
	read Reader
	r    *Result
	seen map[visit]bool
}

type visit struct {
	path  string
	depth int
}

func (f *follower) follow(path string, targets []string, depth int) bool {
	for _, v := range targets {
		p, ok := Resolve(v, filepath.Dir(path), f.home)
		if !ok || depth >= MaxDepth {
			f.r.Setup = v
			f.r.Unknown = "its #+SETUPFILE: " + v + " cannot be read here, and may make it private"
			return true
		}
		if f.seen[visit{p, depth}] {
			continue
		}
		if f.seen == nil {
			f.seen = map[visit]bool{}
		}
		f.seen[visit{p, depth}] = true
		data, err := f.read(p)
		if err != nil {
			if u, ok := errors.AsType[ErrUnknown](err); ok {
				f.r.Setup, f.r.Unknown = p, "its #+SETUPFILE: "+p+" cannot be judged: "+u.Why
				return true
			}
			continue // Org reads no keyword from a file it cannot open
		}
		if FileTagsLine(data, f.tags) {
			f.r.Private, f.r.Setup = true, p
			return true
		}
		if f.follow(p, Targets(data), depth+1) {
			return true
		}
	}
	return false
}

func anyTag(value string, tags []string) bool {
	for _, h := range strings.FieldsFunc(value, func(r rune) bool { return r == ':' || r == ' ' || r == '\t' }) {
		for _, t := range tags {
			if strings.EqualFold(strings.Trim(t, ":"), h) {
				return true
			}
		}
	}
	return false
}

// foldEq compares b with the lower-case ASCII s without regard to case.
func foldEq(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
