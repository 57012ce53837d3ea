package gates

import (
	"context"
	"fmt"
)

// Narrowing is a set of permission rules that can only make a check
// stricter: deny and ask rules, added for one environment (a pass that a
// skill shapes) after the configuration's own rules of the same kind.
// There is no allow: nothing given here can make an action pass that the
// configuration would not pass.
type Narrowing struct {
	// Source names who asked for the rules (a skill's title), for the
	// verdict's reason.
	Source    string
	Ask, Deny []string
}

// narrowRule is a parsed rule of a Narrowing, with its source.
type narrowRule struct {
	rule
	source string
}

// CheckRule reports whether text is a valid permission rule for the tools
// of t, and if not why, in one sentence.
func (t *Tools) CheckRule(text string) error {
	_, err := parseRule(text, t)
	return err
}

// parseNarrowing reads the narrowings of a World; any invalid rule is an
// error (a rule that could not be read would fail open).
func parseNarrowing(ns []Narrowing, tools *Tools) (deny, ask []narrowRule, err error) {
	for _, n := range ns {
		for _, list := range []struct {
			texts []string
			into  *[]narrowRule
		}{{n.Deny, &deny}, {n.Ask, &ask}} {
			for _, t := range list.texts {
				r, err := parseRule(t, tools)
				if err != nil {
					return nil, nil, fmt.Errorf("the rules of %s: %w", n.Source, err)
				}
				*list.into = append(*list.into, narrowRule{rule: r, source: n.Source})
			}
		}
	}
	return deny, ask, nil
}

// firstNarrow returns the first rule of list matching a.
func (g *permissionsGate) firstNarrow(ctx context.Context, list []narrowRule, a Action, env *Env) (narrowRule, bool) {
	for _, r := range list {
		if r.tool == a.Tool && g.match(ctx, r.rule, a, env) {
			return r, true
		}
	}
	return narrowRule{}, false
}
