package verdict

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// Tally is the one aggregation of results per rule: `run` counts its
// scenarios' judgements into it, `proxy` and `plantcheck judge` each
// exchange they judge (Exchange), history.Merge the verdicts it combines;
// Rules then gives every rule of the catalog its outcome by one decision.
// A tally of traffic holds besides the counts of its exchanges, the
// client groups and the first failures of each rule as evidence, which
// Traffic writes into a verdict. It is safe for concurrent use.
type Tally struct {
	mu      sync.Mutex
	rules   []Rule
	at      map[rules.RuleID]int
	inScope map[rules.RuleID]bool
	errored map[rules.RuleID]bool
	because map[rules.RuleID]string
	partly  map[rules.RuleID][]string

	// Of traffic: the counts, the exchanges judged in part by reason, the
	// requests of each client group, and the evidence kept of each rule
	// broken and each client group, up to keep pieces each.
	counts    Counts
	notJudged map[string]int64
	clients   map[rules.RuleID]int64
	kept      map[Slot]*kept
	keep      int
}

// kept is the evidence kept of one rule or client group, and the pieces
// reserved while they are made.
type kept struct {
	reserved int
	evidence []Evidence
}

// NewTally is a tally of every rule of the catalog, in its order, none of
// them counted yet.
func NewTally() *Tally { return NewTrafficTally(0) }

// NewTrafficTally is a tally that keeps up to keep failures of each rule
// and of each client group as evidence.
func NewTrafficTally(keep int) *Tally {
	t := &Tally{
		at: map[rules.RuleID]int{}, inScope: map[rules.RuleID]bool{}, errored: map[rules.RuleID]bool{},
		because: map[rules.RuleID]string{}, partly: map[rules.RuleID][]string{},
		notJudged: map[string]int64{}, clients: map[rules.RuleID]int64{}, kept: map[Slot]*kept{}, keep: keep,
		counts: Counts{ProxyAnswers: map[string]int64{}},
	}
	for i, r := range rules.Catalog {
		t.rules = append(t.rules, Rule{ID: r.ID, Level: r.Level, Requirement: r.Requirement, Source: r.Source})
		t.at[r.ID] = i
	}
	return t
}

// rule is id's entry, nil for a rule not in the catalog.
func (t *Tally) rule(id rules.RuleID) *Rule {
	i, ok := t.at[id]
	if !ok {
		return nil
	}
	return &t.rules[i]
}

// Has reports whether id is a rule of the catalog.
func (t *Tally) Has(id rules.RuleID) bool { _, ok := t.at[id]; return ok }

// on calls f with id's entry, locked; a rule not in the catalog is left
// alone.
func (t *Tally) on(id rules.RuleID, f func(*Rule)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r := t.rule(id); r != nil {
		f(r)
	}
}

// Scenario counts one scenario of the rule that ran (run): the rule was
// selected, and is not judged unless something judged it.
func (t *Tally) Scenario(id rules.RuleID) {
	t.on(id, func(r *Rule) { r.Scenarios++; t.inScope[id] = true })
}

// Judged counts judged judgements of the rule, passed of which kept it.
func (t *Tally) Judged(id rules.RuleID, judged, passed int64) {
	t.on(id, func(r *Rule) { r.Judged += judged; r.Passed += passed })
}

// Failed counts n failures citing the rule.
func (t *Tally) Failed(id rules.RuleID, n int64) { t.on(id, func(r *Rule) { r.Failures += n }) }

// Errored marks the rule as met by an error of the harness or the network
// (a scenario of it erred).
func (t *Tally) Errored(id rules.RuleID) { t.on(id, func(*Rule) { t.errored[id] = true }) }

// Unjudged says why some of the rule's judgements were not made (a
// scenario of it was not judged); each reason is said once, and stays
// beside whatever outcome the rule has.
func (t *Tally) Unjudged(id rules.RuleID, why string) {
	t.on(id, func(*Rule) { t.partly[id] = appendOnce(t.partly[id], why) })
}

// NoVerdict puts the rule in scope with why it may have no verdict (proxy:
// traffic cannot show it, or none that could came); the first reason
// given stands, and is said only if nothing judged the rule.
func (t *Tally) NoVerdict(id rules.RuleID, why string) {
	t.on(id, func(*Rule) {
		if !t.inScope[id] {
			t.inScope[id], t.because[id] = true, why
		}
	})
}

// Note keeps a note for the rule, each once.
func (t *Tally) Note(id rules.RuleID, note string) {
	t.on(id, func(r *Rule) { r.Notes = appendOnce(r.Notes, note) })
}

// FoundBy names a scenario of another rule that found this rule broken,
// each once.
func (t *Tally) FoundBy(id rules.RuleID, by string) {
	t.on(id, func(r *Rule) { r.FoundBy = appendOnce(r.FoundBy, by) })
}

// Rules are the rules of the catalog with their outcomes: failed when a
// failure cites the rule, error when the harness or the network broke a
// judgement of it, passed when a judgement kept it, not judged when in
// scope but never judged (never a pass), and skipped (not run) otherwise.
func (t *Tally) Rules() []Rule {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.outcomes()
}

func (t *Tally) outcomes() []Rule {
	out := slices.Clone(t.rules)
	for i := range out {
		r := &out[i]
		switch {
		case r.Failures > 0:
			r.Outcome = Fail
		case t.errored[r.ID]:
			r.Outcome = Error
		case r.Passed > 0:
			// A pass rests on judgements that kept the rule, never on a
			// count alone.
			r.Outcome = Pass
		case t.inScope[r.ID]:
			r.Outcome = NotJudged
		default:
			r.Outcome = Skip
		}
		r.NotJudgedBecause = strings.Join(t.partly[r.ID], "; ")
		if r.NotJudgedBecause == "" && r.Outcome == NotJudged {
			r.NotJudgedBecause = t.because[r.ID]
		}
	}
	return out
}

// Judged is one judged exchange as a tally counts it.
type Judged struct {
	// Passed and Failed are the rules judged on it that it kept and broke.
	Passed, Failed []rules.RuleID
	// Client are the groups of the ways its request broke the document
	// (the rule whose refusal it calls for; "" for none in particular),
	// none when the document accepts it.
	Client []rules.RuleID
	// Unjudged say why parts of it were not judged.
	Unjudged []string
	// Own is the kind of the proxy's own answer its client got in the
	// service's place ("": the service's answer).
	Own string
}

// Slot is the place of one failure's evidence: a rule the service broke
// (Side "server"), or a client group (Side "client").
type Slot struct {
	Side string
	Rule rules.RuleID
}

// maxReasons bounds the distinct reasons counted for what was not judged.
const maxReasons = 32

// Exchange counts one judged exchange, and returns the failures of it that
// have room as evidence, reserved: the caller makes each piece and gives
// it to Keep. A request that broke the document counts toward each of its
// groups, and is kept once, under the first with room.
func (t *Tally) Exchange(j Judged) []Slot {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := &t.counts
	c.Exchanges++
	c.Judged++
	if j.Own != "" {
		c.ProxyAnswers[j.Own]++
	}
	if len(j.Unjudged) > 0 {
		c.JudgedInPart++
	}
	for _, why := range j.Unjudged {
		if _, ok := t.notJudged[why]; !ok && len(t.notJudged) >= maxReasons {
			why = "other reasons"
		}
		t.notJudged[why]++
	}
	var keep []Slot
	for _, id := range j.Passed {
		if r := t.rule(id); r != nil {
			r.Judged++
			r.Passed++
		}
	}
	for _, id := range j.Failed {
		if r := t.rule(id); r != nil {
			r.Judged++
			r.Failures++
			c.ServerViolations++
			keep = t.reserve(keep, Slot{"server", id})
		}
	}
	if len(j.Client) > 0 {
		c.ClientViolations++
	}
	kept := len(keep)
	for _, g := range j.Client {
		t.clients[g]++
		if len(keep) == kept {
			keep = t.reserve(keep, Slot{"client", g})
		}
	}
	return keep
}

// slot is what s keeps.
func (t *Tally) slot(s Slot) *kept {
	if t.kept[s] == nil {
		t.kept[s] = &kept{}
	}
	return t.kept[s]
}

// reserve adds s to keep when it has room for one more piece.
func (t *Tally) reserve(keep []Slot, s Slot) []Slot {
	k := t.slot(s)
	if len(k.evidence)+k.reserved >= t.keep {
		return keep
	}
	k.reserved++
	return append(keep, s)
}

// Keep keeps a failure's evidence in s, in the room Exchange reserved, or
// in room left (merge).
func (t *Tally) Keep(s Slot, e Evidence) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := t.slot(s)
	switch {
	case k.reserved > 0:
		k.reserved--
	case len(k.evidence) >= t.keep:
		return
	}
	k.evidence = append(k.evidence, e)
}

// Outside counts an exchange not of the document's operation: forwarded,
// never judged.
func (t *Tally) Outside() { t.passed(func(c *Counts) { c.OutsideDocument++ }) }

// Gone counts an exchange whose client went away before the answer ended,
// or that a recording holds no answer of.
func (t *Tally) Gone() { t.passed(func(c *Counts) { c.ClientGone++ }) }

// BrokeOff counts an exchange the upstream gave no whole answer to: it
// broke its answer off, or (a recording) refused, reset or closed the
// connection, or did not answer in time.
func (t *Tally) BrokeOff() { t.passed(func(c *Counts) { c.UpstreamBrokeOff++ }) }

// Own counts an exchange the proxy answered itself, by kind, never the
// service's: the upstream gave no answer.
func (t *Tally) Own(kind string) { t.passed(func(c *Counts) { c.ProxyAnswers[kind]++ }) }

// passed counts an exchange that passed, not judged, and how.
func (t *Tally) passed(how func(*Counts)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.counts.Exchanges++
	how(&t.counts)
}

// Counts are the counts of the traffic so far.
func (t *Tally) Counts() Counts {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.counts
	c.ProxyAnswers = maps.Clone(c.ProxyAnswers)
	return c
}

// Clients are the client groups so far, by rule.
func (t *Tally) Clients() []ClientGroup {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.groups()
}

func (t *Tally) groups() []ClientGroup {
	var out []ClientGroup
	for _, id := range slices.Sorted(maps.Keys(t.clients)) {
		out = append(out, ClientGroup{Rule: id, Requests: t.clients[id]})
	}
	return out
}

// Progress is the traffic's running count, for a progress line.
func (t *Tally) Progress() string {
	c := t.Counts()
	return fmt.Sprintf("%s (%d judged), %s, %s, %d answered by the proxy", Plural(int64(c.Exchanges), "exchange"), c.Judged,
		Plural(c.ServerViolations, "server-side violation"), Plural(c.ClientViolations, "client-side violation"), c.ownAnswers())
}

// Add counts a verdict of traffic into the tally (history.Merge): its
// counts, the exchanges judged in part, each rule's judgements, the client
// groups, and the evidence of its failure blocks while there is room.
// Every string of it is escaped again (a summary may have been edited);
// safe does so for a piece of evidence. An error names a rule the catalog
// lacks.
func (t *Tally) Add(v *Verdict, safe func(Evidence) Evidence) error {
	for _, r := range v.Rules {
		if !t.Has(r.ID) {
			return fmt.Errorf("rule %q is not in this plantcheck's catalog", evidence.Text(string(r.ID)))
		}
		t.NoVerdict(r.ID, evidence.Text(r.NotJudgedBecause))
		t.Judged(r.ID, r.Judged, r.Passed)
		t.Failed(r.ID, r.Failures)
	}
	for _, b := range v.Failures {
		for _, e := range b.Evidence {
			t.Keep(Slot{b.Side, b.Rule}, safe(e))
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	c, n := &t.counts, v.Counts
	c.Exchanges += n.Exchanges
	c.Judged += n.Judged
	c.JudgedInPart += n.JudgedInPart
	c.OutsideDocument += n.OutsideDocument
	c.ClientGone += n.ClientGone
	c.UpstreamBrokeOff += n.UpstreamBrokeOff
	c.ServerViolations += n.ServerViolations
	c.ClientViolations += n.ClientViolations
	for kind, m := range n.ProxyAnswers {
		c.ProxyAnswers[evidence.Text(kind)] += m
	}
	for _, n := range v.NotJudgedInPart {
		t.notJudged[evidence.Text(n.Reason)] += n.N
	}
	for _, g := range v.Client {
		t.clients[g.Rule] += g.Requests
	}
	return nil
}

// Traffic writes the traffic counted into v: its counts, the exchanges
// judged in part by reason, the rules, the client groups, and a failure
// block for each rule broken and each client group, with the evidence
// kept, each string of it passed through red (a redaction of every secret
// seen since it was kept). A client's evidence cites no rule.
func (t *Tally) Traffic(v *Verdict, red func(string) string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v.Counts = t.counts
	v.Counts.ProxyAnswers = maps.Clone(t.counts.ProxyAnswers)
	for _, why := range slices.Sorted(maps.Keys(t.notJudged)) {
		v.NotJudgedInPart = append(v.NotJudgedInPart, Count{Reason: why, N: t.notJudged[why]})
	}
	v.Rules = t.outcomes()
	v.Client = t.groups()
	// add adds block b of n failures, with the evidence its slot kept.
	add := func(b Block, n int64) {
		for _, e := range t.slot(Slot{b.Side, b.Rule}).evidence {
			e.Expected, e.Actual, e.Details = red(e.Expected), red(e.Actual), slices.Clone(e.Details)
			e.Request, e.Response, e.Reproduce = red(e.Request), red(e.Response), red(e.Reproduce)
			for i := range e.Details {
				e.Details[i] = red(e.Details[i])
			}
			if b.Side != "server" {
				e.Rule, e.Level, e.Requirement = "", "", ""
			}
			b.Evidence = append(b.Evidence, e)
		}
		b.Outcome, b.More = Fail, n-int64(len(b.Evidence))
		v.Failures = append(v.Failures, b)
	}
	for _, r := range v.Rules {
		if r.Failures > 0 {
			add(Block{Heading: string(r.ID) + " (" + Upper(r.Level) + ")", Rule: r.ID, Level: r.Level, Side: "server"}, r.Failures)
		}
	}
	for _, g := range v.Client {
		add(Block{Heading: "client request, " + g.Label(), Rule: g.Rule, Side: "client"}, g.Requests)
	}
}

func appendOnce[T comparable](list []T, x T) []T {
	if slices.Contains(list, x) {
		return list
	}
	return append(list, x)
}
