package main

import (
	"context"
	"os"
	"path/filepath"
)

// checkEditors: editors start `pp-lsp --stdio` by name, so pp-lsp must be
// on PATH, and should be this pp-lsp.
func checkEditors(_ context.Context, d *doctorEnv) []checkLine {
	const subject = "editors"
	self, _ := os.Executable()
	if self != "" {
		if r, err := filepath.EvalSymlinks(self); err == nil {
			self = r
		}
	}
	found := lookPath("pp-lsp", d.getenv("PATH"))
	switch {
	case found == "":
		fix := "put pp-lsp on PATH: `go install ./cmd/pp-lsp` (then $(go env GOPATH)/bin on PATH)"
		if self != "" {
			fix += ", or add " + filepath.Dir(self) + " to PATH"
		}
		return []checkLine{warn(subject, "pp-lsp is not on PATH, so eglot and Neovim cannot start it", fix)}
	case self != "" && !sameFile(found, self):
		return []checkLine{warn(subject, "the pp-lsp on PATH is "+found+", not this one ("+self+"): editors start that one",
			"reinstall it (`go install ./cmd/pp-lsp`), or put the folder you want first on PATH")}
	}
	return []checkLine{ok(subject, "pp-lsp on PATH is %s; eglot and Neovim start `pp-lsp --stdio`", found)}
}

// lookPath finds an executable file name in the folders of path, as a
// shell would (exec.LookPath reads the process's PATH; this reads the
// environment doctor was given).
func lookPath(name, path string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			if abs, err := filepath.Abs(p); err == nil {
				return abs
			}
			return p
		}
	}
	return ""
}

// sameFile reports whether two paths are one file (after symlinks).
func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return os.SameFile(fa, fb)
}

// fileExists stats path: its info, and whether it exists.
func fileExists(path string) (os.FileInfo, bool) {
	fi, err := os.Stat(path)
	return fi, err == nil
}
