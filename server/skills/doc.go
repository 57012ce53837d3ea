// Package skills reads skills from the memex and says which apply to a
// pass (DESIGN §15): a skill is an Org headline tagged :skill:, the seeds'
// defskill written as a note. Its :TRIGGER: (a regular expression on the
// question, tag:NAME of the foveal node, or heartbeat), :PRIORITY: and
// :DEPENDS_ON: decide when and in which order it applies; its body is added
// to the pass's MANDATES under its title; a `#+begin_src json :gates` block
// holds permission rules that can only narrow the gates (ask, deny — an
// allow is a warning and ignored). A skill with a SCHEDULED: timestamp runs
// when due (see Due and Advance).
//
// Reading never fails: what is wrong with a skill (an invalid regular
// expression or rule, a missing dependency, a cycle) is its diagnostics,
// and such a skill is not used. A private skill is never read; a skill's
// children are not part of it (they may be private, or skills of their
// own).
package skills
