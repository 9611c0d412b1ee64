package verdict

import (
	"fmt"
	"slices"
	"strings"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// Shown is a failure block as every report shows it: its number, the
// same in the console, summary.md, report.html and junit.xml, and its
// fields (walk).
type Shown struct {
	// N numbers the service's blocks from 1 in the console's order; a
	// client block (proxy) is numbered among the clients', from 1.
	N     int
	Label string // "3)" or "client 1)"
	Index int    // the block's place in Verdict.Failures
	Block
	Fields []field
}

// A field is one labelled value of a failure block. walk lists a block's
// fields once, in the one order every writer shows them, and decides which
// show: a writer only formats them. Every writer shows the same fields
// (the scenario, the block's requirement with its source, the error of a
// block with no evidence, a piece's rule when it is not the block's, the
// time seen, the reproduction, the failures counted but not kept, the
// rerun); the console's display options (form) alone leave some out.
//
// Every piece of evidence has each of its fields, "" where it shows no
// value (a writer leaves those out; report.html keeps its layout by them),
// but same stands for request and response when the exchange is the one
// the piece before it showed, and reproduce is then "".
type field struct {
	Key   string   // where, requirement, error, rule, expected, actual, details, same, request, response, seen, reproduce, more, rerun
	Text  string   // the value ("" none; more: the rule)
	List  []string // details: the details
	Piece int      // the piece of evidence's place in the block (-1: the block's own)
	E     Evidence // the piece of evidence
	More  int64    // more: the failures counted, not kept
}

// form is a console's display option, which walk honours; the reports
// show every field whole (the zero form). brief: the console's first
// screen (not --verbose), whose requirements are cut to two lines of a
// screen (consoleRequirement) and whose failures counted but not kept
// writeFirsts counts. compact: a brief console of more blocks than
// maxCurlBlocks, which leaves out the scenario, the requirement's source,
// the time seen and the curl commands, so that it fits a screen or two;
// the reports keep them.
type form struct{ brief, compact bool }

// walk lists block b's fields in form fm. only picks the pieces of
// evidence shown (nil: all; -1 is the block's error): a piece shown alone
// whose exchange is another's (a generated case counted under the rule it
// broke) shows that exchange, its request and response alone.
func walk(b Block, only []int, fm form) []field {
	var fs []field
	add := func(key, text string, j int) {
		f := field{Key: key, Text: text, Piece: j}
		if j >= 0 {
			f.E = b.Evidence[j]
		}
		fs = append(fs, f)
	}
	brief := func(s string) string {
		if fm.brief {
			return bound(s, consoleRequirement, true)
		}
		return s
	}
	if b.Where != "" && !fm.compact {
		add("where", b.Where, -1)
	}
	own := len(b.Evidence) == 0 || slices.ContainsFunc(b.Evidence, func(e Evidence) bool { return e.Rule == b.Rule || e.Rule == "" })
	r, said := rules.Lookup(b.Rule)
	if said = said && (only == nil || own && slices.ContainsFunc(only, func(j int) bool {
		return j < 0 || b.Evidence[j].Rule == b.Rule || b.Evidence[j].Rule == ""
	})); said {
		req := brief(r.Requirement)
		if !fm.compact {
			req += " (spec: " + r.Source + ")"
		}
		add("requirement", req, -1)
	}
	add("error", b.Error, -1) // shown only when the block has no evidence
	if len(b.Evidence) > 0 {
		fs[len(fs)-1].Text = ""
	}
	borrowed := -1
	if only != nil && !slices.ContainsFunc(only, func(j int) bool { return j >= 0 && b.Evidence[j].Request != "" }) {
		borrowed = slices.IndexFunc(b.Evidence, func(e Evidence) bool { return e.Request != "" })
	}
	var last Evidence
	for j, e := range b.Evidence {
		switch {
		case j == borrowed:
			add("request", e.Request, j)
			add("response", e.Response, j)
			last = e
			continue
		case only != nil && !slices.Contains(only, j):
			continue
		}
		same := e.Request != "" && e.Request == last.Request && e.Response == last.Response && e.Reproduce == last.Reproduce
		if e.Request != "" {
			last = e
		}
		// The rule of a piece, when the requirement above does not say it.
		add("rule", "", j)
		if e.Rule != "" && (e.Rule != b.Rule || !said) {
			fs[len(fs)-1].Text = brief(e.Requirement)
		}
		add("expected", e.Expected, j)
		add("actual", e.Actual, j)
		add("details", "", j)
		fs[len(fs)-1].List = e.Details
		repro := e.Reproduce
		if same {
			add("same", "the one above", j)
			repro = ""
		} else {
			add("request", e.Request, j)
			add("response", e.Response, j)
		}
		if fm.compact {
			e.At, repro = "", ""
		}
		add("seen", e.At, j)
		add("reproduce", repro, j)
	}
	if b.More > 0 && !fm.brief {
		add("more", label(b.Rule), -1)
		fs[len(fs)-1].More = b.More
	}
	if b.Rerun != "" {
		add("rerun", b.Rerun, -1)
	}
	return fs
}

// FailureOrder gives the indices into v.Failures in the one order of every
// output: the service's blocks (failureOrder), then the clients' as found.
// OrderFailures puts the blocks so; a verdict it was not called on is read
// in the same order.
func (v *Verdict) FailureOrder() (server, client []int) {
	for i, b := range v.Failures {
		if b.Side == "client" {
			client = append(client, i)
		} else {
			server = append(server, i)
		}
	}
	slices.SortStableFunc(server, func(i, j int) int { return failureOrder(v.Failures[i], v.Failures[j]) })
	return server, client
}

// shown is every failure block, numbered and in FailureOrder.
func (v *Verdict) shown() []Shown {
	server, client := v.FailureOrder()
	out := make([]Shown, 0, len(v.Failures))
	for side, blocks := range [][]int{server, client} {
		for n, i := range blocks {
			label := fmt.Sprintf("%s%d)", []string{"", "client "}[side], n+1)
			out = append(out, Shown{N: n + 1, Label: label, Index: i, Block: v.Failures[i], Fields: walk(v.Failures[i], nil, form{})})
		}
	}
	return out
}

// OrderFailures puts the failure blocks in the one order (FailureOrder)
// and numbers them from 1 (Block.Number); a scenario's Failure follows its
// block. Finish calls it; a driver that adds blocks after Finish calls it
// again.
func (v *Verdict) OrderFailures() {
	server, client := v.FailureOrder()
	blocks := make([]Block, 0, len(v.Failures))
	to := make(map[int]int, len(v.Failures))
	for n, i := range append(server, client...) {
		blocks = append(blocks, v.Failures[i])
		blocks[n].Number, to[i+1] = n+1, n+1
	}
	copy(v.Failures, blocks)
	for i := range v.Scenarios {
		if n := v.Scenarios[i].Failure; n > 0 {
			v.Scenarios[i].Failure = to[n]
		}
	}
}

// failureOrder is the one order of the service's failure blocks: by level
// (MUST, SHOULD, the rest), then catalog order, then as found.
func failureOrder(a, b Block) int {
	if c := levelRank(a.Level) - levelRank(b.Level); c != 0 {
		return c
	}
	return CatalogIndex(a.Rule) - CatalogIndex(b.Rule)
}

// ShownGroup is one rule's failure blocks as report.html shows them, in
// the one order: the first block of each kind of answer (a status and a
// media type), and the blocks that repeat a kind already shown folded
// under them, a click away, with their count by kind.
type ShownGroup struct {
	Rule  rules.RuleID
	Level rules.Level
	// Client: the blocks are the clients' (proxy).
	Client bool
	Blocks []Shown
	Folded []Shown
	// FoldedKinds counts the folded blocks by kind ("201 application/json
	// ×20").
	FoldedKinds string
	// Total is the group's number of blocks, More of those folded.
	Total, More int64
}

// shownGroups is shown, cut into one group per rule (the one order keeps a
// rule's blocks together).
func (v *Verdict) shownGroups() []ShownGroup {
	var out []ShownGroup
	kindOf := func(s Shown) (k kind) {
		if a, ok := blockAnswer(s.Block); ok {
			k = kind{a.status, a.media}
		}
		return k
	}
	for _, s := range v.shown() {
		client := s.Side == "client"
		if len(out) == 0 || out[len(out)-1].Rule != s.Rule || out[len(out)-1].Client != client {
			out = append(out, ShownGroup{Rule: s.Rule, Level: s.Level, Client: client})
		}
		g := &out[len(out)-1]
		if slices.ContainsFunc(g.Blocks, func(o Shown) bool { return kindOf(o) == kindOf(s) }) {
			g.Folded = append(g.Folded, s)
		} else {
			g.Blocks = append(g.Blocks, s)
		}
	}
	for i := range out {
		out[i].Total, out[i].More = int64(len(out[i].Blocks)+len(out[i].Folded)), int64(len(out[i].Folded))
		var kinds []kind
		n := map[kind]int{}
		for _, s := range out[i].Folded {
			kinds = appendOnce(kinds, kindOf(s))
			n[kindOf(s)]++
		}
		parts := make([]string, len(kinds))
		for j, k := range kinds {
			parts[j] = fmt.Sprintf("%s ×%d", k, n[k])
		}
		out[i].FoldedKinds = strings.Join(parts, ", ")
	}
	return out
}
