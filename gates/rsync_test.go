package gates

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// rsyncHidden are the options of rsyncTable that `rsync --help` does not
// list, each with where it comes from; TestRsyncTableMatchesRsync holds
// each to the real rsync.
var rsyncHidden = map[string]string{
	"--msgs2stderr": "an old name of --stderr=all, in options.c", "--motd": "the opposite of --no-motd",
	"--i-d": "--inc-recursive's sibling for --dirs, in options.c", "--cc": "(aka --cc) of --checksum-choice",
	"--ignore-non-existing": "listed, a synonym of --existing", "--old-compress": "options.c", "--new-compress": "options.c",
	"--zc": "(aka --zc)", "--zl": "(aka --zl)", "--zt": "(aka --zt)", "--protect-args": "the old name of --secluded-args",
	"--log-format": "the old name of --out-format", "--time-limit": "the old name of --stop-after", "--qsort": "options.c",
	"--server": "the remote side's", "--sender": "the remote side's", "--daemon": "rsync --daemon --help",
	"--detach": "rsync --daemon --help", "--config": "rsync --daemon --help", "--dparam": "rsync --daemon --help",
}

// rsyncProbeSkips are options whose value the probe cannot tell, and why.
var rsyncProbeSkips = map[string]string{
	"--help": "prints the help", "--version": "prints the version", "-V": "prints the version",
	"--sender": "without --server rsync prints its help", "--daemon": "the next word is read as a daemon option",
	"--detach": "a daemon option", "--config": "a daemon option", "--dparam": "a daemon option",
}

// rsyncHelpOptions reads `rsync --help`: each option's names and whether
// it takes a value ("--name=VALUE" in either order of rsync 3.x's lines).
func rsyncHelpOptions(t *testing.T, help string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, line := range strings.Split(help, "\n") {
		if !strings.HasPrefix(strings.TrimLeft(line, " "), "-") {
			continue
		}
		spec, _, _ := strings.Cut(strings.TrimLeft(line, " "), "  ")
		value := strings.Contains(spec, "=")
		for _, n := range strings.Split(spec, ",") {
			n = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(n), "(*)"))
			n, _, _ = strings.Cut(n, "=")
			if n == "" || n == "--no-OPTION" {
				continue
			}
			out[n] = value
		}
	}
	require.Greater(t, len(out), 150, "rsync --help was not read: %s", help)
	return out
}

// rsyncTakesValue runs rsync with the option and a word no option has:
// rsync names the word as an unknown option only when the option did not
// take it as its value.
func rsyncTakesValue(dir, rsync, opt string) (value, known bool) {
	// In a folder of its own: --log-file writes its value at once.
	cmd := exec.Command(rsync, opt, "--zz-probe")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	s := string(out)
	if strings.Contains(s, opt+": unknown option") {
		return false, false
	}
	return !strings.Contains(s, "--zz-probe: unknown option"), true
}

// TestRsyncTableMatchesRsync: every option `rsync --help` lists is in the
// table, taking a value as --help says; every option of the table is
// known to the installed rsync and takes a value exactly when the table
// says so; so does every "--no-…" option in rsync's program, all flags.
func TestRsyncTableMatchesRsync(t *testing.T) {
	rsync := testenv.NeedCommand(t, "rsync")
	help, err := exec.Command(rsync, "--help").Output()
	require.NoError(t, err)
	table := rsyncOptions()
	for name, value := range rsyncHelpOptions(t, string(help)) {
		o := table[name]
		if o == nil && strings.HasPrefix(name, "--no-") {
			assert.False(t, value, "%s takes a value; parseRsync takes every --no-… for a flag", name)
			continue
		}
		if !assert.NotNil(t, o, "rsync --help lists %s, which the table does not know", name) {
			continue
		}
		if name == "-h" {
			continue // --help, -h (*): -h is help only on its own, else --human-readable
		}
		assert.Equal(t, value, o.value, "%s: --help says it takes a value: %v", name, value)
	}
	helpNames := rsyncHelpOptions(t, string(help))
	var names []string
	for name, o := range table {
		if _, ok := helpNames[name]; !ok {
			assert.Contains(t, rsyncHidden, name, "%s is in the table but neither in --help nor in the hidden list", name)
		}
		if why, skip := rsyncProbeSkips[name]; skip || name == "--crtimes" || name == "-N" {
			// An rsync built without create times refuses --crtimes
			// before reading on.
			t.Logf("%s not probed: %s", name, why)
			continue
		}
		_ = o
		names = append(names, name)
	}
	for name, r := range rsyncProbeAll(t.TempDir(), rsync, names) {
		assert.True(t, r.known, "rsync does not know %s", name)
		assert.Equal(t, table[name].value, r.value, "%s: the real rsync takes a value: %v", name, r.value)
	}
	bin, err := os.ReadFile(rsync)
	require.NoError(t, err)
	var negations []string
	for _, m := range regexp.MustCompile(`\x00(no-[a-z0-9][a-z0-9-]*)\x00`).FindAllSubmatch(bin, -1) {
		negations = append(negations, "--"+string(m[1]))
	}
	slices.Sort(negations)
	negations = slices.Compact(negations)
	require.NotEmpty(t, negations)
	for n, r := range rsyncProbeAll(t.TempDir(), rsync, negations) {
		if r.known {
			assert.False(t, r.value, "%s takes a value; parseRsync takes every --no-… for a flag", n)
		}
	}
}

type rsyncProbe struct{ value, known bool }

// rsyncProbeAll runs rsyncTakesValue for each option, two at a time.
func rsyncProbeAll(dir, rsync string, names []string) map[string]rsyncProbe {
	out := make(map[string]rsyncProbe, len(names))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, n := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			v, k := rsyncTakesValue(dir, rsync, n)
			mu.Lock()
			out[n] = rsyncProbe{v, k}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// TestParseRsync: rsync's command line as popt reads it.
func TestParseRsync(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		opts    []rsyncGiven
		ops     []string
		unknown []string
	}{
		{[]string{"-aH", "src/", "dst/"}, []rsyncGiven{{name: "--archive"}, {name: "--hard-links"}}, []string{"src/", "dst/"}, nil},
		{[]string{"-P", "a", "b"}, []rsyncGiven{{name: "-P"}}, []string{"a", "b"}, nil},
		{[]string{"-i", "a", "b"}, []rsyncGiven{{name: "--itemize-changes"}}, []string{"a", "b"}, nil},
		{[]string{"--link-dest", "../c", "a", "b"}, []rsyncGiven{{"--link-dest", "../c"}}, []string{"a", "b"}, nil},
		{[]string{"a", "b", "--link-dest=../c"}, []rsyncGiven{{"--link-dest", "../c"}}, []string{"a", "b"}, nil},
		{[]string{"-aT/tmp", "a", "b"}, []rsyncGiven{{name: "--archive"}, {"--temp-dir", "/tmp"}}, []string{"a", "b"}, nil},
		{[]string{"-aTx", "a", "b"}, []rsyncGiven{{name: "--archive"}, {"--temp-dir", "x"}}, []string{"a", "b"}, nil},
		{[]string{"-T", "-r", "a", "b"}, []rsyncGiven{{"--temp-dir", "-r"}}, []string{"a", "b"}, nil},
		{[]string{"--no-H", "--", "-a", "b"}, []rsyncGiven{{name: "--no-H"}}, []string{"-a", "b"}, nil},
		{[]string{"--link-d=x", "a", "b"}, nil, []string{"a", "b"}, []string{"--link-d=x"}},
		{[]string{"--log-format", "%n", "a", "b"}, []rsyncGiven{{"--out-format", "%n"}}, []string{"a", "b"}, nil},
	} {
		c := parseRsync(tc.args)
		assert.Equal(t, tc.opts, c.opts, "%q", tc.args)
		assert.Equal(t, tc.ops, c.ops, "%q", tc.args)
		assert.Equal(t, tc.unknown, c.unknown, "%q", tc.args)
	}
}
