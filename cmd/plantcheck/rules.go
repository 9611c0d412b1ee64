package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/spec/rules"
)

func cmdRules(_ context.Context, c cli, args []string) int {
	fs := newFlagSet(c, "rules", "[flags]",
		"Print the catalog of the spec's rules that the suite checks: each rule's ID, level,\n"+
			"the part of the spec it comes from, and the scenarios that encode it. Rerun one\n"+
			"rule with: plantcheck run --tags '@RULE-ID'.")
	cfg := config.DefineRules(fs)
	if code, ok := parse(c, fs, args); !ok {
		return code
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(c.stderr, "plantcheck rules: %v\n%s\n", err, flagsHint(fs))
		return exitCannotRun
	}
	scs, err := features.Scenarios()
	if err != nil {
		fmt.Fprintf(c.stderr, "plantcheck rules: %v\n", err)
		return exitCannotRun
	}
	byRule := map[rules.RuleID][]features.Scenario{}
	for _, s := range scs {
		byRule[s.Rule()] = append(byRule[s.Rule()], s)
	}
	if cfg.Format == "json" {
		type entry struct {
			rules.Rule
			Scenarios []features.Scenario `json:"scenarios"`
		}
		out := make([]entry, len(rules.Catalog))
		for i, r := range rules.Catalog {
			out[i] = entry{r, byRule[r.ID]}
		}
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(c.stderr, "plantcheck rules: %v\n", err)
			return exitCannotRun
		}
		return exitOK
	}
	counts := map[rules.Level]int{}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	if !cfg.Verbose {
		fmt.Fprintln(tw, "RULE\tLEVEL\tSOURCE\tSCENARIOS")
	}
	for _, r := range rules.Catalog {
		counts[r.Level]++
		if !cfg.Verbose {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", r.ID, strings.ToUpper(string(r.Level)), r.Source, len(byRule[r.ID]))
			continue
		}
		fmt.Fprintf(c.stdout, "%s (%s), from %s\n  %s\n", r.ID, strings.ToUpper(string(r.Level)), r.Source, r.Requirement)
		for _, s := range byRule[r.ID] {
			fmt.Fprintf(c.stdout, "  - %s (features/%s:%d)\n", s.Name, s.URI, s.Line)
		}
		fmt.Fprintln(c.stdout)
	}
	tw.Flush()
	fmt.Fprintf(c.stdout, "\n%d rules (%d MUST, %d SHOULD, %d open), %d scenarios\n",
		len(rules.Catalog), counts[rules.Must], counts[rules.Should], counts[rules.Open], len(scs))
	return exitOK
}
