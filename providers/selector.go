package providers

import "strings"

// EstimateTokens is the selector's measure of a request's prompt: its bytes
// (system prompt, messages, tool calls, tool schemas) over four, rounded up —
// the usual rule of thumb for English text with BPE tokenizers. It is an
// estimate for routing, not a count any API will agree with.
func EstimateTokens(req Request) int {
	n := len(req.System)
	for _, m := range req.Messages {
		n += len(m.Content) + len(m.Role)
		for _, tc := range m.ToolCalls {
			n += len(tc.Name) + len(tc.Arguments)
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	return (n + 3) / 4
}

// candidate is one provider the cascade will try, with the model to ask it
// for ("" for its own).
type candidate struct {
	p     Provider
	model string
}

// matches reports whether the rule applies to a request of this task and
// estimated size.
func (r Rule) matches(task string, tokens int) bool {
	if r.Task != "" && !strings.EqualFold(r.Task, task) {
		return false
	}
	if tokens < r.MinPromptTokens {
		return false
	}
	return r.MaxPromptTokens == 0 || tokens <= r.MaxPromptTokens
}

// matchRoute returns the indexes of the configured providers a route names:
// by Name(), Alias, "kind:model", or kind alone.
func matchRoute(ps []ProviderConfig, name string) []int {
	var out []int
	for i, p := range ps {
		byAlias := p.Alias != "" && name == p.Alias
		byModel := p.Kind != ProviderReplay && name == p.Kind+":"+p.Model
		if name == p.Name() || byAlias || byModel {
			out = append(out, i)
		}
	}
	if len(out) > 0 {
		return out
	}
	for i, p := range ps {
		if strings.EqualFold(name, p.Kind) {
			out = append(out, i)
		}
	}
	return out
}

// selectCandidates applies the selector: the first matching rule's routes,
// in order and without repeating a (provider, model) pair; with no match,
// every provider in cascade order with its own model.
func selectCandidates(cfg []ProviderConfig, ps []Provider, rules []Rule, req Request) []candidate {
	tokens := EstimateTokens(req)
	for _, r := range rules {
		if !r.matches(req.Task, tokens) {
			continue
		}
		var out []candidate
		seen := map[[2]string]bool{}
		for _, route := range r.Use {
			for _, i := range matchRoute(cfg, route.Provider) {
				k := [2]string{ps[i].Name(), route.Model}
				if !seen[k] {
					seen[k] = true
					out = append(out, candidate{p: ps[i], model: route.Model})
				}
			}
		}
		return out
	}
	out := make([]candidate, len(ps))
	for i, p := range ps {
		out[i] = candidate{p: p}
	}
	return out
}
