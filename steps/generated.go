package steps

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/generate"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// shrinkBudget bounds the requests spent shrinking one failing case.
const shrinkBudget = 24

func (s *Suite) generator(st *state) *generate.Generator {
	return &generate.Generator{Shape: s.shape, Rand: st.rng, ID: st.freshID, IDProperty: "id"}
}

func (s *Suite) generatedValidPlants(ctx context.Context, kind string) {
	st := stateOf(ctx)
	g, k := s.generator(st), map[string]generate.Kind{"typical": generate.Typical, "boundary": generate.Boundary}[kind]
	st.req.caseOf = st.Rule.ID
	for range s.cfg.Examples {
		st.cases = append(st.cases, g.Valid(k))
	}
}

// eachIsPosted sends every generated case, after checking that it is what
// it claims to be (if not, a defect of the suite).
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
	started := make(chan struct{}, s.client.InFlight()) // no more goroutines than may be in flight
	for i, c := range st.cases {
		started <- struct{}{}
		if s.tripped.Load() {
			break
		}
		r := caseRequest(st.req, c)
		wg.Go(func() {
			defer func() { <-started }()
			xs[i], errs[i] = s.sendRequest(ctx, &r)
		})
	}
	wg.Wait()
	// Every answer that came is judged, whichever request the target then
	// failed to answer: the judgement of an answer never depends on the
	// fate of the requests sent beside it.
	var first error
	for i, x := range xs {
		switch {
		case errs[i] != nil:
			first = cmp.Or(first, errs[i])
		case x != nil: // nil: not sent, the target stopped answering
			st.Exchanges = append(st.Exchanges, x)
			st.caseX = append(st.caseX, x)
		}
	}
	return first
}

func caseRequest(r request, c *generate.Case) request {
	r.setRaw(c.Body())
	r.label = "generated case: " + c.Class
	r.fixedID = c.Property == "id" // an id at an edge of its type: another request may have stored it
	return r
}

// checkCase holds a generated case to what it claims, before it is sent,
// by the one judge's verdict on the request.
func (s *Suite) checkCase(c *generate.Case) error {
	h := http.Header{"Authorization": {"Bearer " + s.cfg.Token}, "Content-Type": {"application/json"}}
	if judge.Conforms(s.cfg.Validator, h, c.Body()) == (c.Kind != generate.Invalid) {
		return nil
	}
	// Not what it claims: the whole check says why.
	valid, vs := judge.Accepts(s.cfg.Validator, h, c.Body())
	return &HarnessError{fmt.Errorf("%w: a generated case (%s) is not what it claims: the document finds it valid=%v %s",
		ErrSuiteDefect, c.Class, valid, s.why(vs))}
}

// eachIsAnsweredAsItShould reads the one judge's judgements of every
// answer. The first failing case of each rule is shrunk to the smallest
// body the judge still finds breaks it, and reported with how many broke it.
func (s *Suite) eachIsAnsweredAsItShould(ctx context.Context) error {
	st := stateOf(ctx)
	// A valid case refused for a name the target had stored (which it may
	// do) is judged on its answer under a name not used before.
	resent := 0
	for i, x := range st.caseX {
		if x.Err != nil || x.unsure() != NoteNameReused {
			continue
		}
		rx, err := s.resendUnderAFreshName(ctx, st, x, x.Label)
		if err != nil {
			return err
		}
		if rx != nil {
			st.caseX[i] = rx
			if rx.Err == nil && rx.Status == http.StatusOK {
				resent++
			}
		}
	}
	if resent > 0 {
		st.Note = fmt.Sprintf("%s: %d case(s) sent again under a name not used before, and accepted", NoteNameReused, resent)
		st.Noted = ErrNameReused
	}
	var first error
	for _, fd := range firstFailures(st.caseX, func(x *Sent) []judge.Result {
		return slices.DeleteFunc(slices.Clone(x.judged.Results), judge.Result.OK)
	}) {
		rule, c := fd.r.Rule, st.cases[fd.i]
		small, sx, tries := c, fd.x, 0
		if fd.x.Err == nil {
			small, tries = generate.Shrink(c, s.shape, "id", shrinkBudget, func(cand *generate.Case) bool {
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
				st.req = caseRequest(st.req, cand)
				cx, err := s.sendRequest(ctx, &st.req)
				if err != nil {
					return false
				}
				st.Exchanges = append(st.Exchanges, cx)
				if j, ok := cx.JudgedBy(rule); ok && !j.OK() {
					sx = cx
				}
				return sx == cx
			})
		}
		r, _ := sx.JudgedBy(rule)
		details := []string{"generated case: " + c.Class}
		if from, to := len(c.Body()), len(small.Body()); to < from {
			attempts := map[bool]string{true: "attempt", false: "attempts"}[tries == 1]
			details = append(details, fmt.Sprintf("shrunk from %d to %d bytes in %d %s (the request below is the smallest that still fails); the case as generated: %s",
				from, to, tries, attempts, exchange.Quote(s.red, c.Body(), 0)))
		}
		details = append(details, fmt.Sprintf("%d of %d generated cases failed %s (seed %d reproduces them)", fd.n, len(st.caseX), rule, s.cfg.Seed))
		// A case counts toward the rule of what it breaks too: an exchange
		// given as evidence there already is not repeated.
		if i := slices.IndexFunc(st.Failures, func(f *Failure) bool { return f.Exchange == sx }); rule == rules.GenInvalid && i >= 0 {
			r.Actual = fmt.Sprintf("%s (the exchange is shown under %s)", r.Actual, st.Failures[i].Rule.ID)
			sx = nil
		}
		if err := s.judged(st, rule, sx, r, details...); first == nil {
			first = err
		}
	}
	if first != nil {
		return first
	}
	if len(st.caseX) < len(st.cases) {
		return s.fail(st, rules.ResponseTimely, st.last(), "an answer to every request",
			fmt.Sprintf("%d of %d generated cases were not sent: the target stopped answering", len(st.cases)-len(st.caseX), len(st.cases)))
	}
	return nil
}
