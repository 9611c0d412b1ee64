package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/generate"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// DefaultExamples is how many valid bodies of each kind a generated
// scenario sends when Config.Examples is 0.
const DefaultExamples = config.DefaultExamples

// shrinkBudget bounds the requests spent shrinking one failing case.
const shrinkBudget = 24

func (s *Suite) generatedSteps() []stepPattern {
	return []stepPattern{
		{`^generated valid plants with (typical|boundary) values$`, s.generatedValidPlants},
		{`^generated bodies that each break one rule of the schema$`, s.generatedInvalidBodies},
		{`^each is posted to /plants$`, s.eachIsPosted},
		{`^each is accepted and echoed exactly$`, s.eachIsAnsweredAsItShould},
		{`^each is rejected with an Error record$`, s.eachIsAnsweredAsItShould},
	}
}

// shapes are what the document asks of a request body and of a Plant
// record, read once per suite.
type shapes struct {
	request, plant *generate.Shape
}

func (s *Suite) loadShapes() error {
	m := s.validator.Model()
	req, err := generate.FromDocument(m, http.MethodPost, "/plants")
	if err != nil {
		return err
	}
	plant, err := generate.ResponseShape(m, http.MethodPost, "/plants", "200")
	if err != nil {
		return err
	}
	s.shapes = shapes{req, plant}
	return nil
}

func (s *Suite) generator(st *state) *generate.Generator {
	return &generate.Generator{Shape: s.shapes.request, Rand: st.rng, ID: st.freshID, IDProperty: "id"}
}

func (s *Suite) generatedValidPlants(ctx context.Context, kind string) {
	st := stateOf(ctx)
	g := s.generator(st)
	k := generate.Typical
	if kind == "boundary" {
		k = generate.Boundary
	}
	for range s.cfg.Examples {
		st.cases = append(st.cases, g.Valid(k))
	}
}

func (s *Suite) generatedInvalidBodies(ctx context.Context) {
	st := stateOf(ctx)
	st.cases = s.generator(st).Invalid()
}

// eachIsPosted sends every generated case, after checking that it is what
// it claims to be. A case the document judges otherwise is a defect of the
// suite, not of the target.
func (s *Suite) eachIsPosted(ctx context.Context) error {
	st := stateOf(ctx)
	for _, c := range st.cases {
		if err := s.checkCase(c); err != nil {
			return err
		}
	}
	// The cases go at once, as many as the run's bound on requests in
	// flight allows (a distant target answers them in the time of a few),
	// and are kept in their order, so that what is judged, and reported,
	// does not depend on which answer came first.
	xs := make([]*Sent, len(st.cases))
	errs := make([]error, len(st.cases))
	var wg sync.WaitGroup
	started := make(chan struct{}, s.flight.ceiling) // no more goroutines than may be in flight
	for i, c := range st.cases {
		started <- struct{}{}
		if s.tripped.Load() {
			break
		}
		r := st.req
		r.setRaw(c.Body())
		r.label = "generated case: " + c.Class
		wg.Add(1)
		go func() {
			defer func() { <-started; wg.Done() }()
			xs[i], errs[i] = s.sendRequest(ctx, &r)
		}()
	}
	wg.Wait()
	for i, c := range st.cases {
		if errs[i] != nil {
			return errs[i]
		}
		x := xs[i]
		if x == nil {
			break // not sent: the target stopped answering
		}
		x.conforms = c.Kind != generate.Invalid // checkCase said so above
		st.last = x
		st.exchanges = append(st.exchanges, x)
		st.caseX = append(st.caseX, x)
	}
	return nil
}

// checkCase holds a generated case to what it claims, before it is sent:
// the one judge's verdict on the request (judge.Accepts) says whether the
// document accepts it, and when not, why.
func (s *Suite) checkCase(c *generate.Case) error {
	h := http.Header{"Authorization": {"Bearer " + s.cfg.Token}, "Content-Type": {"application/json"}}
	if judge.Conforms(s.validator, h, c.Body()) == (c.Kind != generate.Invalid) {
		return nil
	}
	// Not what it claims: the whole check says why.
	valid, vs := judge.Accepts(s.validator, h, c.Body())
	why := make([]string, len(vs))
	for i, v := range vs {
		why[i] = v.String()
	}
	return &HarnessError{fmt.Errorf("%w: a generated case (%s) is not what it claims: the document finds it valid=%v %s",
		ErrSuiteDefect, c.Class, valid, s.redact(strings.Join(why, "; ")))}
}

func (s *Suite) sendCase(ctx context.Context, st *state, c *generate.Case) (*Sent, error) {
	st.req.setRaw(c.Body())
	st.req.label = "generated case: " + c.Class
	x, err := s.send(ctx, st)
	if err != nil {
		return nil, err
	}
	st.last = x
	st.exchanges = append(st.exchanges, x)
	return x, nil
}

// judge reads the one judge's outcome of the target's answer to a case:
// how it breaks a rule, and which rule ("" for the scenario's own);
// expected is "" when it breaks none. An invalid case must be answered 400
// with an Error record, under the rule of what it breaks; a valid one must
// be accepted (200), under the scenario's rule, and echoed exactly, under
// CREATE-NAME, CREATE-TAG or CREATE-NO-TAG (and carry no id, CREATE-NO-ID)
// whatever the scenario's level.
func (s *Suite) judge(c *generate.Case, x *Sent, own rules.Rule) (rule rules.RuleID, expected, actual string) {
	if x.Err != nil {
		r := x.fault()
		return r.Rule, r.Expected, r.Actual
	}
	if c.Kind == generate.Invalid {
		rule, want := ruleFor(x, own), "status 400 with an Error record"
		if x.Status != http.StatusBadRequest {
			return rule, want, fmt.Sprintf("status %d", x.Status)
		}
		if j := x.result(rules.ErrorRecord); j.Actual == judge.NotAnObject {
			return rule, want, j.Actual
		}
		return "", "", "" // the record's fields are the document check's to judge
	}
	if x.Status != http.StatusOK {
		return "", "status 200 with a Plant record", fmt.Sprintf("status %d", x.Status)
	}
	for _, r := range echoOrder {
		if j := x.result(r); !j.OK() {
			return s.echoRule(r), j.Expected, j.Actual
		}
	}
	return "", "", ""
}

// echoOrder is the order in which a generated case's echo failures are
// reported, the first alone.
var echoOrder = []rules.RuleID{rules.CreateName, rules.CreateTag, rules.CreateNoTag, rules.CreateNoID}

// ruleFor names the rule of the catalog an invalid case exercises, as the
// one judge read its refusal (the proxy names a client's so too). A case
// that breaks what the catalog has no rule for (a constraint the document
// gained since), or more than one rule, counts toward the scenario's own
// rule, GEN-INVALID.
func ruleFor(x *Sent, own rules.Rule) rules.RuleID {
	if ds := x.judged.Refusal.Defects; len(ds) == 1 {
		return ds[0].Rule
	}
	return own.ID
}

// eachIsAnsweredAsItShould judges every answer. The first failing case of
// each rule is shrunk to the smallest body that still fails that rule, and
// reported with it and the count of cases that failed the rule: so a
// refusal, at the scenario's level, never hides an echo failure, a MUST.
func (s *Suite) eachIsAnsweredAsItShould(ctx context.Context) error {
	st := stateOf(ctx)
	type found struct {
		c                *generate.Case
		x                *Sent
		expected, actual string
		n                int
	}
	// A valid case refused for a name the target had stored (which it may
	// do) is judged on its answer under a name not used before.
	resent := 0
	for i, x := range st.caseX {
		if st.cases[i].Kind == generate.Invalid || x.Err != nil || x.Status != http.StatusBadRequest {
			continue
		}
		r := st.req
		r.label = x.Label
		rx, err := s.resendUnderAFreshName(ctx, &r, x, st)
		if err != nil {
			return err
		}
		if rx != nil && rx.Err == nil && rx.Status == http.StatusOK {
			rx.conforms = true // the same case, a longer name
			st.caseX[i], st.last = rx, rx
			st.exchanges = append(st.exchanges, rx)
			resent++
		}
	}
	if resent > 0 {
		st.note = fmt.Sprintf("%s: %d case(s) sent again under a name not used before, and accepted", NoteNameReused, resent)
		st.noted = ErrNameReused
	}
	var order []rules.RuleID
	byRule := map[rules.RuleID]*found{}
	for i, x := range st.caseX {
		rule, expected, actual := s.judge(st.cases[i], x, st.rule)
		if expected == "" {
			continue
		}
		if rule == "" {
			rule = st.rule.ID
		}
		if byRule[rule] == nil {
			byRule[rule] = &found{c: st.cases[i], x: x, expected: expected, actual: actual}
			order = append(order, rule)
		}
		byRule[rule].n++
	}
	var first *Failure
	for _, rule := range order {
		fd := byRule[rule]
		small, sx, tries := fd.c, fd.x, 0
		if fd.x.Err == nil {
			small, tries = generate.Shrink(fd.c, s.shapes.request, "id", shrinkBudget, func(cand *generate.Case) bool {
				if s.tripped.Load() {
					return false
				}
				// Every attempt carries a fresh id: a service may refuse
				// one it has stored, and an attempt may have stored it.
				for i := range cand.Members {
					if cand.Members[i].Name == "id" && cand.Property != "id" {
						cand.Members[i].Raw = json.RawMessage(strconv.FormatInt(st.freshID(), 10))
					}
				}
				cx, err := s.sendCase(ctx, st, cand)
				if err != nil {
					return false
				}
				r, e, _ := s.judge(cand, cx, st.rule)
				if r == "" {
					r = st.rule.ID
				}
				if e != "" && r == rule {
					sx = cx
					return true
				}
				return false
			})
			_, fd.expected, fd.actual = s.judge(small, sx, st.rule)
		}
		details := []string{"generated case: " + fd.c.Class}
		if from, to := len(fd.c.Body()), len(small.Body()); to < from {
			attempts := "attempts"
			if tries == 1 {
				attempts = "attempt"
			}
			details = append(details, fmt.Sprintf("shrunk from %d to %d bytes in %d %s (the request below is the smallest that still fails); the case as generated: %s",
				from, to, tries, attempts, exchange.Quote(s.red, fd.c.Body(), 0)))
		}
		summary := fmt.Sprintf("%d of %d generated cases failed %s (seed %d reproduces them)", fd.n, len(st.caseX), rule, s.cfg.Seed)
		details = append(details, summary)
		f := s.fail(st, rule, sx, fd.expected, fd.actual, details...)
		if first == nil {
			first = f
		}
		if rule != st.rule.ID && fd.c.Kind == generate.Invalid {
			// The case counts toward the rule of the property it breaks,
			// and the scenario's own rule fails with it; its exchange is
			// the evidence just given, not repeated.
			s.fail(st, "", nil, "every generated body rejected with an Error record",
				fmt.Sprintf("%s (the exchange is shown under %s)", summary, rule))
		}
	}
	if first != nil {
		return first
	}
	if len(st.caseX) < len(st.cases) {
		return s.fail(st, rules.ResponseTimely, st.last, "an answer to every request",
			fmt.Sprintf("%d of %d generated cases were not sent: the target stopped answering", len(st.cases)-len(st.caseX), len(st.cases)))
	}
	return nil
}
