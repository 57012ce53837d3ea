package providers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// EmbeddingTrigram is memory's own embedder, the default EMBEDDING_PROVIDER.
const EmbeddingTrigram = "trigram"

// The default embedding models.
const (
	DefaultOllamaEmbeddingModel = "nomic-embed-text"
	DefaultOpenAIEmbeddingModel = "text-embedding-3-small"
	DefaultEmbeddingBatch       = 64
)

// ErrTrigramEmbedder is what NewEmbedder returns for EMBEDDING_PROVIDER
// trigram (or unset): that embedder is built into package memory, not here.
var ErrTrigramEmbedder = errors.New("EMBEDDING_PROVIDER=trigram is memory's built-in embedder; providers builds only the ollama and openai embedders")

// Embedder computes embeddings through Ollama's POST /api/embed or an
// OpenAI-compatible POST /embeddings. It satisfies memory's embedder
// interface (Embed and ID) without importing it.
type Embedder struct {
	api   httpAPI
	kind  string
	dim   int
	batch int
}

// NewEmbedder builds the embedder cfg.Embedding selects and asks it once
// for a probe embedding, to learn the dimension its ID carries. trigram (or
// nothing) gives ErrTrigramEmbedder.
func NewEmbedder(ctx context.Context, cfg Config, opts Options) (*Embedder, error) {
	ec := cfg.Embedding
	kind := strings.ToLower(strings.TrimSpace(ec.Kind))
	model := ec.Model
	switch kind {
	case "", EmbeddingTrigram:
		return nil, ErrTrigramEmbedder
	case ProviderOllama:
		if model == "" {
			model = DefaultOllamaEmbeddingModel
		}
	case ProviderOpenAI:
		if model == "" {
			model = DefaultOpenAIEmbeddingModel
		}
	default:
		return nil, fmt.Errorf("%s %q is not one of trigram, ollama, openai", EnvEmbeddingKind, ec.Kind)
	}
	pc := ProviderConfig{Kind: kind, Model: model, BaseURL: ec.BaseURL, KeyEnv: ec.KeyEnv, KeyVault: ec.KeyVault}
	if err := pc.Validate(); err != nil {
		return nil, fmt.Errorf("embedder: %w", err)
	}
	t := cfg.Timeouts.withDefaults()
	e := &Embedder{api: newHTTPAPI(pc, newHTTPClient(t), t, opts), kind: kind, batch: ec.BatchSize}
	e.api.name = "embedder " + pc.Name()
	if e.batch <= 0 {
		e.batch = DefaultEmbeddingBatch
	}
	vs, err := e.request(ctx, []string{"dimension probe"})
	if err != nil {
		return nil, err
	}
	e.dim = len(vs[0])
	return e, nil
}

// ID is "kind:model:dimension" — when it changes, what was embedded with
// the old one must be embedded again.
func (e *Embedder) ID() string {
	return e.kind + ":" + e.api.model + ":" + strconv.Itoa(e.dim)
}

// Dimension is the length of every vector this embedder returns.
func (e *Embedder) Dimension() int { return e.dim }

// Embed returns one vector per text, in order, asking in batches. Every
// vector has the dimension the probe found, finite values and not all zeros
// (a zero vector has no direction; cosine similarity over it is NaN).
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += e.batch {
		hi := min(lo+e.batch, len(texts))
		vs, err := e.request(ctx, texts[lo:hi])
		if err != nil {
			return nil, err
		}
		for i, v := range vs {
			if len(v) != e.dim {
				return nil, &Error{Provider: e.api.name, Kind: KindProtocol, Message: fmt.Sprintf(
					"text %d got a vector of dimension %d, not %d: the model behind %q changed; restart so the memex re-embeds", lo+i, len(v), e.dim, e.api.model)}
			}
		}
		out = append(out, vs...)
	}
	return out, nil
}

// request embeds one batch and checks the answer's shape.
func (e *Embedder) request(ctx context.Context, texts []string) ([][]float32, error) {
	var vs [][]float32
	switch e.kind {
	case ProviderOllama:
		var resp struct {
			Embeddings [][]float32 `json:"embeddings"`
		}
		body := map[string]any{"model": e.api.model, "input": texts}
		if err := e.api.postJSON(ctx, "/api/embed", body, ollamaWire{}, &resp); err != nil {
			return nil, err
		}
		vs = resp.Embeddings
	default:
		var resp struct {
			Data []struct {
				Index     *int      `json:"index"`
				Embedding []float32 `json:"embedding"`
			} `json:"data"`
		}
		body := map[string]any{"model": e.api.model, "input": texts, "encoding_format": "float"}
		if err := e.api.postJSON(ctx, "/embeddings", body, openaiWire{}, &resp); err != nil {
			return nil, err
		}
		if len(resp.Data) == len(texts) {
			vs = make([][]float32, len(texts))
			for i, d := range resp.Data {
				at := i
				if d.Index != nil {
					at = *d.Index
				}
				if at < 0 || at >= len(texts) || vs[at] != nil {
					return nil, &Error{Provider: e.api.name, Kind: KindProtocol, Message: fmt.Sprintf("the answer's indexes are not 0…%d, each once", len(texts)-1)}
				}
				vs[at] = d.Embedding
			}
		} else {
			vs = make([][]float32, len(resp.Data))
		}
	}
	if len(vs) != len(texts) {
		return nil, &Error{Provider: e.api.name, Kind: KindProtocol, Message: fmt.Sprintf("asked for %d embeddings, got %d", len(texts), len(vs))}
	}
	for i, v := range vs {
		if err := checkVector(v); err != nil {
			return nil, &Error{Provider: e.api.name, Kind: KindProtocol, Message: fmt.Sprintf("the embedding of text %d %s", i, err)}
		}
		if len(v) != len(vs[0]) {
			return nil, &Error{Provider: e.api.name, Kind: KindProtocol, Message: fmt.Sprintf("the vectors of one answer differ in dimension (%d and %d)", len(vs[0]), len(v))}
		}
	}
	return vs, nil
}

// checkVector refuses an empty, non-finite or all-zero vector.
func checkVector(v []float32) error {
	if len(v) == 0 {
		return errors.New("is empty")
	}
	zero := true
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return errors.New("holds a value that is not a finite number")
		}
		if x != 0 {
			zero = false
		}
	}
	if zero {
		return errors.New("is all zeros")
	}
	return nil
}
