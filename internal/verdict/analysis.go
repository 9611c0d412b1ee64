package verdict

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// Analysis is what a verdict's failures come to, worked out once from the
// model (Analyze) and read by the console, which decides none of it: the
// service's failure blocks in the one order, what to fix, the common
// cause, the kinds of answer each rule was broken with, and the failures
// shown first. A kind of answer is the evidence's typed status and media
// type, a failure's rule its Rule: no prose is parsed (a line to fix
// quotes its first failure's expected and actual as they are).
type Analysis struct {
	// Server are the service's failure blocks, in the one order.
	Server []Block
	// Fix is what to fix, a line a mistake (fixList); Broken counts the
	// rules broken it names.
	Fix    []string
	Broken int
	// Cause names what most blocks' answers share when that breaks the
	// document in itself ("" none: CommonCause).
	Cause string
	// firsts are the failures shown first, and the kinds each rule was
	// broken with (chooseFirsts).
	firsts firsts
}

// Analyze works out v's analysis: a verdict's writer calls it once.
func Analyze(v *Verdict) Analysis {
	var a Analysis
	server, _ := v.FailureOrder()
	for _, i := range server {
		a.Server = append(a.Server, v.Failures[i])
	}
	decides := slices.ContainsFunc(v.Rules, func(r Rule) bool { return r.Outcome == Fail && v.decides(r) })
	// The rules that decide the verdict show their first failures; when
	// none of them failed, every rule broken.
	show := func(id rules.RuleID) bool {
		r, ok := v.rule(id)
		return !ok || !decides || v.decides(r)
	}
	a.firsts = chooseFirsts(a.Server, show)
	broken := v.broken()
	a.Broken = len(broken)
	for _, r := range broken {
		if !show(r.ID) {
			a.firsts.also++
		}
	}
	a.Cause, _ = CommonCause(a.Server)
	a.Fix = v.fixList(a.Server, a.firsts)
	return a
}

// ConsoleKindsPerRule bounds the kinds of answer (a status and a media type) of one
// rule whose first failure the console shows: a rule failed by 201s and by
// 400s sent as text/plain is two mistakes, each with its block.
const ConsoleKindsPerRule = 3

// kind is what a failure's exchange came back with: a status and a media
// type (0 and "": no answer).
type kind struct {
	status int
	media  string
}

func (k kind) String() string {
	switch {
	case k.status == 0:
		return "no answer"
	case k.media == "":
		return fmt.Sprintf("%d with no media type", k.status)
	}
	return fmt.Sprintf("%d %s", k.status, k.media)
}

// answered says what came: "answered 401 text/html", "got no answer".
func (k kind) answered() string {
	if k.status == 0 {
		return "got no answer"
	}
	return "answered " + k.String()
}

// ruleKind is one rule failed with one kind of answer.
type ruleKind struct {
	rule rules.RuleID
	kind kind
}

// firsts is the brief console's choice of the failures to show: the first
// failure of each rule broken, and of each further kind of answer it was
// broken with (up to ConsoleKindsPerRule), each in the block that holds it.
type firsts struct {
	// show are the evidence indices each block shows (by index in the
	// blocks; -1: the block's error).
	show map[int][]int
	// shown are the rule-kinds each block shows first, in order.
	shown map[int][]ruleKind
	// count is every failure of each rule-kind.
	count map[ruleKind]int
	// kinds are each rule's kinds, in the order met, and first the block
	// (its number) of each rule-kind.
	kinds map[rules.RuleID][]kind
	first map[ruleKind]int
	// also counts the rules broken whose failures are not shown (SHOULD
	// rules, when a MUST rule failed): they are under To fix.
	also int
}

// chooseFirsts reads the blocks (in the one order) for the first failure of
// each rule and kind; a rule for which show is false is counted, never
// shown (what is counted does not depend on show).
func chooseFirsts(blocks []Block, show func(rules.RuleID) bool) firsts {
	f := firsts{show: map[int][]int{}, shown: map[int][]ruleKind{}, count: map[ruleKind]int{},
		kinds: map[rules.RuleID][]kind{}, first: map[ruleKind]int{}}
	meet := func(i, j int, rk ruleKind) {
		f.count[rk]++
		if _, ok := f.first[rk]; ok {
			return
		}
		f.first[rk] = blockNumber(blocks[i], i)
		f.kinds[rk.rule] = append(f.kinds[rk.rule], rk.kind)
		if show(rk.rule) && len(f.kinds[rk.rule]) <= ConsoleKindsPerRule {
			f.show[i] = append(f.show[i], j)
			f.shown[i] = append(f.shown[i], rk)
		}
	}
	for i, b := range blocks {
		if len(b.Evidence) == 0 {
			meet(i, -1, ruleKind{rule: b.Rule})
			continue
		}
		for j, e := range b.Evidence {
			id := cmp.Or(e.Rule, b.Rule)
			meet(i, j, ruleKind{id, kind{e.Status, e.MediaType}})
		}
	}
	return f
}

// blockNumber is a block's number in the one order (its place, from 1,
// for a verdict whose blocks were never numbered).
func blockNumber(b Block, i int) int {
	return cmp.Or(b.Number, i+1)
}

// fixList is the list of what to fix: each rule that decides the
// verdict, or a SHOULD rule, that failed, one line each, in the one order
// of the failures (server), with the essence of its first failure and the
// number of the block that shows it, or the kinds of answer it was broken
// with (f).
func (v *Verdict) fixList(server []Block, f firsts) []string {
	type found struct {
		essence string
		number  int
	}
	first := map[rules.RuleID]found{}
	for i, b := range server {
		for _, e := range b.Evidence {
			id := cmp.Or(e.Rule, b.Rule)
			if _, ok := first[id]; !ok {
				first[id] = found{"expected " + bound(e.Expected, 63, true) + "; got " + bound(e.Actual, 63, true), blockNumber(b, i)}
			}
		}
		if _, ok := first[b.Rule]; !ok && b.Error != "" {
			first[b.Rule] = found{"error: " + bound(b.Error, 123, true), blockNumber(b, i)}
		}
	}
	// MUST rules first (the one order), each level by its first block.
	failed := v.broken()
	slices.SortStableFunc(failed, func(a, b Rule) int {
		if c := levelRank(a.Level) - levelRank(b.Level); c != 0 {
			return c
		}
		return first[a.ID].number - first[b.ID].number
	})
	// A rule broken with several kinds of answer is as many mistakes:
	// each kind is named, with its count and its first block. Rules of one
	// level whose first failures read the same are one line, where the
	// first of them stands: one mistake, met by several rules' scenarios.
	type group struct {
		r      Rule
		ids    []string
		n      int64
		blocks []string
	}
	var groups []*group
	byEssence := map[string]*group{}
	for _, r := range failed {
		fd, ok := first[r.ID]
		key, alone := string(r.Level)+"\x00"+fd.essence, !ok || len(f.kinds[r.ID]) > 1
		if g := byEssence[key]; g != nil && !alone {
			g.ids, g.n, g.blocks = append(g.ids, string(r.ID)), g.n+r.Failures, append(g.blocks, strconv.Itoa(fd.number))
			continue
		}
		g := &group{r, []string{string(r.ID)}, r.Failures, []string{strconv.Itoa(fd.number)}}
		if !alone {
			byEssence[key] = g
		}
		groups = append(groups, g)
	}
	var out []string
	for _, g := range groups {
		r := g.r
		if len(g.ids) > 1 {
			out = append(out, fmt.Sprintf("%s (%s), %s: %s (blocks %s)", strings.Join(g.ids, ", "), Upper(r.Level), Plural(g.n, "failure"), first[r.ID].essence, strings.Join(g.blocks, ", ")))
			continue
		}
		line := fmt.Sprintf("%s (%s), %s", r.ID, Upper(r.Level), Plural(r.Failures, "failure"))
		if ks := f.kinds[r.ID]; len(ks) > 1 {
			var parts []string
			var exchanges int64
			for i, k := range ks {
				rk := ruleKind{r.ID, k}
				exchanges += int64(f.count[rk])
				switch {
				case i == ConsoleKindsPerRule:
					parts = append(parts, Plural(int64(len(ks)-i), "more kind"))
				case i < ConsoleKindsPerRule:
					parts = append(parts, fmt.Sprintf("%d %s (block %d)", f.count[rk], k.answered(), f.first[rk]))
				}
			}
			if exchanges != r.Failures {
				// A rule's failures are its scenarios'; one may have met
				// several kinds of answer.
				line += " over " + Plural(exchanges, "exchange")
			}
			line += ": " + strings.Join(parts, ", ")
		} else if fd, ok := first[r.ID]; ok {
			line += fmt.Sprintf(": %s (block %d)", fd.essence, fd.number)
		}
		out = append(out, line)
	}
	return out
}

// minCommon is how many failure blocks a common cause needs; fewer are
// read block by block.
const minCommon = 3

// answer is what a failure block's first answered exchange came back
// with, and what is wrong with it in itself, whatever was sent: a status
// the document does not have, a media type it does not have, or a body
// that is not the document's record for its status (shape says how, when
// the Error record's check said).
type answer struct {
	status    int
	media     string
	badStatus bool
	badMedia  bool
	badBody   bool
	shape     string
}

// faulty: the answer breaks the document in itself, so that one fix of
// the service (its error handler, its serializer) may mend every block
// that shares it. An answer the document has (200 with a Plant record,
// 400 with an Error record, as application/json) is no such cause: the
// blocks that share it failed for what was sent, each its own way.
func (a answer) faulty() bool { return a.badStatus || a.badMedia || a.badBody }

// blockAnswer reads a block's first answered exchange (ok false: none
// came).
func blockAnswer(b Block) (answer, bool) {
	for _, e := range b.Evidence {
		if e.Status == 0 {
			continue
		}
		a := answer{status: e.Status, media: e.MediaType}
		a.badStatus = !rules.Documented(e.Status)
		a.badMedia = e.MediaType != rules.DocumentedMedia
		if !a.badStatus && !a.badMedia {
			for _, f := range b.Evidence {
				if f.Status != e.Status {
					continue
				}
				switch f.Rule {
				case rules.ErrorRecord:
					a.badBody, a.shape = true, f.Actual
				case rules.ResponseDocumented:
					a.badBody = true
				}
			}
		}
		return a, true
	}
	return answer{}, false
}

// CommonCause names what most failure blocks' answers share, when what
// they share breaks the document in itself: a status it does not have, a
// media type it does not have, or a body that is not its record (an
// Error record without its error, say), and the status the steps expected
// where it was the same. It says nothing ("") when fewer than minCommon
// blocks, or fewer than two in three, share one such answer: blocks whose
// answers are the document's own (every one a 200 with a Plant record,
// to invalid bodies of different kinds) share nothing one fix mends. It
// returns the status too (0 with "").
func CommonCause(blocks []Block) (string, int) {
	count := map[answer]int{}
	shapes := map[answer][]string{} // the shapes said of each answer's bodies
	for _, b := range blocks {
		if a, ok := blockAnswer(b); ok && a.faulty() {
			shape := a.shape
			a.shape = "" // blocks share an answer whatever their checks said of it
			count[a]++
			if shape != "" {
				shapes[a] = appendOnce(shapes[a], shape)
			}
		}
	}
	var top answer
	for a, n := range count {
		if n > count[top] || n == count[top] && (a.status < top.status || a.status == top.status && a.media < top.media) {
			top = a
		}
	}
	n := count[top]
	if len(shapes[top]) == 1 {
		top.shape = shapes[top][0] // one shape, said wherever one was
	}
	if n < minCommon || 3*n < 2*len(blocks) {
		return "", 0
	}
	media := cmp.Or(top.media, "no media type")
	s := fmt.Sprintf("%d of %d failures came back with status %d %s (%s)", n, len(blocks), top.status, http.StatusText(top.status), media)
	var why []string
	if top.badStatus {
		why = append(why, "a status the document does not have")
	}
	if top.badMedia && !top.badStatus { // an undocumented status has no media type of the document's
		why = append(why, "a media type the document does not have (its answers are "+rules.DocumentedMedia+")")
	}
	if top.badBody {
		record := "Plant record"
		if top.status == http.StatusBadRequest {
			record = "Error record"
		}
		body := "a body that is not the document's " + record
		if top.shape != "" {
			body += " (" + top.shape + ")"
		}
		why = append(why, body)
	}
	s += ", " + strings.Join(why, ", and ")
	if want := expectedStatus(blocks, top.status); want != 0 && want != top.status {
		s += fmt.Sprintf(", where %d was expected", want)
	}
	return s + ": fix that one answer first; most of the blocks below may then pass", top.status
}

// expectedStatus is the status the rules of the blocks answered with
// status call for, when they all call for the same one: the rules of
// refusals call for 400, those of acceptance for 200.
func expectedStatus(blocks []Block, status int) int {
	want := 0
	for _, b := range blocks {
		if len(b.Evidence) == 0 || b.Evidence[0].Status != status {
			continue
		}
		switch e := rules.Expects(b.Rule); {
		case e == 0:
		case want != 0 && e != want:
			return 0
		default:
			want = e
		}
	}
	return want
}
