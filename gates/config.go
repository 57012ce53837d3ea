package gates

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"pp-lsp/internal/plainerr"
)

// Config is the "gates" section of the one configuration file
// ($XDG_CONFIG_HOME/passepartout/config.json or --config, DESIGN §11).
// Every field has a default that is useful on day one (DefaultConfig);
// gates/README.md documents each with examples.
type Config struct {
	// Default is the answer for an action no permission rule matches:
	// "ask" (the default) or "deny". "allow" is refused: nothing is allowed
	// because nobody thought about it.
	Default string `json:"default"`
	// Permissions holds the user's rules, added to the built-in ones and
	// checked deny → ask → allow.
	Permissions PermissionRules `json:"permissions"`
	// Network is the egress allowlist.
	Network NetworkConfig `json:"network"`
	// Privacy names the tags that make a node private.
	Privacy PrivacyConfig `json:"privacy"`
	// Limits bounds the size of actions and the rate of executed ones.
	Limits Limits `json:"limits"`
	// Vault is the credential vault's path; "" means
	// $XDG_CONFIG_HOME/passepartout/vault.json.
	Vault string `json:"vault"`
}

// PermissionRules are rules like `shell(git log:*)`, `file_write(notes/**)`
// or `http(https://api.example.com/*)`, by decision.
type PermissionRules struct {
	Allow []string `json:"allow"`
	Ask   []string `json:"ask"`
	Deny  []string `json:"deny"`
}

// NetworkConfig is the egress allowlist: host patterns ("api.example.com",
// "*.example.com") that http actions and network commands may reach without
// approval. Default is "ask" or "deny" for every other host.
type NetworkConfig struct {
	Allow   []string `json:"allow"`
	Default string   `json:"default"`
}

// PrivacyConfig lists the privacy tags (default "@personal" and "private").
type PrivacyConfig struct {
	Tags []string `json:"tags"`
}

// Limits bounds sizes (bytes, checked on every action) and rates (actions
// per minute, counted over the actions recorded as executed).
type Limits struct {
	MaxArgBytes    int            `json:"max_arg_bytes"`
	MaxActionBytes int            `json:"max_action_bytes"`
	PerMinute      int            `json:"per_minute"`
	ToolPerMinute  map[string]int `json:"tool_per_minute"`
}

// DefaultConfig is the configuration used when the file has no "gates"
// section, and the base every section is merged onto.
func DefaultConfig() Config {
	return Config{
		Default: "ask",
		Network: NetworkConfig{Default: "ask"},
		Privacy: PrivacyConfig{Tags: []string{"@personal", "private"}},
		Limits: Limits{
			MaxArgBytes:    1 << 20,
			MaxActionBytes: 1<<20 + 64<<10,
			PerMinute:      60,
			ToolPerMinute:  map[string]int{"send": 10, "http": 30, "shell": 30, "eval": 10},
		},
	}
}

// ParseConfig reads a gates section (the JSON object under "gates") onto
// the defaults. Unknown keys, wrong types and invalid rules are errors
// naming the key at fault.
func ParseConfig(section []byte) (Config, error) {
	cfg := DefaultConfig()
	dec := json.NewDecoder(bytes.NewReader(section))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return Config{}, plainerr.JSON("the gates configuration", section, err)
	}
	if dec.More() {
		return Config{}, errors.New("gates configuration: trailing data after the object")
	}
	if err := cfg.validate(); err != nil {
		return Config{}, fmt.Errorf("gates configuration: %w", err)
	}
	return cfg, nil
}

// LoadConfig reads the gates section of a whole configuration file. Other
// top-level sections belong to other packages and are not looked at; a
// missing "gates" section is the defaults. The file must exist.
func LoadConfig(path string) (Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return Config{}, fmt.Errorf("configuration file %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 16<<20))
	if err != nil {
		return Config{}, fmt.Errorf("configuration file %s: %w", path, err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return Config{}, fmt.Errorf("configuration file %s is not a JSON object: %w", path, err)
	}
	section, ok := top["gates"]
	if !ok {
		return DefaultConfig(), nil
	}
	cfg, err := ParseConfig(section)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// validate checks the configuration; tool names (the rate limits' and the
// permission rules') are checked against the builtin tools, and again
// against a stack's own tools when it is built (WithTools).
func (c *Config) validate() error {
	switch c.Default {
	case "ask", "deny":
	default:
		return fmt.Errorf("default must be \"ask\" or \"deny\", not %q", c.Default)
	}
	switch c.Network.Default {
	case "ask", "deny":
	default:
		return fmt.Errorf("network.default must be \"ask\" or \"deny\", not %q", c.Network.Default)
	}
	for _, h := range c.Network.Allow {
		if h == "" || strings.ContainsAny(h, "/:@ ") || strings.Contains(h[1:], "*") {
			return fmt.Errorf("network.allow: %q is not a host pattern (a host, or *.host)", h)
		}
	}
	for _, t := range c.Privacy.Tags {
		if t == "" || strings.ContainsAny(t, ": \t") {
			return fmt.Errorf("privacy.tags: %q is not an Org tag", t)
		}
	}
	if c.Limits.MaxArgBytes <= 0 || c.Limits.MaxActionBytes <= 0 || c.Limits.PerMinute < 0 {
		return errors.New("limits: sizes must be positive and rates not negative")
	}
	tools := BuiltinTools()
	for tool, n := range c.Limits.ToolPerMinute {
		if _, ok := tools.Parse(tool); !ok {
			return fmt.Errorf("limits.tool_per_minute: unknown tool %q", tool)
		}
		if n < 0 {
			return fmt.Errorf("limits.tool_per_minute.%s must not be negative", tool)
		}
	}
	for decision, rules := range map[string][]string{"allow": c.Permissions.Allow, "ask": c.Permissions.Ask, "deny": c.Permissions.Deny} {
		for _, r := range rules {
			if _, err := parseRule(r, tools); err != nil {
				return fmt.Errorf("permissions.%s: %w", decision, err)
			}
		}
	}
	return nil
}
