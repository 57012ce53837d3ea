package testenv

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// NvimOption opens file in Neovim as a person's would (headless, but
// reading modelines, as it does by default) and returns the value of the
// option there: what a modeline in the file set, or else its default. It
// needs nvim (NeedCommand).
func NvimOption(t testing.TB, file, option string) string {
	t.Helper()
	nvim := NeedCommand(t, "nvim")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "--cmd", "set modeline modelines=5",
		file, "+lua io.stdout:write(tostring(vim.o."+option+"))", "+qa!")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("nvim %s: %v", file, err)
	}
	return strings.TrimSpace(string(out))
}
