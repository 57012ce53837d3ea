package providers

import (
	"fmt"
	"log/slog"
	"strings"
)

// Vault holds secrets by name. The gates package's vault satisfies it; a
// nil Vault means there is none.
type Vault interface {
	Get(name string) (string, error)
}

// Options is what the providers need from the outside world. The zero value
// works: no environment, no vault, slog's default logger.
type Options struct {
	// Getenv reads the environment (os.Getenv in the binary, a map in tests).
	Getenv func(string) string
	Vault  Vault
	Logger *slog.Logger
}

func (o Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}

// discardLogger is for work whose log lines would only repeat what its
// result says (doctor's probes).
func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func (o Options) getenv(name string) string {
	if o.Getenv == nil {
		return ""
	}
	return o.Getenv(name)
}

// keyRef says where one provider's key comes from.
type keyRef struct {
	env      string // an environment variable's name
	vault    string // a vault entry's name
	fallback bool   // the kind's default: the vault's entry of env's name, then env
	required bool   // the API refuses requests without one
}

// keyRefFor returns where a provider of kind looks for its key.
func keyRefFor(kind, keyEnv, keyVault string) keyRef {
	switch {
	case keyEnv != "":
		return keyRef{env: keyEnv, required: kind == ProviderAnthropic}
	case keyVault != "":
		return keyRef{vault: keyVault, required: kind == ProviderAnthropic}
	case kind == ProviderOpenAI:
		return keyRef{env: EnvOpenAIKey, fallback: true}
	case kind == ProviderAnthropic:
		return keyRef{env: EnvAnthropicKey, fallback: true, required: true}
	}
	return keyRef{}
}

// where names the key's source for a person ("OPENAI_API_KEY", "vault
// entry \"work\""), never its value.
func (k keyRef) where() string {
	switch {
	case k.vault != "":
		return fmt.Sprintf("vault entry %q", k.vault)
	case k.fallback:
		return fmt.Sprintf("%s (environment, or the vault entry of that name)", k.env)
	case k.env != "":
		return k.env
	}
	return "no key"
}

// resolve returns the key, "" when there is none. An error means a source
// was named and could not be read; its text never holds a key.
func (k keyRef) resolve(o Options) (string, error) {
	switch {
	case k.vault != "":
		if o.Vault == nil {
			return "", fmt.Errorf("the key is the vault entry %q, but no vault is open", k.vault)
		}
		v, err := o.Vault.Get(k.vault)
		if err != nil {
			return "", fmt.Errorf("reading the key from vault entry %q: %w", k.vault, err)
		}
		return strings.TrimSpace(v), nil
	case k.fallback && o.Vault != nil:
		if v, err := o.Vault.Get(k.env); err == nil && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v), nil
		}
	}
	if k.env != "" {
		return strings.TrimSpace(o.getenv(k.env)), nil
	}
	return "", nil
}
