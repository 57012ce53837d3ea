package providers

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Status is a diagnosis's verdict.
type Status uint8

// The verdicts: a warning works but deserves a look; a failure will not work.
const (
	StatusOK Status = iota + 1
	StatusWarn
	StatusFail
)

// String is "ok", "warn" or "FAIL" (loud, because it needs fixing).
func (s Status) String() string {
	switch s {
	case StatusOK:
		return "ok"
	case StatusWarn:
		return "warn"
	}
	return "FAIL"
}

// Diagnosis is one line of `pp-lsp doctor`: what was checked, the verdict,
// and in Detail what was found and what to fix. It never holds a key.
type Diagnosis struct {
	Subject string
	Status  Status
	Detail  string
}

// diagnoseTimeouts bound each of doctor's probes: quick, since doctor
// answers a person waiting at a prompt.
func diagnoseTimeouts() Timeouts {
	return Timeouts{
		Connect: Duration(3 * time.Second), FirstOutput: Duration(10 * time.Second),
		Stall: Duration(10 * time.Second), Total: Duration(15 * time.Second),
	}.withDefaults()
}

// Diagnose checks every configured provider — key present (naming where it
// is looked for), server reachable, model present — and the embedder, one
// Diagnosis each, in configuration order: DiagnoseProviders, then
// DiagnoseEmbedder.
func Diagnose(ctx context.Context, cfg Config, opts Options) []Diagnosis {
	var (
		ps []Diagnosis
		e  Diagnosis
		wg sync.WaitGroup
	)
	wg.Go(func() { ps = DiagnoseProviders(ctx, cfg, opts) })
	wg.Go(func() { e = DiagnoseEmbedder(ctx, cfg, opts) })
	wg.Wait()
	return append(ps, e)
}

// DiagnoseProviders checks each configured provider, concurrently, and
// returns one Diagnosis per provider in configuration order. The probes only
// read (the model list). No provider configured is one warning naming
// PASSEPARTOUT_PROVIDERS.
func DiagnoseProviders(ctx context.Context, cfg Config, opts Options) []Diagnosis {
	if len(cfg.Providers) == 0 {
		return []Diagnosis{{
			Subject: "providers", Status: StatusWarn,
			Detail: "none configured: asking a model will fail until " + EnvProviders + " is set (for example ollama:llama3.2, or openai:MODEL@http://127.0.0.1:8080/v1)",
		}}
	}
	t := diagnoseTimeouts()
	out := make([]Diagnosis, len(cfg.Providers))
	var wg sync.WaitGroup
	for i, pc := range cfg.Providers {
		wg.Go(func() { out[i] = diagnoseProvider(ctx, pc, t, opts) })
	}
	wg.Wait()
	return out
}

// modelLister is a provider that can list its server's models.
type modelLister interface {
	Models(ctx context.Context) ([]string, error)
}

func diagnoseProvider(ctx context.Context, pc ProviderConfig, t Timeouts, opts Options) Diagnosis {
	d := Diagnosis{Subject: "provider " + pc.Name()}
	if err := pc.Validate(); err != nil {
		d.Status, d.Detail = StatusFail, err.Error()
		return d
	}
	if pc.Kind == ProviderReplay {
		r, err := LoadReplay(pc.File, Options{Logger: discardLogger()})
		if err != nil {
			d.Status, d.Detail = StatusFail, err.Error()
			return d
		}
		d.Status, d.Detail = StatusOK, fmt.Sprintf("%d entries; answers come from this transcript, not a model", r.Entries())
		return d
	}
	p, err := newProvider(pc, newHTTPClient(t), t, opts)
	if err != nil {
		d.Status, d.Detail = StatusFail, err.Error()
		return d
	}
	ref := keyRefFor(pc.Kind, pc.KeyEnv, pc.KeyVault)
	key, keyErr := ref.resolve(opts)
	keyNote := "no key needed"
	switch {
	case keyErr != nil:
		d.Status, d.Detail = StatusFail, keyErr.Error()
		return d
	case key != "":
		keyNote = "key from " + ref.where()
	case ref.required:
		d.Status, d.Detail = StatusFail, "no API key: set "+ref.where()
		return d
	case ref.env != "":
		keyNote = "no key (" + ref.env + " is unset; a local server needs none)"
	}
	names, err := p.(modelLister).Models(ctx)
	if err != nil {
		d.Status, d.Detail = StatusFail, diagnoseError(pc, ref, err)
		return d
	}
	model := pc.Model
	switch present := modelPresent(pc.Kind, names, model); {
	case present:
		d.Status, d.Detail = StatusOK, fmt.Sprintf("reachable, model %q present, %s", model, keyNote)
	case pc.Kind == ProviderOllama:
		d.Status, d.Detail = StatusFail, fmt.Sprintf("reachable, but model %q is not pulled: run `ollama pull %s`%s", model, model, listed(names))
	default:
		// llama.cpp and others answer with whatever model they loaded, so an
		// unlisted name may still work: a warning, not a failure.
		d.Status, d.Detail = StatusWarn, fmt.Sprintf("reachable, but the server does not list model %q%s; %s", model, listed(names), keyNote)
	}
	if d.Status == StatusOK && pc.Kind == ProviderOpenAI && key == "" && !isLoopback(pc.baseURL()) {
		d.Status, d.Detail = StatusWarn, d.Detail+"; a remote server usually wants a key: set "+ref.where()
	}
	return d
}

// modelPresent matches a configured model against a server's list:
// Ollama's ":latest" rule, and Anthropic's aliases (a dated id starting
// with the alias).
func modelPresent(kind string, names []string, model string) bool {
	if kind == ProviderOllama {
		return hasOllamaModel(names, model)
	}
	for _, n := range names {
		if n == model || (kind == ProviderAnthropic && strings.HasPrefix(n, model+"-")) {
			return true
		}
	}
	return false
}

func listed(names []string) string {
	switch {
	case len(names) == 0:
		return " (it lists none)"
	case len(names) > 8:
		return fmt.Sprintf(" (it lists %s, … %d in all)", strings.Join(names[:8], ", "), len(names))
	}
	return " (it lists " + strings.Join(names, ", ") + ")"
}

// diagnoseError says what a failed probe means and what to do about it.
func diagnoseError(pc ProviderConfig, ref keyRef, err error) string {
	var pe *Error
	if !errors.As(err, &pe) {
		return err.Error()
	}
	base := pc.baseURL()
	switch pe.Kind {
	case KindUnreachable:
		hint := "start the server or correct the base URL"
		if pc.Kind == ProviderOllama {
			hint = "start it with `ollama serve`, or correct the base URL"
		}
		return fmt.Sprintf("not reachable: %s — %s", pe.Message, hint)
	case KindAuth:
		return fmt.Sprintf("the server refused the key (HTTP %d): %s — check %s", pe.Status, pe.Message, ref.where())
	case KindNotFound:
		return fmt.Sprintf("%s answered 404: %s — %s", base, pe.Message, pe.Fix)
	case KindTimeout:
		return fmt.Sprintf("no answer from %s: %s", base, pe.Message)
	}
	return pe.Error()
}

// DiagnoseEmbedder checks the embedder: trigram needs nothing; ollama and
// openai are asked for one probe embedding.
func DiagnoseEmbedder(ctx context.Context, cfg Config, opts Options) Diagnosis {
	cfg.Timeouts = diagnoseTimeouts()
	d := Diagnosis{Subject: "embedder"}
	e, err := NewEmbedder(ctx, cfg, opts)
	switch {
	case errors.Is(err, ErrTrigramEmbedder):
		d.Status, d.Detail = StatusOK, "trigram (memory's built-in; no model, no network); "+EnvEmbeddingKind+"=ollama or openai for a semantic one"
	case err != nil:
		d.Status, d.Detail = StatusFail, err.Error()
		var pe *Error
		if errors.As(err, &pe) && pe.Provider != "" {
			d.Subject, d.Detail = pe.Provider, pe.Reason()
		}
	default:
		d.Subject = e.api.name
		d.Status, d.Detail = StatusOK, fmt.Sprintf("reachable, %s (dimension %d)", e.ID(), e.Dimension())
	}
	return d
}

// isLoopback reports whether a base URL points at this machine.
func isLoopback(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
