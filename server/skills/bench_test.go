package skills

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkSelectAndApply200 is what a pass spends on skills with 200 in
// the memex: selecting those that apply (regular expressions, tags,
// dependencies) and rendering them within the budget.
func BenchmarkSelectAndApply200(b *testing.B) {
	var org strings.Builder
	for i := range 200 {
		fmt.Fprintf(&org, "* Skill %d :skill:\n:PROPERTIES:\n", i)
		switch i % 3 {
		case 0:
			fmt.Fprintf(&org, ":TRIGGER: (?i)\\b(topic%d|subject%d)\\b\n", i, i)
		case 1:
			fmt.Fprintf(&org, ":TRIGGER: tag:t%d\n", i%20)
		default:
			fmt.Fprintf(&org, ":TRIGGER: (?i)report|summary|weekly\n")
		}
		fmt.Fprintf(&org, ":PRIORITY: %d\n", i%7*10)
		if i > 0 && i%5 == 0 {
			fmt.Fprintf(&org, ":DEPENDS_ON: \"Skill %d\"\n", i-1)
		}
		fmt.Fprintf(&org, ":END:\nRule %d: keep answers short and cite the note behind each claim.\n", i)
	}
	set := readTree(b, map[string]string{"skills.org": org.String()})
	if len(set.Usable()) != 200 {
		b.Fatalf("%d usable skills", len(set.Usable()))
	}
	q := Query{Text: "Write the weekly summary of topic42 for the team, with the open questions.", Tags: []string{"t3", "work", "project"}}
	b.ReportAllocs()
	var took []time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		a := Apply(set.Select(q), Budget)
		took = append(took, time.Since(start))
		if len(a.Skills) == 0 {
			b.Fatal("nothing applied")
		}
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
}
