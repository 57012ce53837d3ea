package gates

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// propertyOperands are the words that follow the options of each program
// in TestGrammarRandomOptions: files of a clean root, or what the program
// takes.
var propertyOperands = map[string][]string{
	"comm": {"notes/a.txt", "notes/b.txt"}, "diff": {"notes/a.txt", "notes/b.txt"}, "cmp": {"notes/a.txt", "notes/b.txt"},
	"tr": {"a", "b"}, "jq": {".", "notes/x.json"}, "grep": {"TODO", "notes/a.txt"}, "rg": {"TODO", "notes"},
	"seq": {"3"}, "sleep": {"0"}, "date": nil, "id": nil, "whoami": nil, "uname": nil, "df": nil, "basename": {"notes/a.txt"},
	"dirname": {"notes/a.txt"}, "tree": {"notes"}, "ls": {"notes"}, "du": {"notes"}, "git": nil,
}

// TestGrammarRandomOptions: for every program a default rule allows,
// random command lines drawn from its --help (and its table): abbreviated,
// clustered, with values. Whenever one of the options drawn is one the
// table classes as running a program, writing a file, needing a human, or
// does not know (an ambiguous abbreviation included), the command is never
// allowed; when every option is known safe, it is allowed (so that the
// tables do not over-block either).
func TestGrammarRandomOptions(t *testing.T) {
	root := t.TempDir()
	for rel, text := range map[string]string{"notes/a.txt": "b\nTODO a\n", "notes/b.txt": "a\nb\n", "notes/x.json": `{"name":"x"}`} {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	stack, err := New(DefaultConfig())
	require.NoError(t, err)
	home := t.TempDir()
	w := DefaultWorld(func(k string) string { return map[string]string{"HOME": home}[k] }, []string{root})
	env, err := stack.NewEnv(context.Background(), w)
	require.NoError(t, err)
	defer env.Close()

	for _, rp := range realPrograms {
		if rp.prog == "git" {
			continue // its options come before a subcommand: covered by each subcommand's draws
		}
		t.Run(rp.prog, func(t *testing.T) {
			bin := rp.bin
			if bin == "" {
				bin = rp.prog
			}
			testenv.NeedCommand(t, bin)
			g := grammarOf(t, rp.prog)
			pool := sortedKeys(docOptions(runDoc(t, bin, rp.help...), 8, false))
			for o := range tableOptions(g) {
				if o != "-NUM" {
					pool = append(pool, o)
				}
			}
			sort.Strings(pool)
			h := fnv.New64a()
			h.Write([]byte(rp.prog))
			rng := rand.New(rand.NewPCG(h.Sum64(), 14))
			words := strings.Fields(rp.prog)
			operands, ok := propertyOperands[words[0]]
			if !ok {
				operands = []string{"notes/a.txt"}
			}
			for draw := 0; draw < 150; draw++ {
				argv := append([]string(nil), words...)
				unsafe := []string{}
				for k := 1 + rng.IntN(3); k > 0; k-- {
					name := pool[rng.IntN(len(pool))]
					spelt, why := drawOption(rng, g, name)
					argv = append(argv, spelt...)
					if why != "" {
						unsafe = append(unsafe, why)
					}
				}
				argv = append(argv, operands...)
				cmd := strings.Join(quoteAll(argv), " ")
				v := stack.Check(context.Background(), sh(cmd), env)
				if len(unsafe) > 0 {
					assert.NotEqual(t, VerdictAllow, v.Verdict, "%s: allowed, though %s", cmd, strings.Join(unsafe, "; "))
				} else {
					assert.Equal(t, VerdictAllow, v.Verdict, "%s: every option is known safe, yet %s (%s: %s)", cmd, v.Verdict, v.Gate, v.Reason)
				}
			}
		})
	}
}

// drawOption spells an option of a program's documentation at random —
// its full name, an abbreviation (long options, where the program takes
// prefixes), a value attached or as the next word — and says why the
// command must not be allowed because of it ("" when it is known safe).
func drawOption(rng *rand.Rand, g *grammar, name string) ([]string, string) {
	long := strings.HasPrefix(name, "--")
	written := name
	if long && (g.rules == rulesGNU || g.rules == rulesParseOpt) && rng.IntN(2) == 0 && len(name) > 3 {
		written = name[:3+rng.IntN(len(name)-3)]
	}
	var idx int
	var known bool
	switch {
	case long:
		var neg bool
		var j int
		j, neg, _ = g.lookupLongNeg(strings.TrimPrefix(written, "--"))
		if neg {
			return []string{written}, "" // a negation turns an option off
		}
		idx, known = j, j >= 0
	case len(name) == 2:
		idx, known = g.short[name[1]]
	default:
		idx, known = g.long[name]
	}
	if !known {
		return []string{written}, written + " is not an option the table knows (or is ambiguous)"
	}
	o := g.opts[idx]
	var spelt []string
	switch {
	case o.arg == argNone || o.arg == argOptional && (!long || rng.IntN(2) == 0):
		spelt = []string{written}
	case o.arg == argTwo:
		spelt = []string{written, "a", "1"}
	case o.arg == argOptional:
		spelt = []string{written + "=1"}
	case long && g.rules != rulesTree && rng.IntN(2) == 0 && !(g.prog == "jq"):
		spelt = []string{written + "=1"}
	case !long && g.rules != rulesTree && g.rules != rulesExactPOSIX && rng.IntN(2) == 0:
		spelt = []string{written + "1"}
	default:
		spelt = []string{written, "1"}
	}
	if e := o.eff & (effRun | effShell | effWrite | effReadNames | effAsk | effDeny | effSelf | effOperandNames); e != 0 {
		return spelt, written + " is classed " + effectWords(e)
	}
	return spelt, ""
}

// effectWords names effects as the tables write them.
func effectWords(e effect) string {
	var out []string
	for name, bit := range effectNames {
		if e&bit != 0 {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func quoteAll(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return out
}

// dangerousOptions are options that read any file, write one or run a
// program, listed from the programs' manuals and the GTFOBins catalogue,
// independently of the tables: none may be classed known safe.
var dangerousOptions = map[string][]string{
	"sort":         {"--compress-program", "-o", "--output", "-T", "--temporary-directory", "--files0-from", "--random-source"},
	"wc":           {"--files0-from"},
	"du":           {"--files0-from", "-X", "--exclude-from"},
	"md5sum":       {"-c", "--check"},
	"sha256sum":    {"-c", "--check"},
	"file":         {"-f", "--files-from", "-m", "--magic-file", "-C", "--compile", "-z", "--uncompress", "-Z"},
	"date":         {"-f", "--file", "-s", "--set"},
	"jq":           {"--rawfile", "--slurpfile", "--argfile", "-L", "--run-tests", "-f", "--from-file"},
	"tree":         {"-o", "-R", "--fromfile", "--infofile", "--gitfile", "--hintro", "--houtro"},
	"tail":         {"-f", "--follow", "-F"},
	"grep":         {"-f", "--file", "--exclude-from"},
	"diff":         {"-l", "--paginate", "--from-file", "--to-file", "-X", "--exclude-from"},
	"rg":           {"--pre", "-z", "--search-zip", "-f", "--file", "--ignore-file"},
	"git":          {"-c", "--config-env", "--exec-path", "-p", "--paginate", "--git-dir", "--work-tree"},
	"git log":      {"--output", "--ext-diff", "--textconv", "-O", "--show-signature"},
	"git show":     {"--output", "--ext-diff", "--textconv", "-O"},
	"git diff":     {"--output", "--ext-diff", "--textconv", "-O"},
	"git shortlog": {"--output", "--ext-diff"},
	"git blame":    {"--contents", "-S", "--ignore-revs-file"},
	"git grep":     {"-O", "--open-files-in-pager", "-f", "--textconv", "--no-index"},
	"git ls-files": {"-X", "--exclude-from"},
}

// TestDangerousOptionsAreNeverSafe: the tables class every option of
// dangerousOptions as reading, writing, running or needing a human.
func TestDangerousOptionsAreNeverSafe(t *testing.T) {
	for prog, names := range dangerousOptions {
		g := grammarOf(t, prog)
		for _, n := range names {
			var idx int
			var ok bool
			if strings.HasPrefix(n, "--") {
				idx, ok = g.long[n[2:]]
			} else {
				idx, ok = g.short[n[1]]
			}
			if !ok {
				continue // unknown: never allowed
			}
			assert.NotZero(t, g.opts[idx].eff&(valueRoles|effAsk|effDeny|effSelf|effOperandNames|effProgFile), "%s %s is classed known safe", prog, n)
		}
	}
}
