package main

import (
	"context"

	"pp-lsp/internal/plainerr"
	"pp-lsp/server/actuate/sandbox"
	"pp-lsp/server/agent"
)

// checkSandbox: how shell and eval commands would be confined here — the
// setting (the configuration file's "agent" section, then
// PASSEPARTOUT_SANDBOX) and the Landlock ABI the kernel offers, or why
// there is none (DESIGN §12).
func checkSandbox(_ context.Context, d *doctorEnv) []checkLine {
	const subject = "sandbox"
	if d.configErr != nil {
		return []checkLine{warn(subject, "the setting cannot be read while the configuration file is at fault", "fix the configuration first (its line above)")}
	}
	ac, err := agent.ParseConfig(d.sections.Agent)
	if err == nil {
		err = ac.ApplyEnv(d.getenv)
	}
	if err != nil {
		return []checkLine{fail(subject, plainerr.Reason(err), "correct the \"sandbox\" setting: required, best-effort or off")}
	}
	sb, err := sandbox.New(sandbox.Config{Mode: sandbox.Mode(ac.Sandbox), Probe: d.sandboxProbe})
	if err != nil {
		return []checkLine{fail(subject, plainerr.Reason(err), "correct the \"sandbox\" setting: required, best-effort or off")}
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
	return checkLine{status: status, subject: "sandbox", detail: sb.Describe()}
}
