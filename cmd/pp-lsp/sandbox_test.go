package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"pp-lsp/server/actuate/sandbox"
)

func TestDoctorNamesTheSandbox(t *testing.T) {
	st := sandbox.Probe()
	m := newMemexEnv(t, map[string]string{"notes.org": "* n\n"})
	_, out, _ := m.run(t, "doctor")
	if st.Available() {
		assert.Contains(t, out, fmt.Sprintf("ok    sandbox: required: Landlock ABI %d confines shell and eval commands to the roots", st.ABI))
	} else {
		assert.Contains(t, out, "warn  sandbox: best-effort, no Landlock: "+st.Reason)
	}
	m.env[sandbox.EnvMode] = "off"
	_, out, _ = m.run(t, "doctor")
	assert.Contains(t, out, "warn  sandbox: off: shell and eval commands run unconfined")
	m.env[sandbox.EnvMode] = "sometimes"
	code, out, _ := m.run(t, "doctor")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, `FAIL  sandbox: PASSEPARTOUT_SANDBOX: the sandbox setting "sometimes" is none of required, best-effort, off`)
}
