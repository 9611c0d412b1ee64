package proxy

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// Options are the choices that turn the tallies into an exit status.
type Options struct {
	// Strict: a failed SHOULD rule fails the verdict too.
	Strict bool
	// StrictClients: a request that broke the document fails the verdict
	// too (by default it is reported, not failed: it is the client's).
	StrictClients bool
	// Baseline, when set, is the earlier verdict whose failures are known
	// (--baseline): the exit status is decided against it.
	Baseline *verdict.Baseline
}

// tally counts what the proxy saw and keeps the first failures of each
// rule, under one lock.
type tally struct {
	mu          sync.Mutex
	maxFailures int
	maxJudge    int64
	upstream    string
	timeout     time.Duration
	started     time.Time

	exchanges, judged, partly, outsideN, goneN, brokenN int64
	serverFailures, clientRequests                      int64
	ownN                                                map[string]int64
	unjudged                                            map[string]int64
	rules                                               map[rules.RuleID]*ruleTally
	client                                              map[rules.RuleID]*ruleTally
}

type ruleTally struct {
	judged, failed int64
	reserved       int // failures being written as evidence
	kept           []verdict.Evidence
}

// maxReasons bounds the distinct reasons counted for what was not judged.
const maxReasons = 32

func newTally(maxFailures int, maxJudge int64, upstream string, timeout time.Duration) *tally {
	t := &tally{
		maxFailures: maxFailures, maxJudge: maxJudge, upstream: upstream, timeout: timeout, started: time.Now(),
		ownN: map[string]int64{}, unjudged: map[string]int64{},
		rules: map[rules.RuleID]*ruleTally{}, client: map[rules.RuleID]*ruleTally{},
	}
	for _, id := range judge.FromTraffic {
		t.rules[id] = &ruleTally{}
	}
	return t
}

func (t *tally) outside() { t.mu.Lock(); t.exchanges++; t.outsideN++; t.mu.Unlock() }
func (t *tally) gone()    { t.mu.Lock(); t.exchanges++; t.goneN++; t.mu.Unlock() }
func (t *tally) broken()  { t.mu.Lock(); t.exchanges++; t.brokenN++; t.mu.Unlock() }
func (t *tally) own(kind string) {
	t.mu.Lock()
	t.exchanges++
	t.ownN[kind]++
	t.mu.Unlock()
}

// Progress is a running count, for a progress line.
type Progress struct {
	Exchanges, Judged, ServerViolations, ClientViolations, ProxyAnswers int64
}

func (p Progress) String() string {
	return fmt.Sprintf("%s (%d judged), %s, %s, %d answered by the proxy", plural(p.Exchanges, "exchange"), p.Judged,
		plural(p.ServerViolations, "server-side violation"), plural(p.ClientViolations, "client-side violation"), p.ProxyAnswers)
}

// Progress returns the counts so far.
func (h *Handler) Progress() Progress {
	t := h.tally
	t.mu.Lock()
	defer t.mu.Unlock()
	p := Progress{Exchanges: t.exchanges, Judged: t.judged, ServerViolations: t.serverFailures, ClientViolations: t.clientRequests}
	for _, n := range t.ownN {
		p.ProxyAnswers += n
	}
	return p
}

// record counts one judged exchange, and keeps as evidence the failures
// of rules that have room for more.
func (h *Handler) record(x *flight, o *judge.Outcome, sum *Seen) {
	ds := defects(o)
	own := exchange.QuerySecrets(x.to.RawQuery, exchange.HeaderSecrets(x.respHeader, exchange.HeaderSecrets(x.header, nil)))
	h.secrets.add(own)
	t := h.tally
	var keep []rules.RuleID
	var keepClient []rules.RuleID
	t.mu.Lock()
	t.exchanges++
	t.judged++
	if len(o.Unjudged) > 0 {
		t.partly++
	}
	for _, why := range o.Unjudged {
		if _, ok := t.unjudged[why]; !ok && len(t.unjudged) >= maxReasons {
			why = "other reasons"
		}
		t.unjudged[why]++
	}
	for _, r := range o.Results {
		rt := t.rules[r.Rule]
		rt.judged++
		if r.OK() {
			continue
		}
		rt.failed++
		t.serverFailures++
		sum.Failed = append(sum.Failed, string(r.Rule))
		if len(rt.kept)+rt.reserved < t.maxFailures {
			rt.reserved++
			keep = append(keep, r.Rule)
		}
	}
	if o.Client {
		t.clientRequests++
		sum.Client = true
		labels := []rules.RuleID{""} // no rule in particular
		if len(ds) > 0 {
			labels = labels[:0]
			for _, d := range ds {
				if l := ruleLabel(d); !slices.Contains(labels, l) {
					labels = append(labels, l)
				}
			}
		}
		// A request counts toward every way it breaks the document, and
		// is kept as evidence once, under the first with room for it.
		for _, l := range labels {
			ct := t.client[l]
			if ct == nil {
				ct = &ruleTally{}
				t.client[l] = ct
			}
			ct.failed++
			if len(keepClient) == 0 && len(ct.kept)+ct.reserved < t.maxFailures {
				ct.reserved++
				keepClient = append(keepClient, l)
			}
		}
	}
	t.mu.Unlock()
	sum.Judged = true
	sum.Unjudged = joinWhy(o.Unjudged)
	logged := h.events != nil && (len(sum.Failed) > 0 || o.Client)
	if len(keep) == 0 && len(keepClient) == 0 && !logged {
		return
	}

	// Evidence: the exchange judged again with every secret hidden, those
	// of its body too (looked for only here: most exchanges keep none).
	own = exchange.BodySecrets(x.reqBody.body, own)
	h.secrets.add(own)
	red := h.secrets.redactor(own)
	again := h.judge(x, red.String)
	if logged {
		h.logEvents(x, o, again, red)
	}
	if len(keep) == 0 && len(keepClient) == 0 {
		return
	}
	var made []verdict.Evidence
	for _, rule := range keep {
		j, ok := failedIn(again, rule)
		if !ok {
			j, _ = failedIn(o, rule)
		}
		made = append(made, h.failure(x, red, "server", rule, j.Expected, j.Actual, details(j)))
	}
	var madeClient []verdict.Evidence
	for _, l := range keepClient {
		what := "the request breaks the document"
		for _, d := range ds {
			if ruleLabel(d) == l {
				what = d.what
				break
			}
		}
		madeClient = append(madeClient, h.failure(x, red, "client", l,
			"a request the document accepts", what, violationLines(o.Violations)))
	}
	t.mu.Lock()
	for i, rule := range keep {
		rt := t.rules[rule]
		rt.reserved--
		rt.kept = append(rt.kept, made[i])
	}
	for i, l := range keepClient {
		ct := t.client[l]
		ct.reserved--
		ct.kept = append(ct.kept, madeClient[i])
	}
	t.mu.Unlock()
}

// plural writes a count and a noun, made plural when the count is not 1.
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// logEvents writes an event for each failed judgement of an exchange: each
// server-side rule it broke, and each way its request broke the document.
// Each is made by the code that makes the reports' evidence, with the same
// redaction.
func (h *Handler) logEvents(x *flight, o, again *judge.Outcome, red *evidence.Redactor) {
	for _, r := range o.Results {
		if r.OK() {
			continue
		}
		j, ok := failedIn(again, r.Rule)
		if !ok {
			j = r.Judgement
		}
		h.events.write(eventOf(h.failure(x, red, "server", r.Rule, j.Expected, j.Actual, nil), "server", x.status))
	}
	if !o.Client {
		return
	}
	ds := defects(o)
	var done []rules.RuleID
	for _, d := range ds {
		if l := ruleLabel(d); !slices.Contains(done, l) {
			done = append(done, l)
			h.events.write(eventOf(h.failure(x, red, "client", l, "a request the document accepts", d.what, nil), "client", x.status))
		}
	}
	if len(done) == 0 {
		h.events.write(eventOf(h.failure(x, red, "client", "", "a request the document accepts", "the request breaks the document", nil), "client", x.status))
	}
}
