package main

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"strings"

	"pp-lsp/gates"
	"pp-lsp/internal/plainerr"
	"pp-lsp/memory"
	"pp-lsp/memory/foveal"
	"pp-lsp/providers"
	"pp-lsp/server/agent"
)

// checkConfiguration: the configuration file is found (or rightly absent)
// and each of its sections parses as its package reads it.
func checkConfiguration(_ context.Context, d *doctorEnv) []checkLine {
	const subject = "configuration"
	if d.configErr != nil {
		fix := "correct the file"
		if errors.Is(d.configErr, fs.ErrNotExist) {
			fix = "create it, or drop --config to use the default"
		}
		return []checkLine{fail(subject, d.configErr.Error(), fix)}
	}
	if _, err := os.Stat(d.configPath); err != nil {
		return []checkLine{ok(subject, "no file at %s; the defaults and the environment apply", d.configPath)}
	}
	var faults []string
	if len(d.sections.Gates) > 0 {
		if _, err := gates.ParseConfig(d.sections.Gates); err != nil {
			faults = append(faults, err.Error())
		}
	}
	if len(d.sections.Agent) > 0 {
		if _, err := agent.ParseConfig(d.sections.Agent); err != nil {
			faults = append(faults, "the \"agent\" section: "+err.Error())
		}
	}
	if _, err := fileProviders(d); err != nil {
		faults = append(faults, err.Error())
	}
	if len(faults) > 0 {
		return []checkLine{fail(subject+" "+d.configPath, strings.Join(faults, "; "), "correct the file (gates/README.md describes the \"gates\" section)")}
	}
	var present []string
	for _, sec := range []struct {
		name string
		raw  json.RawMessage
	}{{"gates", d.sections.Gates}, {"providers", d.sections.Providers}, {"agent", d.sections.Agent}} {
		if len(sec.raw) > 0 {
			present = append(present, sec.name)
		}
	}
	if len(present) == 0 {
		return []checkLine{ok(subject+" "+d.configPath, "valid, with no sections; the defaults apply")}
	}
	return []checkLine{ok(subject+" "+d.configPath, "valid: the %s %s read", strings.Join(present, ", "), sectionWord(len(present)))}
}

func sectionWord(n int) string {
	if n == 1 {
		return "section is"
	}
	return "sections are"
}

// fileProviders is the configuration file's "providers" section (DESIGN
// §11: the file, then the environment).
func fileProviders(d *doctorEnv) (providers.Config, error) {
	var cfg providers.Config
	if d.configErr != nil || len(d.sections.Providers) == 0 {
		return cfg, nil
	}
	if err := json.Unmarshal(d.sections.Providers, &cfg); err != nil {
		return cfg, plainerr.JSON("the \"providers\" section", d.sections.Providers, err)
	}
	return cfg, nil
}

// envVars are the environment variables pp-lsp reads besides keys and
// the XDG folders (DESIGN §11, and PASSEPARTOUT_LOG): each overrides the
// configuration file.
func envVars() []string {
	return []string{
		providers.EnvProviders, providers.EnvEmbeddingKind, providers.EnvEmbeddingModel, providers.EnvEmbeddingBaseURL,
		foveal.EnvBudget, foveal.EnvThreshold, agent.EnvLogLimit, agent.EnvAssistant, agent.EnvHeartbeat,
		memory.EnvDataDir, memory.EnvAutoSave, envLog,
	}
}

// checkEnvironment: which of pp-lsp's variables are set, and that each
// holds a value its reader takes. The providers' variables are the
// providers check's.
func checkEnvironment(_ context.Context, d *doctorEnv) []checkLine {
	const subject = "environment"
	var set []string
	for _, name := range envVars() {
		if strings.TrimSpace(d.getenv(name)) != "" {
			set = append(set, name)
		}
	}
	var faults []string
	if _, err := foveal.EnvOptions(d.getenv); err != nil {
		faults = append(faults, strings.TrimPrefix(err.Error(), foveal.ErrOptions.Error()+": "))
	}
	var ac agent.Config
	if d.configErr == nil && len(d.sections.Agent) > 0 {
		ac, _ = agent.ParseConfig(d.sections.Agent) // its faults are the configuration check's
	}
	if err := ac.ApplyEnv(d.getenv); err != nil {
		faults = append(faults, err.Error())
	}
	if _, err := memory.AutoSaveInterval(d.getenv); err != nil {
		faults = append(faults, err.Error())
	}
	if v := strings.TrimSpace(d.getenv(envLog)); v != "" {
		var l slog.Level
		if l.UnmarshalText([]byte(v)) != nil {
			faults = append(faults, envLog+"="+v+" is not a log level (debug, info, warn or error)")
		}
	}
	if len(faults) > 0 {
		return []checkLine{fail(subject, strings.Join(faults, "; "), "correct or unset the variable")}
	}
	if len(set) == 0 {
		return []checkLine{ok(subject, "none of pp-lsp's variables is set")}
	}
	return []checkLine{ok(subject, "%s set, over the configuration file", strings.Join(set, ", "))}
}
