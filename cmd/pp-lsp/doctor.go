package main

import (
	"context"
	"fmt"
	"log/slog"

	"pp-lsp/providers"
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

// checkLine is one line of doctor's report: the thing checked, the verdict,
// and what was found and what to fix.
type checkLine struct {
	status  checkStatus
	subject string
	detail  string
}

// doctorCheck is one named check. It may report several lines (one per
// configured provider); it never fails by returning: a failure is a line.
type doctorCheck struct {
	name string
	run  func(ctx context.Context, c *cli) []checkLine
}

// doctorChecks is the list doctor runs, in order. Later issues add theirs
// (roots, data dir, the journal's hash chain) here.
func doctorChecks() []doctorCheck {
	return []doctorCheck{
		{"providers", checkProviders},
		{"embedder", checkEmbedder},
		{"journal", checkJournal},
		{"sandbox", checkSandbox},
	}
}

func runDoctor(ctx context.Context, c *cli, args []string) error {
	fs := newFlagSet("doctor", "pp-lsp doctor", c.stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("doctor takes no arguments, got %q", fs.Arg(0))
	}
	var lines, failed, warned int
	for _, check := range doctorChecks() {
		for _, l := range check.run(ctx, c) {
			lines++
			switch l.status {
			case checkFail:
				failed++
			case checkWarn:
				warned++
			}
			fmt.Fprintf(c.stdout, "%-4s  %s: %s\n", l.status, l.subject, l.detail)
		}
	}
	if failed > 0 {
		return fmt.Errorf("doctor: %d of %s failed (see the FAIL lines above)", failed, plural(lines, "check"))
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

// providersConfig reads the providers' settings from the environment. A
// parse error is returned for the caller to report as a failed check.
func providersConfig(c *cli) (providers.Config, error) {
	var cfg providers.Config
	err := cfg.ApplyEnv(c.getenv)
	return cfg, err
}

// providersOptions is what the providers see of the outside world here:
// the environment, and no logging (each result is a doctor line already).
func providersOptions(c *cli) providers.Options {
	return providers.Options{Getenv: c.getenv, Logger: slog.New(slog.DiscardHandler)}
}

func fromDiagnosis(d providers.Diagnosis) checkLine {
	st := checkFail
	switch d.Status {
	case providers.StatusOK:
		st = checkOK
	case providers.StatusWarn:
		st = checkWarn
	}
	return checkLine{status: st, subject: d.Subject, detail: d.Detail}
}

// checkProviders: each provider of PASSEPARTOUT_PROVIDERS reachable, its
// model present, its key set (naming where it is looked for, never its value).
func checkProviders(ctx context.Context, c *cli) []checkLine {
	cfg, err := providersConfig(c)
	if err != nil {
		return []checkLine{{checkFail, "providers", err.Error()}}
	}
	if err := cfg.Validate(); err != nil {
		return []checkLine{{checkFail, "providers", err.Error()}}
	}
	var out []checkLine
	for _, d := range providers.DiagnoseProviders(ctx, cfg, providersOptions(c)) {
		out = append(out, fromDiagnosis(d))
	}
	return out
}

// checkEmbedder: EMBEDDING_PROVIDER's embedder answers a probe. It reads
// only the EMBEDDING_* variables, so that a mistake in the cascade's does
// not hide the embedder's state.
func checkEmbedder(ctx context.Context, c *cli) []checkLine {
	var cfg providers.Config
	embeddingOnly := func(name string) string {
		if name == providers.EnvProviders {
			return ""
		}
		return c.getenv(name)
	}
	if err := cfg.ApplyEnv(embeddingOnly); err != nil {
		return []checkLine{{checkFail, "embedder", err.Error()}}
	}
	return []checkLine{fromDiagnosis(providers.DiagnoseEmbedder(ctx, cfg, providersOptions(c)))}
}
