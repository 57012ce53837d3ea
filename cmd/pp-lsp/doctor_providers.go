package main

import (
	"context"
	"log/slog"

	"pp-lsp/providers"
)

// providersOptions is what the providers see of the outside world here:
// the environment, and no logging (each result is a doctor line already).
func providersOptions(d *doctorEnv) providers.Options {
	return providers.Options{Getenv: d.getenv, Logger: slog.New(slog.DiscardHandler)}
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

// checkProviders: each provider of the cascade (the file's "providers"
// section, then PASSEPARTOUT_PROVIDERS) reachable, its model present, its
// key set (naming where it is looked for, never its value).
func checkProviders(ctx context.Context, d *doctorEnv) []checkLine {
	cfg, err := fileProviders(d)
	if err != nil {
		return []checkLine{fail("providers", err.Error(), "correct "+d.configPath)}
	}
	if err := cfg.ApplyEnv(d.getenv); err != nil {
		return []checkLine{fail("providers", err.Error(), "correct "+providers.EnvProviders)}
	}
	if err := cfg.Validate(); err != nil {
		return []checkLine{fail("providers", err.Error(), "correct "+providers.EnvProviders)}
	}
	var out []checkLine
	for _, diag := range providers.DiagnoseProviders(ctx, cfg, providersOptions(d)) {
		out = append(out, fromDiagnosis(diag))
	}
	return out
}

// checkEmbedder: the configured embedder answers a probe. A mistake in the
// cascade's settings does not hide the embedder's state: only the
// EMBEDDING_* variables and the file's embedding settings are read.
func checkEmbedder(ctx context.Context, d *doctorEnv) []checkLine {
	cfg, _ := fileProviders(d) // its faults are the providers check's
	cfg.Providers = nil
	embeddingOnly := func(name string) string {
		if name == providers.EnvProviders {
			return ""
		}
		return d.getenv(name)
	}
	if err := cfg.ApplyEnv(embeddingOnly); err != nil {
		return []checkLine{fail("embedder", err.Error(), "correct the EMBEDDING_* variables")}
	}
	return []checkLine{fromDiagnosis(providers.DiagnoseEmbedder(ctx, cfg, providersOptions(d)))}
}
