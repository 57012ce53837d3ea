package providers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The provider kinds.
const (
	ProviderOllama    = "ollama"
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
	ProviderReplay    = "replay"
)

// The default base URLs, as each API's own clients take them.
const (
	DefaultOllamaBaseURL    = "http://127.0.0.1:11434"
	DefaultOpenAIBaseURL    = "https://api.openai.com/v1"
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
)

// The environment variables this package reads.
const (
	EnvProviders        = "PASSEPARTOUT_PROVIDERS"
	EnvOpenAIKey        = "OPENAI_API_KEY"
	EnvAnthropicKey     = "ANTHROPIC_API_KEY"
	EnvEmbeddingKind    = "EMBEDDING_PROVIDER"
	EnvEmbeddingModel   = "EMBEDDING_MODEL"
	EnvEmbeddingBaseURL = "EMBEDDING_BASE_URL"
)

// Config is the providers' part of the one configuration schema (DESIGN
// §11). Its JSON form is what the config file's "providers" object holds;
// the environment is laid over it by ApplyEnv.
type Config struct {
	// Providers is the cascade, in order.
	Providers []ProviderConfig `json:"providers,omitempty"`
	// Rules is the model selector: the first rule that matches a request
	// names the providers (and models) to try; no match means all of
	// Providers, in order.
	Rules []Rule `json:"rules,omitempty"`
	// Consensus, when 2 or more, is how many providers must propose the same
	// action (Cascade.Consensus); 0 or 1 is off.
	Consensus int       `json:"consensus,omitempty"`
	Timeouts  Timeouts  `json:"timeouts,omitzero"`
	Embedding Embedding `json:"embedding,omitzero"`
}

// ProviderConfig is one provider of the cascade.
type ProviderConfig struct {
	// Kind is ollama, openai, anthropic or replay.
	Kind string `json:"kind"`
	// Model is the model's name as its API knows it (empty for replay).
	Model string `json:"model,omitempty"`
	// BaseURL is the API's base; empty means the kind's default.
	BaseURL string `json:"base_url,omitempty"`
	// File is the replay transcript (replay only).
	File string `json:"file,omitempty"`
	// KeyEnv names the environment variable holding the key; KeyVault names
	// the vault entry. At most one; neither means the kind's default
	// (OPENAI_API_KEY, ANTHROPIC_API_KEY; none for ollama).
	KeyEnv   string `json:"key_env,omitempty"`
	KeyVault string `json:"key_vault,omitempty"`
	// Alias is an optional short name rules may use instead of Name().
	Alias string `json:"alias,omitempty"`
	// Local marks a provider whose model runs on this machine, which may
	// see a private conversation's history (DESIGN §13). Unset means: an
	// Ollama on a loopback address, or a replay transcript.
	Local *bool `json:"local,omitempty"`
}

// IsLocal reports whether the provider counts as local (see Local).
func (p ProviderConfig) IsLocal() bool {
	if p.Local != nil {
		return *p.Local
	}
	switch p.Kind {
	case ProviderReplay:
		return true
	case ProviderOllama:
		return isLoopback(p.baseURL())
	}
	return false
}

// Name is the provider's identity in logs and answers:
// "kind:model@base_url", or "replay:FILE".
func (p ProviderConfig) Name() string {
	if p.Kind == ProviderReplay {
		return ProviderReplay + ":" + p.File
	}
	return p.Kind + ":" + p.Model + "@" + p.baseURL()
}

// baseURL is BaseURL or the kind's default, without a trailing slash.
func (p ProviderConfig) baseURL() string {
	if p.BaseURL != "" {
		return strings.TrimRight(p.BaseURL, "/")
	}
	switch p.Kind {
	case ProviderOllama:
		return DefaultOllamaBaseURL
	case ProviderOpenAI:
		return DefaultOpenAIBaseURL
	case ProviderAnthropic:
		return DefaultAnthropicBaseURL
	}
	return ""
}

// Validate checks one provider's settings and says what is wrong with them.
func (p ProviderConfig) Validate() error {
	switch p.Kind {
	case ProviderReplay:
		if p.File == "" {
			return errors.New("a replay provider needs its transcript file (replay:FILE)")
		}
		return nil
	case ProviderOllama, ProviderOpenAI, ProviderAnthropic:
	default:
		return fmt.Errorf("provider kind %q is not one of ollama, openai, anthropic, replay", p.Kind)
	}
	if strings.TrimSpace(p.Model) == "" {
		return fmt.Errorf("the %s provider needs a model (%s:MODEL)", p.Kind, p.Kind)
	}
	if p.KeyEnv != "" && p.KeyVault != "" {
		return fmt.Errorf("provider %s names both key_env and key_vault; keep one", p.Name())
	}
	if p.BaseURL != "" {
		if err := checkBaseURL(p.BaseURL); err != nil {
			return err
		}
	}
	return nil
}

func checkBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("base URL %q is not an http:// or https:// URL", s)
	}
	if u.User != nil {
		return fmt.Errorf("base URL %q holds credentials; give the key with #env:VAR or #vault:ENTRY instead", u.Redacted())
	}
	return nil
}

// userinfo finds credentials in a URL ("http://user:pw@host"), which an
// error must not repeat.
var userinfo = regexp.MustCompile(`(https?://)[^/@\s]*@`)

// ParseProviders reads PASSEPARTOUT_PROVIDERS: comma-separated entries
// "kind:model[@base_url][#env:VAR|#vault:ENTRY]" or "replay:FILE". Empty
// entries (a trailing comma) are skipped; any other mistake is an error
// naming the entry.
func ParseProviders(s string) ([]ProviderConfig, error) {
	var out []ProviderConfig
	for raw := range strings.SplitSeq(s, ",") {
		entry := strings.TrimSpace(raw)
		if entry == "" {
			continue
		}
		pc, err := parseEntry(entry)
		if err != nil {
			return nil, fmt.Errorf("%s entry %q: %w", EnvProviders, userinfo.ReplaceAllString(entry, "$1…@"), err)
		}
		out = append(out, pc)
	}
	return out, nil
}

func parseEntry(entry string) (ProviderConfig, error) {
	kind, rest, ok := strings.Cut(entry, ":")
	kind = strings.ToLower(strings.TrimSpace(kind))
	if !ok {
		return ProviderConfig{}, errors.New("want kind:model[@base_url] or replay:FILE")
	}
	if kind == ProviderReplay {
		pc := ProviderConfig{Kind: ProviderReplay, File: rest}
		return pc, pc.Validate()
	}
	pc := ProviderConfig{Kind: kind}
	if i := strings.LastIndexByte(rest, '#'); i >= 0 {
		ref := rest[i+1:]
		rest = rest[:i]
		switch {
		case strings.HasPrefix(ref, "env:") && len(ref) > len("env:"):
			pc.KeyEnv = ref[len("env:"):]
		case strings.HasPrefix(ref, "vault:") && len(ref) > len("vault:"):
			pc.KeyVault = ref[len("vault:"):]
		default:
			return ProviderConfig{}, fmt.Errorf("key reference %q is neither #env:VAR nor #vault:ENTRY", "#"+ref)
		}
	}
	at := -1
	for _, scheme := range []string{"@http://", "@https://"} {
		if i := strings.Index(rest, scheme); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	switch {
	case at >= 0:
		pc.Model, pc.BaseURL = rest[:at], strings.TrimRight(rest[at+1:], "/")
	case strings.Contains(rest, "@"):
		return ProviderConfig{}, errors.New("the base URL after @ must start with http:// or https://")
	default:
		pc.Model = rest
	}
	return pc, pc.Validate()
}

// Rule is one rule of the model selector. A rule matches a request when its
// Task is empty or equal to the request's, and the request's estimated
// prompt size (EstimateTokens) is within [MinPromptTokens, MaxPromptTokens]
// (0 means unbounded above).
type Rule struct {
	Task            string  `json:"task,omitempty"`
	MinPromptTokens int     `json:"min_prompt_tokens,omitempty"`
	MaxPromptTokens int     `json:"max_prompt_tokens,omitempty"`
	Use             []Route `json:"use"`
}

// Route names providers to try and, optionally, the model to ask them for.
// Provider matches a provider's Name(), its Alias, "kind:model", or its
// kind alone (then every provider of that kind, in cascade order).
type Route struct {
	Provider string `json:"provider"`
	Model    string `json:"model,omitempty"`
}

// Timeouts bound each attempt. Zero fields take the defaults.
type Timeouts struct {
	// Connect bounds the TCP (and TLS) connection.
	Connect Duration `json:"connect,omitzero"`
	// FirstOutput bounds the time from sending the request to the first
	// piece of the answer (a model that loads slowly or never answers).
	FirstOutput Duration `json:"first_output,omitzero"`
	// Stall bounds the silence between two pieces of an answer once it has
	// started.
	Stall Duration `json:"stall,omitzero"`
	// Total bounds one attempt from request to the end of its answer.
	Total Duration `json:"total,omitzero"`
	// RetryAfterCap is the longest the cascade waits, summed over retries,
	// for a provider that answered 429 with Retry-After; beyond it, it falls
	// through to the next provider.
	RetryAfterCap Duration `json:"retry_after_cap,omitzero"`
}

// The default timeouts. A local model may need a minute to load before its
// first token; a whole answer is rarely longer than a few minutes.
const (
	DefaultConnectTimeout     = 5 * time.Second
	DefaultFirstOutputTimeout = 90 * time.Second
	DefaultStallTimeout       = 60 * time.Second
	DefaultTotalTimeout       = 5 * time.Minute
	DefaultRetryAfterCap      = 10 * time.Second
)

// withDefaults fills the zero fields.
func (t Timeouts) withDefaults() Timeouts {
	fill := func(d *Duration, def time.Duration) {
		if *d <= 0 {
			*d = Duration(def)
		}
	}
	fill(&t.Connect, DefaultConnectTimeout)
	fill(&t.FirstOutput, DefaultFirstOutputTimeout)
	fill(&t.Stall, DefaultStallTimeout)
	fill(&t.Total, DefaultTotalTimeout)
	fill(&t.RetryAfterCap, DefaultRetryAfterCap)
	return t
}

// Duration is a time.Duration that reads from JSON as "90s"/"2m" or as a
// number of seconds, and writes as "90s".
type Duration time.Duration

// UnmarshalJSON reads "1m30s" or 90.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("duration %q: want a Go duration like \"90s\" or a number of seconds", s)
		}
		*d = Duration(v)
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("duration %s: want a Go duration like \"90s\" or a number of seconds", b)
	}
	*d = Duration(f * float64(time.Second))
	return nil
}

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// Embedding selects the embedder (EMBEDDING_PROVIDER, EMBEDDING_MODEL,
// EMBEDDING_BASE_URL).
type Embedding struct {
	// Kind is trigram (the default; memory's own), ollama or openai.
	Kind     string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	BaseURL  string `json:"base_url,omitempty"`
	KeyEnv   string `json:"key_env,omitempty"`
	KeyVault string `json:"key_vault,omitempty"`
	// BatchSize is how many texts go in one request (default 64).
	BatchSize int `json:"batch_size,omitempty"`
}

// ApplyEnv lays the environment over c (DESIGN §11: later sources win). A
// set PASSEPARTOUT_PROVIDERS replaces the whole cascade; the EMBEDDING_*
// variables replace their fields. A parse error names the offending entry
// and leaves c unchanged.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	if getenv == nil {
		return nil
	}
	if s := strings.TrimSpace(getenv(EnvProviders)); s != "" {
		ps, err := ParseProviders(s)
		if err != nil {
			return err
		}
		c.Providers = ps
	}
	if v := strings.TrimSpace(getenv(EnvEmbeddingKind)); v != "" {
		c.Embedding.Kind = strings.ToLower(v)
	}
	if v := strings.TrimSpace(getenv(EnvEmbeddingModel)); v != "" {
		c.Embedding.Model = v
	}
	if v := strings.TrimSpace(getenv(EnvEmbeddingBaseURL)); v != "" {
		c.Embedding.BaseURL = v
	}
	return nil
}

// Validate checks the whole configuration: every provider, and that every
// rule names configured providers.
func (c Config) Validate() error {
	for i, p := range c.Providers {
		if err := p.Validate(); err != nil {
			return fmt.Errorf("provider %d: %w", i+1, err)
		}
	}
	for i, r := range c.Rules {
		if len(r.Use) == 0 {
			return fmt.Errorf("selector rule %d uses no provider", i+1)
		}
		if r.MaxPromptTokens != 0 && r.MaxPromptTokens < r.MinPromptTokens {
			return fmt.Errorf("selector rule %d: max_prompt_tokens %d is below min_prompt_tokens %d", i+1, r.MaxPromptTokens, r.MinPromptTokens)
		}
		for _, route := range r.Use {
			if len(matchRoute(c.Providers, route.Provider)) == 0 {
				return fmt.Errorf("selector rule %d names provider %q, which is not configured", i+1, route.Provider)
			}
		}
	}
	if c.Consensus < 0 {
		return fmt.Errorf("consensus %d must be 0 (off) or at least 2", c.Consensus)
	}
	return nil
}
