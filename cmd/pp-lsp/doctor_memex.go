package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"pp-lsp/gates"
	"pp-lsp/internal/plainerr"
	"pp-lsp/memory"
	"pp-lsp/server/seal"
)

// checkRoots: each root is a readable folder; how many Org files it
// holds; which were left out, and why.
func checkRoots(ctx context.Context, d *doctorEnv) []checkLine {
	var out []checkLine
	var good []string
	for _, r := range d.roots {
		subject := "root " + absPath(r)
		fi, err := os.Stat(r)
		switch {
		case err != nil:
			out = append(out, fail(subject, plainerr.Reason(err), "give the folder of your Org files with --root DIR"))
			continue
		case !fi.IsDir():
			out = append(out, fail(subject, "it is a file, not a folder", "give the folder of your Org files with --root DIR"))
			continue
		}
		if _, err := os.ReadDir(r); err != nil {
			out = append(out, fail(subject, "cannot be read: "+plainerr.Reason(err), "make it readable (chmod u+rx)"))
			continue
		}
		good = append(good, r)
	}
	if len(good) == 0 {
		return out
	}
	m, err := memory.Open(ctx, memory.Options{Roots: good, Home: gates.DefaultWorld(d.getenv, good).Home})
	if err != nil {
		return append(out, fail("roots", "cannot be indexed: "+err.Error(), "see the error"))
	}
	defer m.Close(context.WithoutCancel(ctx))
	s := m.Snapshot()
	files := make([]int, len(good))
	for n := range s.Files() {
		files[n.Root()]++
	}
	left := make([][]string, len(good))
	for _, f := range s.Findings() {
		switch f.Code {
		case memory.CodeNotText, memory.CodeFileTooLarge, memory.CodeUnreadable, memory.CodeUnreadableFolder:
		default:
			continue
		}
		for i, r := range good {
			if rel, ok := under(r, f.Path); ok {
				left[i] = append(left[i], rel+" ("+skipReason(f.Code)+")")
				break
			}
		}
	}
	for i, r := range good {
		subject := "root " + absPath(r)
		switch {
		case len(left[i]) > 0:
			out = append(out, warn(subject, fmt.Sprintf("%s; %d left out: %s", plural(files[i], "Org file"), len(left[i]), listSome(left[i])),
				"`pp-lsp index --findings --root "+r+"` says why; save them as UTF-8 text, or move them out"))
		case files[i] == 0:
			out = append(out, warn(subject, "no Org files in it", "is this the folder of your notes? give it with --root DIR"))
		default:
			out = append(out, ok(subject, "%s, all read", plural(files[i], "Org file")))
		}
	}
	return out
}

// absPath is path made absolute, for a line that names a folder.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// under reports whether path lies in root, and its path relative to it.
func under(root, path string) (string, bool) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(abs, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func skipReason(code string) string {
	switch code {
	case memory.CodeNotText:
		return "not text"
	case memory.CodeFileTooLarge:
		return "too large"
	case memory.CodeUnreadableFolder:
		return "folder unreadable"
	}
	return "unreadable"
}

// checkDataDir: the data directory (vectors, plan records, journal
// heads) can be written, and what it holds. Doctor writes nothing: it
// asks the kernel for write access instead of trying.
func checkDataDir(_ context.Context, d *doctorEnv) []checkLine {
	dir, err := memory.DataDir(d.getenv)
	if err != nil {
		return []checkLine{fail("data dir", err.Error(), "set "+memory.EnvDataDir)}
	}
	subject := "data dir " + dir
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := seal.CheckDir(dir); err != nil {
			return []checkLine{fail(subject, err.Error(), "set "+memory.EnvDataDir+" to a folder of your own that only you can change")}
		}
		parent := dir
		for {
			parent = filepath.Dir(parent)
			if _, err := os.Stat(parent); err == nil || parent == filepath.Dir(parent) {
				break
			}
		}
		if !writableDir(parent) {
			return []checkLine{fail(subject, "does not exist, and "+parent+" cannot be written to create it", "create it, or set "+memory.EnvDataDir+" to a folder you can write")}
		}
		return []checkLine{ok(subject, "not created yet; the first run of the server creates it")}
	case err != nil:
		return []checkLine{fail(subject, plainerr.Reason(err), "set "+memory.EnvDataDir+" to a folder you can write")}
	case !fi.IsDir():
		return []checkLine{fail(subject, "it is a file, not a folder", "move the file, or set "+memory.EnvDataDir+" elsewhere")}
	}
	if err := seal.CheckDir(dir); err != nil {
		return []checkLine{fail(subject, err.Error(), "set "+memory.EnvDataDir+" to a folder of your own that only you can change")}
	}
	if !writableDir(dir) {
		return []checkLine{fail(subject, "cannot be written: plan records and vectors would be lost", "chmod u+rwx it, or set "+memory.EnvDataDir+" elsewhere")}
	}
	var notes []string
	if n := countEntries(filepath.Join(dir, "plans"), ""); n > 0 {
		notes = append(notes, plural(n, "sealed plan record"))
	}
	if n := countEntries(filepath.Join(dir, "journal", "heads"), ".json"); n > 0 {
		notes = append(notes, plural(n, "journal head"))
	}
	if len(notes) == 0 {
		return []checkLine{ok(subject, "writable, nothing recorded yet")}
	}
	return []checkLine{ok(subject, "writable; %s", strings.Join(notes, ", "))}
}

// countEntries counts the files in dir ending in ext (0 when dir is missing).
func countEntries(dir, ext string) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ext) {
			n++
		}
	}
	return n
}
