package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/strength"
	"github.com/plantcheck/plantcheck/spec/rules"
)

const rulesHelp = "Print the catalog of the spec's rules that the suite checks: each rule's ID, level,\n" +
	"the part of the spec it comes from, the scenarios that encode it, and its\n" +
	"strength: how many of the shipped mutants that break it the suite catches, as\n" +
	"the self-test measured it (\"no mutant\": no mutant proves the rule's check).\n" +
	"Rerun one rule with: plantcheck run --tags '@RULE-ID'."

func cmdRules(_ context.Context, c cli, cfg *config.Rules, _ []string) int {
	if err := cfg.Validate(); err != nil {
		return c.fail("%v\n%s", err, flagsHint(c.fs))
	}
	scs, err := features.Scenarios()
	if err != nil {
		return c.fail("%v", err)
	}
	// The strength this build carries: a rule no mutant breaks says so.
	carried, err := strength.Current()
	if err != nil {
		return c.fail("%v", err)
	}
	byRule := map[rules.RuleID][]features.Scenario{}
	for _, s := range scs {
		byRule[s.Rule()] = append(byRule[s.Rule()], s)
	}
	if cfg.Format == "json" {
		// Strength is the shipped mutants that break the rule and how
		// many of them the suite catches (0 of 0: no mutant breaks it).
		type figure struct {
			Mutants int `json:"mutants"`
			Caught  int `json:"caught"`
		}
		type entry struct {
			rules.Rule
			Scenarios []features.Scenario `json:"scenarios"`
			Strength  figure              `json:"strength"`
		}
		out := make([]entry, len(rules.Catalog))
		for i, r := range rules.Catalog {
			f, _ := carried.Rule(r.ID)
			out[i] = entry{r, byRule[r.ID], figure{f.Mutants, f.Caught}}
		}
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return c.fail("%v", err)
		}
		return exitOK
	}
	counts := map[rules.Level]int{}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	if !cfg.Verbose {
		fmt.Fprintln(tw, "RULE\tLEVEL\tSCENARIOS\tSTRENGTH\tSOURCE")
	}
	for _, r := range rules.Catalog {
		counts[r.Level]++
		if !cfg.Verbose {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", r.ID, strings.ToUpper(string(r.Level)), len(byRule[r.ID]), carried.Figure(r.ID), r.Source)
			continue
		}
		fmt.Fprintf(c.stdout, "%s (%s), from %s\n  %s\n  strength: %s\n", r.ID, strings.ToUpper(string(r.Level)), r.Source, r.Requirement, carried.Figure(r.ID))
		for _, s := range byRule[r.ID] {
			fmt.Fprintf(c.stdout, "  - %s (features/%s:%d)\n", s.Name, s.URI, s.Line)
		}
		fmt.Fprintln(c.stdout)
	}
	tw.Flush()
	fmt.Fprintf(c.stdout, "\n%d rules (%d MUST, %d SHOULD, %d open), %d scenarios\n",
		len(rules.Catalog), counts[rules.Must], counts[rules.Should], counts[rules.Open], len(scs))
	fmt.Fprintf(c.stdout, "Suite strength: %s\n", carried.Line())
	return exitOK
}
