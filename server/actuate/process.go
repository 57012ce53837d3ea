package actuate

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"pp-lsp/gates"
)

// shell runs cmd with bash (sh where there is no bash) in cwd, inside the
// roots. Its output goes back to the model.
func (a *Actuators) shell(ctx context.Context, req Request) (Result, error) {
	args := req.Action.Typed().(gates.ShellArgs)
	dir, err := a.paths.dir(args.Cwd)
	if err != nil {
		return Result{}, fmt.Errorf("shell: %w", err)
	}
	sh := "/bin/sh"
	if p, err := exec.LookPath("bash"); err == nil {
		sh = p
	}
	res, err := a.runProcess(ctx, "shell", []string{sh, "-c", args.Cmd}, dir, nil, a.cfg.Shell)
	res.Feedback = true
	return res, err
}

// DefaultInterpreters run eval's languages: the code on standard input, or
// in a temp file where an argument is "{file}".
var DefaultInterpreters = map[string][]string{
	"python":     {"python3", "-"},
	"python3":    {"python3", "-"},
	"sh":         {"sh", "-s"},
	"bash":       {"bash", "-s"},
	"javascript": {"node", "-"},
	"node":       {"node", "-"},
	"ruby":       {"ruby", "-"},
	"perl":       {"perl", "-"},
	"lisp":       {"sbcl", "--script"},
	"emacs-lisp": {"emacs", "-Q", "--batch", "-l", "{file}"},
	"elisp":      {"emacs", "-Q", "--batch", "-l", "{file}"},
}

// eval runs code with the interpreter of its language, in the first root.
func (a *Actuators) eval(ctx context.Context, req Request) (Result, error) {
	args := req.Action.Typed().(gates.EvalArgs)
	lang := strings.ToLower(strings.TrimSpace(args.Lang))
	argv, ok := a.cfg.Eval.Interpreters[lang]
	if !ok {
		argv, ok = DefaultInterpreters[lang]
	}
	if !ok || len(argv) == 0 {
		known := map[string]bool{}
		for k := range DefaultInterpreters {
			known[k] = true
		}
		for k := range a.cfg.Eval.Interpreters {
			known[k] = true
		}
		names := make([]string, 0, len(known))
		for k := range known {
			names = append(names, k)
		}
		sort.Strings(names)
		return Result{}, fmt.Errorf("eval: no interpreter is known for the language %q (known: %s)", args.Lang, strings.Join(names, ", "))
	}
	argv = slices.Clone(argv)
	stdin := strings.NewReader(args.Code)
	if i := slices.Index(argv, "{file}"); i >= 0 {
		f, err := os.CreateTemp("", "pp-lsp-eval-*"+extension(lang))
		if err != nil {
			return Result{}, fmt.Errorf("eval: %w", err)
		}
		defer os.Remove(f.Name())
		_, werr := f.WriteString(args.Code)
		if cerr := f.Close(); werr != nil || cerr != nil {
			return Result{}, fmt.Errorf("eval: writing the code to %s failed", f.Name())
		}
		argv[i] = f.Name()
		stdin = strings.NewReader("")
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return Result{}, fmt.Errorf("eval: the %s interpreter %q is not installed", lang, argv[0])
	}
	return a.runProcess(ctx, "eval "+lang, argv, a.paths.roots[0], stdin, a.cfg.Eval.Limits)
}

func extension(lang string) string {
	switch lang {
	case "emacs-lisp", "elisp":
		return ".el"
	}
	return filepath.Ext("x." + lang)
}
