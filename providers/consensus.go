package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// KeyFunc reduces an answer to what consensus compares: two answers agree
// when their keys are equal. The agent passes the gates' canonical action;
// CanonicalKey is the default.
type KeyFunc func(Response) string

// Vote is one provider's part in a consensus.
type Vote struct {
	Provider string
	Key      string // "" when the provider failed
	Response Response
	Err      error
}

// ConsensusResult says whether K providers proposed the same action.
type ConsensusResult struct {
	Agreed bool
	K      int
	// Key and Response are the agreed action and the first agreeing answer
	// (zero when there was no agreement).
	Key      string
	Response Response
	// Votes are every provider's answer (or failure), in cascade order;
	// providers still running when K agreed are cancelled and show that.
	Votes []Vote
	// Summary says in one line who agreed, or how they disagreed.
	Summary string
}

// Consensus asks every provider the selector chooses for req at once and
// reports whether k of them propose the same action (by key; nil means
// CanonicalKey). As soon as k agree the others are cancelled. Disagreement
// is not an error: the result says so. The error is for what makes a
// consensus impossible to attempt (no providers, fewer than k, k < 2) or the
// caller's cancellation.
func (c *Cascade) Consensus(ctx context.Context, req Request, k int, key KeyFunc) (ConsensusResult, error) {
	if len(c.providers) == 0 {
		return ConsensusResult{}, ErrNoProvider
	}
	if k < 2 {
		return ConsensusResult{}, fmt.Errorf("a consensus needs k of at least 2, not %d", k)
	}
	cands := selectCandidates(c.cfg.Providers, c.providers, c.cfg.Rules, req)
	if len(cands) < k {
		return ConsensusResult{}, fmt.Errorf("a consensus of %d needs at least %d providers; %d are selected for this request", k, k, len(cands))
	}
	if key == nil {
		key = CanonicalKey
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		i int
		v Vote
	}
	results := make(chan result, len(cands))
	for i, cand := range cands {
		go func() {
			r := req
			if cand.model != "" {
				r.Model = cand.model
			}
			v := Vote{Provider: cand.p.Name()}
			s, err := cand.p.Stream(runCtx, r)
			if err == nil {
				v.Response, err = s.Collect()
			}
			if err != nil {
				v.Err = err
			} else {
				v.Key = key(v.Response)
			}
			results <- result{i, v}
		}()
	}
	votes := make([]Vote, len(cands))
	counts := map[string]int{}
	res := ConsensusResult{K: k}
	for range cands {
		r := <-results
		votes[r.i] = r.v
		switch {
		case r.v.Err != nil && KindOf(r.v.Err) == KindCanceled && res.Agreed:
			// cancelled because k had already agreed: not a failure
		case r.v.Err != nil:
			c.log.Warn("model provider failed in consensus", "provider", r.v.Provider, "reason", reasonOf(r.v.Err))
		default:
			counts[r.v.Key]++
			if counts[r.v.Key] == k && !res.Agreed {
				res.Agreed, res.Key = true, r.v.Key
				cancel()
			}
		}
	}
	if err := ctx.Err(); err != nil && !res.Agreed {
		return ConsensusResult{}, &Error{Kind: KindCanceled, Message: "the request was cancelled", Err: context.Cause(ctx)}
	}
	res.Votes = votes
	res.Summary = summarize(res, counts)
	if res.Agreed {
		for _, v := range votes {
			if v.Err == nil && v.Key == res.Key {
				res.Response = v.Response
				break
			}
		}
	}
	return res, nil
}

// summarize writes the result's one line.
func summarize(res ConsensusResult, counts map[string]int) string {
	if res.Agreed {
		var who []string
		for _, v := range res.Votes {
			if v.Err == nil && v.Key == res.Key {
				who = append(who, v.Provider)
			}
		}
		return fmt.Sprintf("%d providers agree (%s) on %s", len(who), strings.Join(who, ", "), clip(res.Key, 160))
	}
	parts := make([]string, 0, len(res.Votes))
	for _, v := range res.Votes {
		if v.Err != nil {
			parts = append(parts, fmt.Sprintf("%s failed (%s)", v.Provider, KindOf(v.Err)))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s proposed %s", v.Provider, clip(v.Key, 120)))
	}
	best := 0
	for _, n := range counts {
		best = max(best, n)
	}
	return fmt.Sprintf("no consensus: %d needed, at most %d agree: %s", res.K, best, strings.Join(parts, "; "))
}

// CanonicalKey is the default consensus key. Tool calls compare by tool
// name (case-insensitive, "-" and "_" alike, as DESIGN §6 reads tools) and
// arguments as canonical JSON (keys sorted, numbers normalised) without the
// explanation, which is each model's own wording of why. An answer without
// tool calls is a message: its text with whitespace collapsed.
func CanonicalKey(r Response) string {
	if len(r.ToolCalls) == 0 {
		return "message " + strings.Join(strings.Fields(r.Text), " ")
	}
	lines := make([]string, len(r.ToolCalls))
	for i, tc := range r.ToolCalls {
		name := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(tc.Name)), "-", "_")
		lines[i] = name + " " + canonicalArgs(tc.Arguments)
	}
	return strings.Join(lines, "\n")
}

// canonicalArgs renders arguments as canonical JSON, the top-level
// "explanation" removed.
func canonicalArgs(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(raw)
	}
	if obj, ok := v.(map[string]any); ok {
		delete(obj, "explanation")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(normalizeNumbers(v)); err != nil {
		return string(raw)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// normalizeNumbers makes 1, 1.0 and 1e0 one number.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
		return x
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			if f == float64(int64(f)) && f > -1e15 && f < 1e15 {
				return int64(f)
			}
			return f
		}
		return string(x)
	}
	return v
}
