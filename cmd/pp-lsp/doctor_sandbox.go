package main

import (
	"context"
	"path/filepath"

	"pp-lsp/gates"
	"pp-lsp/server/actuate/sandbox"
	"pp-lsp/server/agent"
)

// checkSandbox: how shell and eval commands would be confined here — the
// setting (the configuration file's "agent" section, then
// PASSEPARTOUT_SANDBOX) and the Landlock ABI the kernel offers, or why
// there is none (DESIGN §12).
func checkSandbox(_ context.Context, c *cli) []checkLine {
	const subject = "sandbox"
	cfgPath := filepath.Join(gates.DefaultWorld(c.getenv, nil).ConfigDir, "config.json")
	sections, err := agent.ReadConfigFile(cfgPath, true)
	if err != nil {
		return []checkLine{{checkFail, subject, err.Error()}}
	}
	ac, err := agent.ParseConfig(sections.Agent)
	if err == nil {
		err = ac.ApplyEnv(c.getenv)
	}
	if err != nil {
		return []checkLine{{checkFail, subject, err.Error()}}
	}
	sb, err := sandbox.New(sandbox.Config{Mode: sandbox.Mode(ac.Sandbox)})
	if err != nil {
		return []checkLine{{checkFail, subject, err.Error()}}
	}
	return []checkLine{sandboxLine(sb)}
}

// sandboxLine judges a sandbox: confinement the setting requires and the
// kernel cannot give fails; none at all, or a kernel that enforces less
// than DESIGN §12 asks, is a warning.
func sandboxLine(sb *sandbox.Sandbox) checkLine {
	st := sb.Status()
	status := checkOK
	switch {
	case sb.Mode() == sandbox.Required && !st.Available():
		status = checkFail
	case sb.Mode() == sandbox.Off || !st.Available() || len(st.Gaps()) > 0:
		status = checkWarn
	}
	return checkLine{status, "sandbox", sb.Describe()}
}
