package foveal

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The environment variables the renderer reads (DESIGN §11).
const (
	EnvBudget    = "CONTEXT_BUDGET"
	EnvThreshold = "CONTEXT_SEMANTIC_THRESHOLD"
)

// The defaults.
const (
	// DefaultBudget is the context's size in tokens (CountTokens).
	DefaultBudget = 4000
	// DefaultThreshold is the cosine similarity a node needs to be shown
	// as related to the foveal node.
	DefaultThreshold = 0.75
	// DefaultNeighbours is how many related nodes are shown at most. Five
	// bodies of at most NeighbourBodyBytes each take at most about 2,800
	// tokens, so under the default budget the foveal node and a useful
	// outline still fit beside them; past the fifth, the trigram
	// embedder's scores above the threshold are mostly near-copies of the
	// first ones.
	DefaultNeighbours = 5
	// MinBudget is the smallest budget a context is rendered in: enough
	// for the foveal headline and a line saying what was cut.
	MinBudget = 64
)

// NeighbourBodyBytes bounds how much of a related node's body is shown:
// the part its embedding was computed from (memory embeds a node's title
// and the first 2 KiB of its body), so what made it similar is what the
// model sees.
const NeighbourBodyBytes = 2048

// Options shape a context. The zero value means every default.
type Options struct {
	// Budget is the most tokens the context may take (0: DefaultBudget).
	Budget int
	// Threshold is the least cosine similarity of a related node
	// (0: DefaultThreshold).
	Threshold float64
	// Neighbours is how many related nodes are shown at most
	// (0: DefaultNeighbours; negative: none).
	Neighbours int
	// Redact, when set, rewrites the view's text, and the foveal node's
	// title and key, before they are returned (the agent's redactor:
	// secrets replaced by marks naming them). The
	// view stays within its budget: when the marks make the text larger
	// than the budget, the view is chosen again in a budget smaller by
	// the excess. It must be a pure function of its input.
	Redact func(string) string
}

// ErrOptions is wrapped by errors about options: a budget below
// MinBudget, a threshold outside (0, 1], a malformed variable.
var ErrOptions = errors.New("bad context options")

// withDefaults fills the zero fields and checks the others.
func (o Options) withDefaults() (Options, error) {
	if o.Budget == 0 {
		o.Budget = DefaultBudget
	}
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
	}
	if o.Neighbours == 0 {
		o.Neighbours = DefaultNeighbours
	}
	if o.Budget < MinBudget {
		return o, fmt.Errorf("%w: a budget of %d tokens is below the least of %d", ErrOptions, o.Budget, MinBudget)
	}
	if math.IsNaN(o.Threshold) || o.Threshold <= 0 || o.Threshold > 1 {
		return o, fmt.Errorf("%w: the semantic threshold %v is not in (0, 1]", ErrOptions, o.Threshold)
	}
	return o, nil
}

// EnvOptions reads CONTEXT_BUDGET and CONTEXT_SEMANTIC_THRESHOLD (unset:
// the defaults). A malformed value is an error naming the variable.
func EnvOptions(getenv func(string) string) (Options, error) {
	var o Options
	if v := strings.TrimSpace(getenv(EnvBudget)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < MinBudget {
			return Options{}, fmt.Errorf("%w: %s=%q is not a whole number of at least %d", ErrOptions, EnvBudget, v, MinBudget)
		}
		o.Budget = n
	}
	if v := strings.TrimSpace(getenv(EnvThreshold)); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || f <= 0 || f > 1 {
			return Options{}, fmt.Errorf("%w: %s=%q is not a number in (0, 1]", ErrOptions, EnvThreshold, v)
		}
		o.Threshold = f
	}
	return o, nil
}
