package providers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Cascade is the configured providers in order, with the selector's rules;
// it is itself a Provider. It is safe for concurrent use.
type Cascade struct {
	cfg       Config
	providers []Provider
	log       *slog.Logger
	timeouts  Timeouts
}

// New builds the cascade cfg describes (after Validate). A replay provider's
// transcript is read here, so a missing file is an error now, not at the
// first question. No providers is not an error here: asking is (ErrNoProvider).
func New(cfg Config, opts Options) (*Cascade, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t := cfg.Timeouts.withDefaults()
	client := newHTTPClient(t)
	c := &Cascade{cfg: cfg, log: opts.logger(), timeouts: t}
	for _, pc := range cfg.Providers {
		p, err := newProvider(pc, client, t, opts)
		if err != nil {
			return nil, err
		}
		c.providers = append(c.providers, p)
	}
	return c, nil
}

// NewProvider builds one provider alone (no cascade around it).
func NewProvider(pc ProviderConfig, t Timeouts, opts Options) (Provider, error) {
	if err := pc.Validate(); err != nil {
		return nil, err
	}
	t = t.withDefaults()
	return newProvider(pc, newHTTPClient(t), t, opts)
}

func newProvider(pc ProviderConfig, client *http.Client, t Timeouts, opts Options) (Provider, error) {
	switch pc.Kind {
	case ProviderOllama:
		return NewOllama(pc, client, t, opts), nil
	case ProviderOpenAI:
		return NewOpenAI(pc, client, t, opts), nil
	case ProviderAnthropic:
		return NewAnthropic(pc, client, t, opts), nil
	case ProviderReplay:
		return LoadReplay(pc.File, opts)
	}
	return nil, fmt.Errorf("provider kind %q is not one of ollama, openai, anthropic, replay", pc.Kind)
}

// Name lists the providers: "cascade(a, b)".
func (c *Cascade) Name() string {
	names := make([]string, len(c.providers))
	for i, p := range c.providers {
		names[i] = p.Name()
	}
	return "cascade(" + strings.Join(names, ", ") + ")"
}

// Providers returns the providers in cascade order.
func (c *Cascade) Providers() []Provider { return append([]Provider(nil), c.providers...) }

// ConsensusK is the configured consensus (0 when off).
func (c *Cascade) ConsensusK() int {
	if c.cfg.Consensus < 2 {
		return 0
	}
	return c.cfg.Consensus
}

// Stream asks the providers the selector chooses for req, in order, and
// returns the first answer that produces output. It returns once that first
// output has arrived (or every provider has failed: a *CascadeError).
//
// Each failed attempt is logged in exactly one line naming the provider and
// the reason. A 429 with a Retry-After is retried on the same provider while
// the waits add up to no more than the cap; otherwise the cascade falls
// through. The caller's cancellation ends everything at once, unlogged.
func (c *Cascade) Stream(ctx context.Context, req Request) (*Stream, error) {
	if len(c.providers) == 0 {
		return nil, ErrNoProvider
	}
	start := time.Now()
	cands, err := c.restrict(selectCandidates(c.cfg.Providers, c.providers, c.cfg.Rules, req), req)
	if err != nil {
		return nil, err
	}
	var failures []error
	for i, cand := range cands {
		next := noneLeft
		if i+1 < len(cands) {
			next = cands[i+1].p.Name()
		}
		s, err := c.try(ctx, cand, req, next, len(failures)+1)
		if err == nil {
			return s.withStart(start), nil
		}
		if KindOf(err) == KindCanceled || ctx.Err() != nil {
			return nil, err
		}
		failures = append(failures, err)
	}
	return nil, &CascadeError{Attempts: failures}
}

// restrict keeps the candidates req allows: those its Provider names (all
// of the cascade's such providers when no rule's choice is among them) and,
// with LocalOnly, those marked local. None left is an error saying why.
func (c *Cascade) restrict(cands []candidate, req Request) ([]candidate, error) {
	if req.Provider == "" && !req.LocalOnly {
		return cands, nil
	}
	allowed := map[Provider]bool{}
	idx := make([]int, 0, len(c.providers))
	if req.Provider != "" {
		idx = matchRoute(c.cfg.Providers, req.Provider)
		if len(idx) == 0 {
			return nil, &Error{Kind: KindConfig, Message: fmt.Sprintf("no provider of the cascade is named %q (the conversation's MODEL)", req.Provider)}
		}
	} else {
		for i := range c.providers {
			idx = append(idx, i)
		}
	}
	for _, i := range idx {
		if !req.LocalOnly || c.cfg.Providers[i].IsLocal() {
			allowed[c.providers[i]] = true
		}
	}
	if len(allowed) == 0 {
		return nil, &Error{Kind: KindConfig, Message: "the question is private (asked from a private note, or in a private conversation) and no provider it may use is marked local (an Ollama on loopback, or \"local\": true in the configuration)"}
	}
	var out []candidate
	for _, cand := range cands {
		if allowed[cand.p] {
			out = append(out, cand)
		}
	}
	if len(out) == 0 { // the rules chose none of them: the allowed ones, in cascade order
		for _, p := range c.providers {
			if allowed[p] {
				out = append(out, candidate{p: p})
			}
		}
	}
	return out, nil
}

// IsLocal reports whether p may see a private conversation: a cascade
// never counts (it restricts itself per request), a provider counts when
// it is marked local (ProviderConfig.IsLocal).
func IsLocal(p Provider) bool {
	l, ok := p.(interface{ Local() bool })
	return ok && l.Local()
}

// try asks one candidate, retrying it on a 429 within the Retry-After cap.
func (c *Cascade) try(ctx context.Context, cand candidate, req Request, next string, attempt int) (*Stream, error) {
	if cand.model != "" {
		req.Model = cand.model
	}
	name := cand.p.Name()
	var waited time.Duration
	for {
		s, err := openUntilOutput(ctx, cand.p, req)
		if err == nil {
			c.log.Info("model provider answering", "provider", name, "model", s.resp.Model, "attempt", attempt)
			return s, nil
		}
		if KindOf(err) == KindCanceled || ctx.Err() != nil {
			return nil, err
		}
		var pe *Error
		limit := time.Duration(c.timeouts.RetryAfterCap)
		if errors.As(err, &pe) && pe.Kind == KindRateLimited && pe.RetryAfter > 0 && waited+pe.RetryAfter <= limit {
			c.log.Warn("model provider rate-limited; retrying after its Retry-After",
				"provider", name, "reason", reasonOf(err), "retry_in", pe.RetryAfter.String(), "attempt", attempt)
			if err := sleep(ctx, pe.RetryAfter); err != nil {
				return nil, &Error{Provider: name, Kind: KindCanceled, Message: "the request was cancelled", Err: err}
			}
			waited += pe.RetryAfter
			attempt++
			continue
		}
		if next == noneLeft {
			// The cascade's error says it; a warning would say it twice.
			c.log.Debug("model provider failed; none left", "provider", name, "reason", reasonOf(err), "attempt", attempt)
		} else {
			c.log.Warn("model provider failed; falling through",
				"provider", name, "reason", reasonOf(err), "next", next, "attempt", attempt)
		}
		return nil, err
	}
}

// noneLeft is the "next" of the cascade's last candidate.
const noneLeft = "none left"

// openUntilOutput opens a stream and reads until its first output (text or
// a tool call), or to its end if it has none. An error before then means
// the provider gave nothing and the cascade may try another.
func openUntilOutput(ctx context.Context, p Provider, req Request) (*Stream, error) {
	s, err := p.Stream(ctx, req)
	if err != nil {
		return nil, err
	}
	var buf []Event
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		buf = append(buf, ev)
		if ev.isOutput() {
			break
		}
	}
	out := newStream(s.resp.Provider, s.resp.Model, s.start, &bufferedSource{buf: buf, inner: s})
	return out, nil
}

// withStart makes the stream's clock start at t (the cascade's start, so
// that FirstOutput includes the attempts that failed).
func (s *Stream) withStart(t time.Time) *Stream {
	s.start = t
	return s
}

// bufferedSource gives the events read while looking for the first output,
// then the rest of the chosen provider's stream.
//
// A failure of that stream after its first output reaches the caller as an
// error; the cascade never retries it elsewhere. The caller has already
// shown or acted on part of the answer, and a second model's answer spliced
// after the first's beginning would be an answer no model gave — for a
// proposal that the gates must judge whole, worse than an honest failure.
type bufferedSource struct {
	buf   []Event
	inner *Stream
}

func (b *bufferedSource) next() (Event, error) {
	if len(b.buf) > 0 {
		ev := b.buf[0]
		b.buf = b.buf[1:]
		return ev, nil
	}
	return b.inner.Next()
}

func (b *bufferedSource) close() { b.inner.Close() }

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
