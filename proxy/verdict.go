package proxy

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	xchg "github.com/plantcheck/plantcheck/exchange"
	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/rules"
)

// Failure is one broken rule seen in one exchange, as evidence: every
// string in it is redacted, bounded and escaped (package evidence).
type Failure struct {
	Rule string `json:"rule"`
	// Level is the rule's (MUST, SHOULD) for a server-side failure.
	Level string `json:"level,omitempty"`
	// Side is "server" (the service broke the rule) or "client" (the
	// request broke the document).
	Side     string   `json:"side"`
	Expected string   `json:"expected"`
	Actual   string   `json:"actual"`
	Details  []string `json:"details,omitempty"`
	// Request and Response summarise the exchange on one line each.
	Request  string `json:"request"`
	Response string `json:"response"`
	// Reproduce is a curl command that sends the request again, straight
	// to the upstream, its credentials read from environment variables.
	Reproduce string    `json:"reproduce,omitempty"`
	At        time.Time `json:"at"`
}

// RuleResult is one rule of the catalog over the traffic.
type RuleResult struct {
	ID          string `json:"id"`
	Level       string `json:"level"`
	Requirement string `json:"requirement"`
	// Judged is how many exchanges could show the rule; Passed and Failed
	// split them.
	Judged int64 `json:"judged"`
	Passed int64 `json:"passed"`
	Failed int64 `json:"failed"`
	// NotJudged says why the rule has no verdict: traffic cannot show it,
	// or no exchange that could show it passed through.
	NotJudged string `json:"notJudged,omitempty"`
	// Failures are the first failures, as evidence (at most
	// Config.MaxFailures); the rest are counted.
	Failures []Failure `json:"failures,omitempty"`
}

// ClientGroup counts the requests that broke the document in one way: the
// rule whose refusal they call for.
type ClientGroup struct {
	Rule     string    `json:"rule"`
	Requests int64     `json:"requests"`
	Failures []Failure `json:"failures,omitempty"`
}

// Count is a reason and how many exchanges it concerns.
type Count struct {
	Reason string `json:"reason"`
	N      int64  `json:"n"`
}

// Options are the choices that turn the tallies into an exit status.
type Options struct {
	// Strict: a failed SHOULD rule fails the verdict too.
	Strict bool
	// StrictClients: a request that broke the document fails the verdict
	// too (by default it is reported, not failed: it is the client's).
	StrictClients bool
}

// Verdict is what the proxy saw, rule by rule: the one result every report
// is written from.
type Verdict struct {
	Plantcheck  string    `json:"plantcheck"`
	SpecTitle   string    `json:"specTitle"`
	SpecVersion string    `json:"specVersion"`
	Upstream    string    `json:"upstream"`
	Started     time.Time `json:"started"`
	Ended       time.Time `json:"ended"`
	// MaxJudge and Timeout are the configuration used.
	MaxJudge int64   `json:"maxJudgeBytes"`
	Timeout  string  `json:"timeout"`
	Options  Options `json:"options"`

	// Exchanges counts every exchange; Judged those of the document's
	// operation that were judged, Partly those of them with a part not
	// judged (Unjudged says why); Outside those of other paths and
	// methods (forwarded, not judged); Own the proxy's own answers, by
	// kind; Gone those whose client went away; Broken those whose
	// upstream answer broke off.
	Exchanges int64            `json:"exchanges"`
	Judged    int64            `json:"judged"`
	Partly    int64            `json:"judgedInPart"`
	Outside   int64            `json:"outsideDocument"`
	Own       map[string]int64 `json:"proxyAnswers,omitempty"`
	Gone      int64            `json:"clientGone"`
	Broken    int64            `json:"upstreamBrokeOff"`
	Unjudged  []Count          `json:"notJudgedInPart,omitempty"`

	Rules []RuleResult `json:"rules"`
	// ServerViolations counts the failed judgements of server-side rules.
	ServerViolations int64 `json:"serverViolations"`
	// ClientRequests counts the requests that broke the document.
	ClientRequests int64         `json:"clientViolations"`
	Client         []ClientGroup `json:"client,omitempty"`

	// Outcome is one word: no-violation, non-conformant, clients-failed or
	// nothing-judged; Line the verdict's sentence; ExitCode 0 or 1.
	Outcome  string `json:"outcome"`
	Line     string `json:"verdict"`
	ExitCode int    `json:"exitCode"`
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
	client                                              map[string]*ruleTally
}

type ruleTally struct {
	judged, failed int64
	reserved       int // failures being written as evidence
	kept           []Failure
}

// maxReasons bounds the distinct reasons counted for what was not judged.
const maxReasons = 32

func newTally(maxFailures int, maxJudge int64, upstream string, timeout time.Duration) *tally {
	t := &tally{
		maxFailures: maxFailures, maxJudge: maxJudge, upstream: upstream, timeout: timeout, started: time.Now(),
		ownN: map[string]int64{}, unjudged: map[string]int64{},
		rules: map[rules.RuleID]*ruleTally{}, client: map[string]*ruleTally{},
	}
	for _, id := range judgedRules {
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
func (h *Handler) record(x *exchange, o *outcome, sum *Exchange) {
	own := xchg.QuerySecrets(x.to.RawQuery, xchg.HeaderSecrets(x.respHeader, xchg.HeaderSecrets(x.header, nil)))
	h.secrets.add(own)
	t := h.tally
	var keep []rules.RuleID
	var keepClient []string
	t.mu.Lock()
	t.exchanges++
	t.judged++
	if len(o.unjudged) > 0 {
		t.partly++
	}
	for _, why := range o.unjudged {
		if _, ok := t.unjudged[why]; !ok && len(t.unjudged) >= maxReasons {
			why = "other reasons"
		}
		t.unjudged[why]++
	}
	for _, r := range o.results {
		rt := t.rules[r.rule]
		rt.judged++
		if r.OK() {
			continue
		}
		rt.failed++
		t.serverFailures++
		sum.Failed = append(sum.Failed, string(r.rule))
		if len(rt.kept)+rt.reserved < t.maxFailures {
			rt.reserved++
			keep = append(keep, r.rule)
		}
	}
	if o.client {
		t.clientRequests++
		sum.Client = true
		labels := []string{"OTHER"}
		if len(o.defects) > 0 {
			labels = labels[:0]
			for _, d := range o.defects {
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
	sum.Unjudged = joinWhy(o.unjudged)
	if len(keep) == 0 && len(keepClient) == 0 {
		return
	}

	// Evidence: the exchange judged again with every secret hidden, those
	// of its body too (looked for only here: most exchanges keep none).
	own = xchg.BodySecrets(x.reqBody.body, own)
	h.secrets.add(own)
	red := h.secrets.redactor(own)
	again := h.judge(x, red.String)
	var made []Failure
	for _, rule := range keep {
		j, ok := again.failed(rule)
		if !ok {
			j, _ = o.failed(rule)
		}
		made = append(made, h.failure(x, red, "server", string(rule), j.Expected, j.Actual, details(j)))
	}
	var madeClient []Failure
	for _, l := range keepClient {
		what := "the request breaks the document"
		for _, d := range o.defects {
			if ruleLabel(d) == l {
				what = d.what
				break
			}
		}
		madeClient = append(madeClient, h.failure(x, red, "client", l,
			"a request the document accepts", what, violationLines(o.violations)))
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

// Verdict returns the verdict on what passed so far.
func (h *Handler) Verdict(opts Options) *Verdict {
	t := h.tally
	// Every secret seen by now is hidden in every piece of evidence,
	// whichever exchange brought it.
	red := h.secrets.redactor(nil)
	t.mu.Lock()
	defer t.mu.Unlock()
	v := &Verdict{
		Plantcheck: buildinfo.Version(), SpecTitle: h.validator.Info().Title, SpecVersion: h.validator.Info().Version,
		Upstream: evidence.Text(t.upstream), Started: t.started, Ended: time.Now(),
		MaxJudge: t.maxJudge, Timeout: t.timeout.String(), Options: opts,
		Exchanges: t.exchanges, Judged: t.judged, Partly: t.partly, Outside: t.outsideN,
		Gone: t.goneN, Broken: t.brokenN,
		ServerViolations: t.serverFailures, ClientRequests: t.clientRequests,
	}
	if len(t.ownN) > 0 {
		v.Own = maps.Clone(t.ownN)
	}
	for _, why := range slices.Sorted(maps.Keys(t.unjudged)) {
		v.Unjudged = append(v.Unjudged, Count{evidence.Text(why), t.unjudged[why]})
	}
	var broken, brokenShould []string
	for _, r := range rules.Catalog {
		rr := RuleResult{ID: string(r.ID), Level: strings.ToUpper(string(r.Level)), Requirement: r.Requirement}
		rt, judged := t.rules[r.ID]
		switch {
		case !judged:
			rr.NotJudged = unjudgeable[r.ID]
			if rr.NotJudged == "" {
				rr.NotJudged = "the proxy has no judgement of it"
			}
		case rt.judged == 0:
			rr.NotJudged = whyNone
		default:
			rr.Judged, rr.Failed, rr.Passed = rt.judged, rt.failed, rt.judged-rt.failed
			rr.Failures = redactAll(rt.kept, red)
		}
		if rr.Failed > 0 {
			if r.Level == rules.Must {
				broken = append(broken, rr.ID)
			} else {
				brokenShould = append(brokenShould, rr.ID)
			}
		}
		v.Rules = append(v.Rules, rr)
	}
	for _, l := range slices.Sorted(maps.Keys(t.client)) {
		ct := t.client[l]
		v.Client = append(v.Client, ClientGroup{Rule: l, Requests: ct.failed, Failures: redactAll(ct.kept, red)})
	}
	v.decide(broken, brokenShould)
	return v
}

// decide sets the outcome, the verdict's sentence and the exit status.
func (v *Verdict) decide(broken, brokenShould []string) {
	var own int64
	for _, n := range v.Own {
		own += n
	}
	var notes []string
	if v.Judged > 0 {
		notes = append(notes, plural(v.Judged, "exchange")+" of POST /plants judged")
	}
	if own > 0 {
		notes = append(notes, fmt.Sprintf("%d answered by the proxy itself (the upstream gave no answer)", own))
	}
	clients := "clients: " + plural(v.ClientRequests, "request") + " broke the document"
	if !v.Options.StrictClients && v.ClientRequests > 0 {
		clients += " (theirs, not the service's)"
	}
	notes = append(notes, clients)
	tail := strings.Join(notes, "; ")
	switch {
	case len(broken) > 0 || v.Options.Strict && len(brokenShould) > 0:
		rules := append(slices.Clone(broken), brokenShould...)
		if !v.Options.Strict {
			rules = broken
		}
		v.Outcome, v.ExitCode = "non-conformant", 1
		v.Line = fmt.Sprintf("VERDICT: NON-CONFORMANT: the service broke %s; %s", strings.Join(rules, ", "), tail)
	case v.Options.StrictClients && v.ClientRequests > 0:
		v.Outcome, v.ExitCode = "clients-failed", 1
		v.Line = "VERDICT: CLIENTS FAILED (--strict-clients): no server-side violation; " + tail
	case v.Judged == 0:
		v.Outcome = "nothing-judged"
		v.Line = fmt.Sprintf("VERDICT: NOTHING JUDGED: no exchange of POST /plants was judged (%s in all); %s", plural(v.Exchanges, "exchange"), tail)
	default:
		v.Outcome = "no-violation"
		should := ""
		if len(brokenShould) > 0 {
			should = " (SHOULD rules failed: " + strings.Join(brokenShould, ", ") + ")"
		}
		v.Line = fmt.Sprintf("VERDICT: NO VIOLATION SEEN%s, as far as traffic shows (rules it cannot show are not judged); %s", should, tail)
	}
}

// redactAll hides, in failures kept before a secret was seen, every secret
// seen since.
func redactAll(fs []Failure, red *evidence.Redactor) []Failure {
	out := make([]Failure, len(fs))
	for i, f := range fs {
		f.Expected, f.Actual = red.String(f.Expected), red.String(f.Actual)
		f.Request, f.Response, f.Reproduce = red.String(f.Request), red.String(f.Response), red.String(f.Reproduce)
		f.Details = slices.Clone(f.Details)
		for k := range f.Details {
			f.Details[k] = red.String(f.Details[k])
		}
		out[i] = f
	}
	return out
}

// WriteText writes the verdict for a console: the counts, the rule table,
// each failure with its evidence, and, last, the verdict's line.
func (v *Verdict) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "plantcheck proxy: the traffic to %s, %s to %s (spec %s)\n", v.Upstream,
		v.Started.Format(time.RFC3339), v.Ended.Format(time.RFC3339), v.SpecVersion)
	fmt.Fprintf(&b, "%s: %d of POST /plants judged", plural(v.Exchanges, "exchange"), v.Judged)
	if v.Partly > 0 {
		fmt.Fprintf(&b, " (%d in part)", v.Partly)
	}
	fmt.Fprintf(&b, ", %d outside the document (forwarded, not judged)", v.Outside)
	for _, k := range slices.Sorted(maps.Keys(v.Own)) {
		fmt.Fprintf(&b, ", %d answered by the proxy (%s)", v.Own[k], k)
	}
	if v.Gone > 0 {
		fmt.Fprintf(&b, ", %d whose client went away", v.Gone)
	}
	if v.Broken > 0 {
		fmt.Fprintf(&b, ", %d whose answer broke off", v.Broken)
	}
	b.WriteString("\n")
	for _, c := range v.Unjudged {
		fmt.Fprintf(&b, "  not judged in %s: %s\n", plural(c.N, "exchange"), c.Reason)
	}

	b.WriteString("\nRULE                   LEVEL    JUDGED    PASSED    FAILED\n")
	for _, r := range v.Rules {
		if r.NotJudged != "" {
			continue
		}
		fmt.Fprintf(&b, "%-22s %-6s %8d  %8d  %8d\n", r.ID, r.Level, r.Judged, r.Passed, r.Failed)
	}
	var none []string
	b.WriteString("\nNot judged, as traffic cannot show them:\n")
	for _, r := range v.Rules {
		switch r.NotJudged {
		case "":
		case whyNone:
			none = append(none, r.ID)
		default:
			fmt.Fprintf(&b, "  %s (%s): %s\n", r.ID, r.Level, r.NotJudged)
		}
	}
	if len(none) > 0 {
		fmt.Fprintf(&b, "Not judged, as %s: %s\n", whyNone, strings.Join(none, ", "))
	}

	n := 0
	for _, r := range v.Rules {
		if r.Failed == 0 {
			continue
		}
		if n == 0 {
			b.WriteString("\nServer-side failures (the service's):\n")
		}
		for _, f := range r.Failures {
			n++
			writeFailure(&b, n, f, r.Requirement)
		}
		if more := r.Failed - int64(len(r.Failures)); more > 0 {
			fmt.Fprintf(&b, "   (and %s of %s, counted, not kept)\n", plural(more, "more failure"), r.ID)
		}
	}
	if v.ClientRequests > 0 {
		effect := "reported; they fail the verdict only with --strict-clients"
		if v.Options.StrictClients {
			effect = "they fail the verdict (--strict-clients)"
		}
		fmt.Fprintf(&b, "\nClient-side: %s broke the document (the clients', not the service's: %s); by what they break (a request may break several):\n", plural(v.ClientRequests, "request"), effect)
		for _, g := range v.Client {
			fmt.Fprintf(&b, "  %-22s %8d\n", g.Rule, g.Requests)
		}
		// One example of each: the clients' requests are not the verdict's
		// matter, and the reports keep more.
		for _, g := range v.Client {
			if len(g.Failures) == 0 {
				continue
			}
			n++
			writeFailure(&b, n, g.Failures[0], "")
			if more := g.Requests - 1; more > 0 {
				fmt.Fprintf(&b, "   (and %s more of %s; the reports keep up to %d)\n", plural(more, "request"), g.Rule, len(g.Failures))
			}
		}
	}
	b.WriteString("\n" + v.Line + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeFailure(b *strings.Builder, n int, f Failure, requirement string) {
	if f.Side == "client" {
		fmt.Fprintf(b, "%d) client request, %s\n", n, f.Rule)
	} else {
		fmt.Fprintf(b, "%d) %s (%s) %s\n", n, f.Rule, f.Level, requirement)
	}
	fmt.Fprintf(b, "   expected:  %s\n", f.Expected)
	fmt.Fprintf(b, "   actual:    %s\n", f.Actual)
	for _, d := range f.Details {
		fmt.Fprintf(b, "   - %s\n", d)
	}
	fmt.Fprintf(b, "   request:   %s\n", f.Request)
	fmt.Fprintf(b, "   response:  %s\n", f.Response)
	if f.Reproduce != "" {
		fmt.Fprintf(b, "   reproduce: %s\n", strings.ReplaceAll(f.Reproduce, "\n", "\n              "))
	}
}

// plural writes a count and a noun, made plural when the count is not 1.
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
