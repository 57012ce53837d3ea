package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"pp-lsp/gates"
	"pp-lsp/server/agent"
)

// checkStatus is one doctor line's verdict: a warning works but deserves a
// look; a failure will not work and makes doctor exit 1.
type checkStatus uint8

const (
	checkOK checkStatus = iota
	checkWarn
	checkFail
)

func (s checkStatus) String() string {
	switch s {
	case checkOK:
		return "ok"
	case checkWarn:
		return "warn"
	}
	return "FAIL"
}

// checkLine is one line of doctor's report: "ok|warn|FAIL  subject:
// detail — fix". The subject is the thing checked, the detail what was
// found, the fix (for warn and FAIL) what to do about it.
type checkLine struct {
	status  checkStatus
	subject string
	detail  string
	fix     string
}

func (l checkLine) String() string {
	s := fmt.Sprintf("%-4s  %s: %s", l.status, l.subject, oneLine(l.detail))
	if l.fix != "" {
		s += " — " + oneLine(l.fix)
	}
	return s
}

func ok(subject, format string, a ...any) checkLine {
	return checkLine{status: checkOK, subject: subject, detail: fmt.Sprintf(format, a...)}
}

func warn(subject, detail, fix string) checkLine {
	return checkLine{status: checkWarn, subject: subject, detail: detail, fix: fix}
}

func fail(subject, detail, fix string) checkLine {
	return checkLine{status: checkFail, subject: subject, detail: detail, fix: fix}
}

// doctorEnv is what every check sees: the command line's roots and
// configuration file, the environment, and the configuration file read
// once (a check of its own reports its faults; the others use what parsed).
type doctorEnv struct {
	c     *cli
	roots []string
	// configPath is the configuration file: --config, else the default
	// path; configGiven says --config named it (so it must exist).
	configPath  string
	configGiven bool
	sections    agent.FileSections
	configErr   error
	// landlock probes the kernel's Landlock ABI (a test gives its own).
	landlock func() (int, error)
}

func (d *doctorEnv) getenv(k string) string { return d.c.getenv(k) }

// doctorCheck is one named check. It reports one line or more (one per
// root, one per provider); it never fails by returning: a failure is a line.
type doctorCheck struct {
	name string
	run  func(ctx context.Context, d *doctorEnv) []checkLine
}

// doctorChecks is the list doctor runs, in this order: what the rest
// depends on first. A new check is one function and one entry here.
func doctorChecks() []doctorCheck {
	return []doctorCheck{
		{"configuration", checkConfiguration},
		{"environment", checkEnvironment},
		{"roots", checkRoots},
		{"data dir", checkDataDir},
		{"journal", checkJournal},
		{"protected places", checkProtected},
		{"sandbox", checkSandbox},
		{"providers", checkProviders},
		{"embedder", checkEmbedder},
		{"editors", checkEditors},
	}
}

func runDoctor(ctx context.Context, c *cli, args []string) error {
	fs := newFlagSet("doctor", "pp-lsp doctor [--root DIR]... [--config FILE]")
	roots := fs.rootFlag("a memex root `DIR` to check (repeatable; default: the current directory)")
	config := fs.String("config", "", "the configuration `FILE` (default $XDG_CONFIG_HOME/passepartout/config.json)")
	if err := fs.parse(c, args); err != nil {
		return err
	}
	// Doctor logs nothing: what it finds is its report. It checks
	// PASSEPARTOUT_LOG with the rest of the environment.
	if fs.NArg() > 0 {
		return usageErrorf("takes no operands, got %q (roots go after --root)", fs.Arg(0))
	}
	d := &doctorEnv{c: c, roots: *roots, configPath: *config, configGiven: *config != "", landlock: landlockABI}
	if !d.configGiven {
		d.configPath = filepath.Join(gates.DefaultWorld(c.getenv, *roots).ConfigDir, "config.json")
	}
	d.sections, d.configErr = agent.ReadConfigFile(d.configPath, !d.configGiven)

	var lines, failed, warned int
	for _, check := range doctorChecks() {
		for _, l := range check.run(ctx, d) {
			lines++
			switch l.status {
			case checkFail:
				failed++
			case checkWarn:
				warned++
			}
			fmt.Fprintln(c.stdout, l)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %s failed (see the FAIL lines above)", failed, plural(lines, "check"))
	}
	fmt.Fprintf(c.stdout, "doctor: %s, %s, no failures\n", plural(lines, "check"), plural(warned, "warning"))
	return nil
}

// plural writes "1 check", "2 checks".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// listSome names up to three items and counts the rest.
func listSome(items []string) string {
	if len(items) <= 3 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:3], ", "), len(items)-3)
}
