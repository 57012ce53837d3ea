package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/server/agent"
)

// maxGateLine bounds one input line of `pp-lsp gate`; a longer line is
// denied and skipped to its newline without being held in memory.
const maxGateLine = 8 << 20

// runGate reads JSON-lines actions on stdin and writes one verdict per line
// on stdout, in order, flushed per line (DESIGN §6). A line that is not an
// action is a validator deny; only bad usage (exit 2) or a failed read or
// write (exit 1) ends the command early.
func runGate(ctx context.Context, c *cli, args []string) error {
	fl := newFlagSet("gate", "pp-lsp gate [--root DIR] [--config FILE]")
	root := fl.String("root", ".", "the memex root `DIR`; relative paths in actions start here")
	cfgFlag := fl.String("config", "", "the configuration `FILE` (default $XDG_CONFIG_HOME/passepartout/config.json)")
	log, err := fl.parseLogged(c, args)
	if err != nil {
		return err
	}
	if fl.NArg() > 0 {
		return usageErrorf("unexpected argument %q (actions come on stdin)", fl.Arg(0))
	}
	if fi, err := os.Stat(*root); err != nil || !fi.IsDir() {
		return usageErrorf("--root %s is not a folder", *root)
	}
	world := gates.DefaultWorld(c.getenv, []string{*root})
	cfgPath, optional := *cfgFlag, false
	if cfgPath == "" {
		cfgPath, optional = filepath.Join(world.ConfigDir, "config.json"), true
	}
	sections, err := agent.ReadConfigFile(cfgPath, optional)
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	if _, err := os.Stat(cfgPath); err == nil {
		world.ConfigFile = cfgPath
	}
	// The folder of conversations, as the server places it: the
	// environment (DefaultWorld read it) over the "agent" section.
	ac, err := agent.ParseConfig(sections.Agent)
	if err != nil {
		return usageErrorf("%s: %v", cfgPath, err)
	}
	if ac.ChatDir != "" && c.getenv(agent.EnvChatDir) == "" {
		if !filepath.IsLocal(ac.ChatDir) {
			return usageErrorf("%s: the chat folder %q is not a relative path inside the first root", cfgPath, ac.ChatDir)
		}
		world.ChatDir = filepath.Join(*root, ac.ChatDir)
	}
	cfg := gates.DefaultConfig()
	if len(sections.Gates) > 0 {
		if cfg, err = gates.ParseConfig(sections.Gates); err != nil {
			return usageErrorf("%s: %v", cfgPath, err)
		}
	}
	stack, err := gates.New(cfg, gates.WithTools(gates.BuiltinTools()), gates.WithLogger(log))
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	// The privacy and self-modification vectors need the memex: which nodes
	// are private, which file holds an ID. No embeddings, no store.
	memex, err := memory.Open(ctx, memory.Options{Roots: world.Roots, Home: world.Home, Logger: log})
	if err != nil {
		return fmt.Errorf("cannot index the memex: %w", err)
	}
	defer memex.Close(context.WithoutCancel(ctx))
	world.Memex = memex.Snapshot()
	vaultPath := cfg.Vault
	if vaultPath == "" {
		vaultPath = gates.DefaultVaultPath(world)
	}
	if v, err := gates.OpenVault(vaultPath); err == nil {
		world.Vault = v
	} else if !errors.Is(err, fs.ErrNotExist) {
		world.VaultErr = err
		log.Error("the vault is refused: every action is denied until it is fixed", "err", err)
	}
	env, err := stack.NewEnv(ctx, world)
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	defer env.Close()
	return gateLines(ctx, stack, env, c.stdin, c.stdout)
}

// gateLines is the read–check–write loop.
func gateLines(ctx context.Context, stack *gates.Stack, env *gates.Env, in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriter(out)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, tooLong, err := readLine(r, maxGateLine)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("cannot read stdin: %w", err)
		}
		if errors.Is(err, io.EOF) && len(line) == 0 && !tooLong {
			return nil
		}
		var v gates.Verdict
		switch {
		case tooLong:
			v = stack.Malformed(fmt.Errorf("the line is longer than %d bytes", maxGateLine))
		case !utf8.Valid(line):
			v = stack.Malformed(errors.New("the line is not valid UTF-8"))
		default:
			v = stack.CheckJSON(ctx, line, env)
		}
		data, merr := json.Marshal(v)
		if merr != nil {
			return fmt.Errorf("cannot encode a verdict: %w", merr)
		}
		data = append(data, '\n')
		if _, werr := w.Write(data); werr != nil {
			return fmt.Errorf("cannot write stdout: %w", werr)
		}
		if werr := w.Flush(); werr != nil {
			return fmt.Errorf("cannot write stdout: %w", werr)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
	}
}

// readLine returns the next line without its newline. A line over max
// bytes is consumed to its end and reported as tooLong with no content, so
// memory stays bounded whatever the input.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, e := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case e == nil:
			if !tooLong {
				line = line[:len(line)-1]
			}
			return line, tooLong, nil
		case errors.Is(e, bufio.ErrBufferFull):
			continue
		default:
			return line, tooLong, e
		}
	}
}
