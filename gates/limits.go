package gates

import (
	"fmt"
	"sync"
	"time"
)

// rateCounter counts executed actions over the last minute, overall and
// per tool. Only executions count (Stack.Record): checking an action, as
// `pp-lsp gate` does for a whole file at once, never uses up the budget.
type rateCounter struct {
	limits Limits
	mu     sync.Mutex
	events []rateEvent // oldest first, at most a minute old
}

type rateEvent struct {
	at   time.Time
	tool Tool
}

func newRateCounter(l Limits) *rateCounter { return &rateCounter{limits: l} }

// Record notes that an action was executed at t; the server calls it after
// an actuator ran, so that the rate limits of the dispatcher apply.
func (s *Stack) Record(tool Tool, t time.Time) {
	s.rate.mu.Lock()
	defer s.rate.mu.Unlock()
	s.rate.prune(t)
	s.rate.events = append(s.rate.events, rateEvent{at: t, tool: tool})
}

func (r *rateCounter) prune(now time.Time) {
	cut := 0
	for cut < len(r.events) && now.Sub(r.events[cut].at) >= time.Minute {
		cut++
	}
	r.events = r.events[cut:]
}

// check says whether one more action of tool fits in the limits at now.
func (r *rateCounter) check(tool Tool, now time.Time) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prune(now)
	if r.limits.PerMinute > 0 && len(r.events) >= r.limits.PerMinute {
		return fmt.Sprintf("%d actions ran in the last minute, the limit is %d", len(r.events), r.limits.PerMinute), false
	}
	if max, ok := r.limits.ToolPerMinute[string(tool)]; ok && max > 0 {
		n := 0
		for _, e := range r.events {
			if e.tool == tool {
				n++
			}
		}
		if n >= max {
			return fmt.Sprintf("%d %s actions ran in the last minute, the limit is %d", n, tool, max), false
		}
	}
	return "", true
}
