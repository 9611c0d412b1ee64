// Package history reads the verdicts plantcheck wrote before (their
// summary.json, checked against the published schema: ReadFile) and sets
// them against each other or against a new one: a baseline whose known
// failures a run or a proxy is decided against (LoadBaseline, filling
// verdict.Baseline), the diff of two verdicts (Compare), the table of
// several implementations' verdicts (CompareAll, compare.html) and the
// merge of several proxies' verdicts into one (Merge). A baseline is a
// baseline file (File, written by --baseline-update: WriteBaseline) or an
// earlier summary.json. It writes no report of a verdict itself: a merged
// verdict is decided and written by package verdict.
package history

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// ErrBaseline is what every refusal of a baseline is (errors.Is): the
// file cannot serve as a baseline of this plantcheck (exit status 2).
var ErrBaseline = errors.New("baseline refused")

// File is a baseline file (baseline.schema.json): the failures a team
// knows of, written by --baseline-update (WriteBaseline) and edited by
// hand.
type File struct {
	Schema     string                  `json:"schema"`
	Driver     verdict.Driver          `json:"driver"`
	Plantcheck string                  `json:"plantcheck"`
	Entries    []verdict.BaselineEntry `json:"entries"`
	NotJudged  []rules.RuleID          `json:"notJudged,omitempty"`
}

// Entries are the known failures a verdict shows, one entry of each rule
// and kind of answer its evidence shows, and of each scenario (run) when
// byScenario: the baseline the same run passes with.
func Entries(v *verdict.Verdict, byScenario bool) []verdict.BaselineEntry {
	out := []verdict.BaselineEntry{}
	v.ServerFailures(func(b verdict.Block, e verdict.Evidence) {
		en := verdict.BaselineEntry{Rule: e.Rule, Kind: e.Kind()}
		if byScenario {
			en.Scenario = b.Scenario
		}
		out = append(out, en)
	})
	slices.SortFunc(out, func(a, b verdict.BaselineEntry) int {
		return cmp.Or(cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Scenario, b.Scenario), cmp.Compare(a.Kind, b.Kind))
	})
	return slices.Compact(out)
}

// WriteBaseline writes the baseline v passes with into the file name
// (--baseline-update): an entry for each rule and kind of answer it
// failed with (not its scenarios: a team reads and keeps a rule's kinds,
// and which scenarios show a broken rule may be the run's draw), with the reason
// of the entry of v's baseline that held it, and the rules it did not
// judge.
func WriteBaseline(name string, v *verdict.Verdict) error {
	f := File{Schema: verdict.BaselineSchemaID, Driver: v.Driver, Plantcheck: v.Plantcheck.Version, Entries: Entries(v, false), NotJudged: notJudged(v)}
	if v.Base != nil {
		// The reasons of the baseline the verdict was made against stay
		// with the failures they were given for.
		for i, en := range f.Entries {
			if j := slices.IndexFunc(v.Base.Entries, func(old verdict.BaselineEntry) bool { return old.Reason != "" && old.Covers(en) }); j >= 0 {
				f.Entries[i].Reason = v.Base.Entries[j].Reason
			}
		}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return verdict.WriteAtomic(filepath.Dir(name), filepath.Base(name), append(b, '\n'))
}

// LoadBaseline reads the file name as a baseline of a verdict driver will
// make: a baseline file (baseline.schema.json), or an earlier summary.json
// (Read, NewBaseline).
func LoadBaseline(name string, driver verdict.Driver) (*verdict.Baseline, error) {
	refuse := func(err error) (*verdict.Baseline, error) {
		return nil, fmt.Errorf("%w: %s: %v", ErrBaseline, evidence.Text(name), err)
	}
	b, err := ReadBounded(name, MaxSummary)
	if err != nil {
		return refuse(err)
	}
	var head struct{ Schema string }
	if json.Unmarshal(b, &head) != nil || head.Schema != verdict.BaselineSchemaID {
		base, err := Read(b)
		if err != nil {
			return refuse(err)
		}
		return NewBaseline(base, name, driver)
	}
	if err := verdict.CheckBaseline(b); err != nil {
		return refuse(fmt.Errorf("it does not follow baseline.schema.json: %s", schemaWhy(err)))
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return refuse(err)
	}
	if f.Driver != driver {
		return refuse(fmt.Errorf("a baseline of 'plantcheck %s', not of 'plantcheck %s'", f.Driver, driver))
	}
	for _, en := range f.Entries {
		if _, ok := rules.Lookup(en.Rule); !ok {
			return refuse(fmt.Errorf("an entry names rule %s, which this plantcheck's catalog lacks: remove it, or name the rule as 'plantcheck rules' lists it", evidence.Text(string(en.Rule))))
		}
	}
	return &verdict.Baseline{File: evidence.Text(name), Plantcheck: evidence.Text(f.Plantcheck), NotJudged: f.NotJudged,
		Compared: "a baseline file: its entries name rules of this plantcheck's catalog", Entries: f.Entries}, nil
}

// develVersion reports whether a plantcheck version names no release
// (a build from a work tree): two such builds may judge differently.
func develVersion(v string) bool { return v == "" || v == "devel" || v == "(devel)" }

// NewBaseline makes base, read from file, the baseline of a verdict driver
// will make with this plantcheck. It refuses (ErrBaseline, with the reason)
// a verdict of the other driver, of a run that could not be made, judged by
// another document, or by another suite: another plantcheck version when
// both are releases, else other features (a devel build is compared by
// what it can be: the spec's and the features' digests, and says so).
func NewBaseline(base *verdict.Verdict, file string, driver verdict.Driver) (*verdict.Baseline, error) {
	name := evidence.Text(file)
	refuse := func(format string, a ...any) (*verdict.Baseline, error) {
		return nil, fmt.Errorf("%w: %s: %s", ErrBaseline, name, fmt.Sprintf(format, a...))
	}
	var cur verdict.Verdict
	title, version := "", ""
	if sv, err := spec.Default(); err == nil {
		title, version = sv.Info().Title, sv.Info().Version
	}
	cur.Stamp(title, version)
	bv := evidence.Text(base.Plantcheck.Version)
	switch {
	case base.Driver != driver:
		return refuse("written by 'plantcheck %s', not by 'plantcheck %s': a baseline is a verdict of the same command", evidence.Text(string(base.Driver)), driver)
	case base.Error != "":
		return refuse("a run that could not be made (%s): it knows no failure; make the baseline from a run that judged", evidence.Text(evidence.Cut(base.Error, 200)))
	case base.Spec.SHA256 != cur.Spec.SHA256:
		return refuse("judged by the spec %s %s (sha256 %.12s…), this plantcheck judges by %s %s (sha256 %.12s…): its failures cannot be compared; make a new baseline with this plantcheck",
			evidence.Text(base.Spec.Title), evidence.Text(base.Spec.Version), evidence.Text(base.Spec.SHA256), cur.Spec.Title, cur.Spec.Version, cur.Spec.SHA256)
	case !develVersion(base.Plantcheck.Version) && !develVersion(cur.Plantcheck.Version) && base.Plantcheck.Version != cur.Plantcheck.Version:
		return refuse("written by plantcheck %s, this is plantcheck %s: another suite may have other scenarios and judge otherwise; make a new baseline with this plantcheck", bv, cur.Plantcheck.Version)
	case base.Features.SHA256 != cur.Features.SHA256:
		return refuse("written by plantcheck %s with other features (sha256 %.12s…, these %.12s…): the scenarios differ; make a new baseline with this plantcheck", bv, evidence.Text(base.Features.SHA256), cur.Features.SHA256)
	}
	compared := fmt.Sprintf("plantcheck %s, spec %s %s and its sha256, features sha256: the same", bv, cur.Spec.Title, cur.Spec.Version)
	if develVersion(base.Plantcheck.Version) || develVersion(cur.Plantcheck.Version) {
		compared = fmt.Sprintf("spec %s %s and its sha256, features sha256: the same; plantcheck %s and %s: not compared (a build with no release version; its judging may differ)",
			cur.Spec.Title, cur.Spec.Version, bv, buildinfo.Version())
	}
	b := &verdict.Baseline{File: name, Compared: compared, Plantcheck: bv, Entries: Entries(base, true), NotJudged: notJudged(base)}
	if slices.ContainsFunc(b.Entries, func(en verdict.BaselineEntry) bool { return en.Kind == verdict.KindUntyped }) {
		return refuse("written before plantcheck recorded each failure's kind of answer (its status and media type): make a new baseline with --baseline-update")
	}
	return b, nil
}

// notJudged are the rules v did not judge.
func notJudged(v *verdict.Verdict) (ids []rules.RuleID) {
	for _, r := range v.Rules {
		if r.Outcome == verdict.NotJudged {
			ids = append(ids, r.ID)
		}
	}
	return ids
}
