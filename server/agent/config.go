package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"time"

	"pp-lsp/gates"
	"pp-lsp/internal/plainerr"
	"pp-lsp/internal/regfile"
	"pp-lsp/server/actuate"
	"pp-lsp/server/actuate/sandbox"
	"pp-lsp/server/chat"
	"pp-lsp/server/protect"
)

// The environment variables the agent reads (DESIGN §11).
const (
	EnvAssistant = "MEMEX_ASSISTANT"
	EnvHeartbeat = "HEARTBEAT_INTERVAL"
	EnvLogLimit  = "CONTEXT_LOG_LIMIT"
	EnvBudget    = "CONTEXT_BUDGET"
	// EnvChatBudget is the tokens of earlier turns sent with a follow-up
	// (DESIGN §13).
	EnvChatBudget = "CHAT_BUDGET"
	// EnvChatDir is the folder of conversations under the first root (the
	// chatDir setting).
	EnvChatDir = gates.EnvChatDir
)

// Config is the "agent" section of the configuration file, with the
// environment laid over it. Every field has a working default.
type Config struct {
	// Assistant is the assistant's name in the prompt (MEMEX_ASSISTANT).
	Assistant string `json:"assistant,omitempty"`
	// HeartbeatSeconds is the heartbeat's period (HEARTBEAT_INTERVAL).
	HeartbeatSeconds int `json:"heartbeat_interval,omitempty"`
	// LogLimit is how many log lines the prompt shows (CONTEXT_LOG_LIMIT).
	LogLimit *int `json:"log_limit,omitempty"`
	// Budget is the context's token budget (CONTEXT_BUDGET).
	Budget int `json:"context_budget,omitempty"`
	// ChatBudget is the tokens of a conversation's earlier turns sent with
	// a follow-up (CHAT_BUDGET); ChatDir the folder of conversations,
	// relative to the first root (the chatDir setting).
	ChatBudget int    `json:"chat_budget,omitempty"`
	ChatDir    string `json:"chat_dir,omitempty"`
	// ShellTimeout, EvalTimeout and HTTPTimeout bound actions, in seconds.
	ShellTimeout int `json:"shell_timeout,omitempty"`
	EvalTimeout  int `json:"eval_timeout,omitempty"`
	HTTPTimeout  int `json:"http_timeout,omitempty"`
	// OutputCap bounds the output kept of one action, in bytes.
	OutputCap int `json:"output_cap,omitempty"`
	// Channels are the ways send may deliver a message.
	Channels map[string]actuate.Channel `json:"channels,omitempty"`
	// Interpreters add or replace eval's languages.
	Interpreters map[string][]string `json:"interpreters,omitempty"`
	// Sandbox is how shell and eval commands are confined (DESIGN §12):
	// "required" (the default where the kernel has Landlock),
	// "best-effort" or "off" (PASSEPARTOUT_SANDBOX).
	Sandbox string `json:"sandbox,omitempty"`
	// SandboxCPUSeconds, SandboxMaxFileBytes, SandboxMaxProcesses and
	// SandboxMaxMemoryBytes bound each confined command and process
	// (defaults: 60 s, 256 MiB, 256, 1 GiB); SandboxMaxDiskBytes and
	// SandboxMaxNewFiles what a command may take of the disk while it runs
	// (defaults 1 GiB, 100,000 files; see sandbox.Limits).
	SandboxCPUSeconds     int   `json:"sandbox_cpu_seconds,omitempty"`
	SandboxMaxFileBytes   int64 `json:"sandbox_max_file_bytes,omitempty"`
	SandboxMaxProcesses   int   `json:"sandbox_max_processes,omitempty"`
	SandboxMaxMemoryBytes int64 `json:"sandbox_max_memory_bytes,omitempty"`
	SandboxMaxDiskBytes   int64 `json:"sandbox_max_disk_bytes,omitempty"`
	SandboxMaxNewFiles    int64 `json:"sandbox_max_new_files,omitempty"`
	// CheckpointCap bounds the bytes the undo checkpoints keep together
	// (default checkpoint.DefaultCap, 64 MiB); the oldest go first.
	CheckpointCap int `json:"checkpoint_cap,omitempty"`
}

// The defaults.
const (
	DefaultAssistant = "Passepartout"
	DefaultHeartbeat = 60
	DefaultLogLimit  = 20
	DefaultBudget    = 4000
)

// ParseConfig reads the "agent" section (the JSON object under "agent").
// Unknown keys and wrong types are errors naming the key.
func ParseConfig(section []byte) (Config, error) {
	var c Config
	if len(bytes.TrimSpace(section)) == 0 {
		return c, nil
	}
	dec := json.NewDecoder(bytes.NewReader(section))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, plainerr.JSON("the \"agent\" section", section, err)
	}
	if _, err := sandbox.ParseMode(c.Sandbox); err != nil {
		return Config{}, fmt.Errorf("the \"agent\" section of the configuration: %w", err)
	}
	if c.CheckpointCap < 0 {
		return Config{}, errors.New("the \"agent\" section of the configuration: checkpoint_cap must be positive")
	}
	if c.SandboxCPUSeconds < 0 || c.SandboxMaxFileBytes < 0 || c.SandboxMaxProcesses < 0 ||
		c.SandboxMaxMemoryBytes < 0 || c.SandboxMaxDiskBytes < 0 || c.SandboxMaxNewFiles < 0 {
		return Config{}, errors.New("the \"agent\" section of the configuration: the sandbox limits must be positive")
	}
	return c, nil
}

// ApplyEnv lays the environment over c. A malformed number is an error
// naming the variable.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	if v := getenv(EnvAssistant); v != "" {
		c.Assistant = v
	}
	if v := getenv(EnvChatDir); v != "" {
		if !filepath.IsLocal(v) {
			return fmt.Errorf("%s=%q is not a relative folder inside the first root", EnvChatDir, v)
		}
		c.ChatDir = v
	}
	if v := getenv(sandbox.EnvMode); v != "" {
		if _, err := sandbox.ParseMode(v); err != nil {
			return fmt.Errorf("%s: %w", sandbox.EnvMode, err)
		}
		c.Sandbox = v
	}
	num := func(name string, dst *int, min int) error {
		v := getenv(name)
		if v == "" {
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < min {
			return fmt.Errorf("%s=%q is not a whole number of at least %d", name, v, min)
		}
		*dst = n
		return nil
	}
	var limit int = -1
	if err := errors.Join(num(EnvHeartbeat, &c.HeartbeatSeconds, 1), num(EnvLogLimit, &limit, 0), num(EnvBudget, &c.Budget, 100), num(EnvChatBudget, &c.ChatBudget, 1)); err != nil {
		return err
	}
	if limit >= 0 {
		c.LogLimit = &limit
	}
	return nil
}

// withDefaults fills what is unset.
func (c Config) withDefaults() Config {
	if c.Assistant == "" {
		c.Assistant = DefaultAssistant
	}
	if c.HeartbeatSeconds <= 0 {
		c.HeartbeatSeconds = DefaultHeartbeat
	}
	if c.LogLimit == nil {
		n := DefaultLogLimit
		c.LogLimit = &n
	}
	if c.Budget <= 0 {
		c.Budget = DefaultBudget
	}
	if c.ChatBudget == 0 {
		c.ChatBudget = chat.DefaultBudget
	}
	if c.ChatDir == "" {
		c.ChatDir = chat.DefaultDir
	}
	return c
}

// Heartbeat is the heartbeat's period.
func (c Config) Heartbeat() time.Duration {
	return time.Duration(c.withDefaults().HeartbeatSeconds) * time.Second
}

// sandboxConfig is the sandbox's part of the actuators' configuration:
// the mode, the limits and the places no command may touch.
func (c Config) sandboxConfig(protected ...string) sandbox.Config {
	return sandbox.Config{
		Mode: sandbox.Mode(c.Sandbox),
		Limits: sandbox.Limits{
			CPU:      time.Duration(c.SandboxCPUSeconds) * time.Second,
			FileSize: c.SandboxMaxFileBytes, Processes: c.SandboxMaxProcesses,
			Memory: c.SandboxMaxMemoryBytes, Disk: c.SandboxMaxDiskBytes, NewFiles: c.SandboxMaxNewFiles,
		},
		Protected: protected,
	}
}

func (c Config) actuatorLimits() (shell, eval, http actuate.Limits) {
	sec := func(n int) time.Duration { return time.Duration(n) * time.Second }
	return actuate.Limits{Timeout: sec(c.ShellTimeout), OutputCap: c.OutputCap},
		actuate.Limits{Timeout: sec(c.EvalTimeout), OutputCap: c.OutputCap},
		actuate.Limits{Timeout: sec(c.HTTPTimeout), OutputCap: c.OutputCap}
}

// FileSections are the top-level sections of the one configuration file,
// each read by the package that owns it.
type FileSections struct {
	Gates     json.RawMessage `json:"gates"`
	Providers json.RawMessage `json:"providers"`
	Agent     json.RawMessage `json:"agent"`
}

// ReadConfigFile reads the configuration file's sections. A missing file
// is no configuration when optional is set, an error otherwise.
func ReadConfigFile(path string, optional bool) (FileSections, error) {
	var s FileSections
	data, err := readUsersOwn(path)
	if errors.Is(err, fs.ErrNotExist) && optional {
		return s, nil
	}
	if errors.Is(err, errOthersMayWrite) {
		return s, err
	}
	if err != nil {
		return s, plainerr.File("read", "the configuration file", path, err)
	}
	s, err = configSections(data)
	if err != nil {
		return s, plainerr.JSON("the configuration file "+path, data, err)
	}
	return s, nil
}

// errOthersMayWrite is wrapped when the configuration file could have been
// written by another user.
var errOthersMayWrite = errors.New("refused")

// maxConfigBytes bounds the configuration file read.
const maxConfigBytes = 8 << 20

// readUsersOwn reads the configuration file, refusing one another user
// owns or may write (protect.OnlyTheUserWrites): its rules could allow
// any action. Only a regular file is read, and it is judged as opened
// (regfile): a FIFO or a device at its place is refused at once, never
// waited on.
func readUsersOwn(path string) ([]byte, error) {
	f, fi, err := regfile.Open(path, true)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := protect.OnlyTheUserWrites(path, fi); err != nil {
		return nil, fmt.Errorf("the configuration file is %w: %w", errOthersMayWrite, err)
	}
	return regfile.ReadAll(f, maxConfigBytes)
}

// configSections reads a configuration file's text into its sections.
func configSections(data []byte) (FileSections, error) {
	var s FileSections
	err := json.Unmarshal(data, &s)
	return s, err
}
