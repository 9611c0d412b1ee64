package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// The docs' counts and lists come from the code, or are not written: a
// count of mutants goes stale with the next mutant, so the docs name none,
// and the lists they keep are held to the code here.

// userDocs are the pages a user reads.
func userDocs(t *testing.T) map[string]string {
	t.Helper()
	names, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	names = append(names, "../../README.md", "../../ARCHITECTURE.md")
	docs := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		docs[filepath.Base(n)] = string(b)
	}
	return docs
}

// TestDocsCountNoMutants: no page says how many mutants there are, or how
// many the proxy catches: selftest --list and its table count them.
func TestDocsCountNoMutants(t *testing.T) {
	t.Parallel()
	count := regexp.MustCompile(`\b\d+ (\*|of the )?mutants?\b|catch(es)? \d+\b`)
	for name, text := range userDocs(t) {
		for _, m := range count.FindAllString(text, -1) {
			t.Errorf("%s says %q: a count of mutants drifts with the next one (%d now); say where to count them (plantcheck selftest --list)", name, m, len(mutants.All))
		}
	}
}

// paragraph returns the paragraph of text that begins with start.
func paragraph(t *testing.T, text, start string) string {
	t.Helper()
	i := strings.Index(text, start)
	if i < 0 {
		t.Fatalf("no paragraph begins %q", start)
	}
	p, _, _ := strings.Cut(text[i:], "\n\n")
	return p
}

var backticked = regexp.MustCompile("`([a-z0-9-]+|[A-Z0-9-]+)`")

// TestProxyDocsListsFromCode: docs/proxy.md's list of the rules traffic
// cannot show is judge.Rules' (those with a reason, but the open rules,
// which it names as a group), and every mutant it names is one.
func TestProxyDocsListsFromCode(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../docs/proxy.md")
	if err != nil {
		t.Fatal(err)
	}
	p := paragraph(t, string(raw), "**What it cannot judge**")
	rulesPart, mutantsPart, ok := strings.Cut(p, "Run through the proxy")
	if !ok {
		t.Fatal("the paragraph no longer says which mutants the proxy cannot catch")
	}
	var listed, want []string
	for _, m := range backticked.FindAllStringSubmatch(rulesPart, -1) {
		if _, ok := rules.Lookup(rules.RuleID(m[1])); ok {
			listed = append(listed, m[1])
		}
	}
	for _, r := range judge.Rules {
		if rule, _ := rules.Lookup(r.ID); r.NotFromTraffic != "" && rule.Level != rules.Open {
			want = append(want, string(r.ID))
		}
	}
	slices.Sort(listed)
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Errorf("docs/proxy.md lists the rules traffic cannot show as\n  %v\nthe judge's (judge.Rules with NotFromTraffic):\n  %v", listed, want)
	}
	for _, m := range backticked.FindAllStringSubmatch(mutantsPart, -1) {
		if strings.ToLower(m[1]) != m[1] {
			continue
		}
		if _, ok := mutants.Lookup(m[1]); !ok {
			t.Errorf("docs/proxy.md names the mutant %q, which internal/selftest/mutants has not", m[1])
		}
	}
}
