package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/plantcheck/plantcheck/check"
	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/spec"
)

func (s *Suite) recordSteps() []stepPattern {
	return []stepPattern{
		{`^the response status is (\d+)$`, s.theResponseStatusIs},
		{`^the response is a Plant record$`, s.theResponseIsAPlantRecord},
		{`^the plant has no id$`, s.thePlantHasNoID},
		{`^the response is an Error record$`, s.theResponseIsAnErrorRecord},
		{`^the response conforms to the document$`, s.theResponseConformsToTheDocument},
		{`^the response arrived within the time limit$`, s.theResponseArrivedInTime},
		{`^the answer is noted for information$`, s.theAnswerIsNoted},
	}
}

var statusMeaning = map[int]string{
	http.StatusOK:         "a Plant record",
	http.StatusBadRequest: "an Error record",
}

func (s *Suite) theResponseStatusIs(ctx context.Context, want int) error {
	st := stateOf(ctx)
	x, err := s.response(st)
	if err != nil {
		return err
	}
	if err := s.checkIntent(st, x, want); err != nil {
		return err
	}
	if x.Status == want {
		return nil
	}
	if want == http.StatusOK && x.Status == http.StatusBadRequest && st.req.fixedID && s.refusesReusedIDs(ctx) {
		st.skipped = "inconclusive: this scenario's id is fixed, the target refuses an id it has stored, " +
			"and an earlier run may have stored this one"
		return fmt.Errorf("%w: %s", godog.ErrSkip, st.skipped)
	}
	return s.fail(st, "", x,
		fmt.Sprintf("status %d with %s", want, statusMeaning[want]),
		fmt.Sprintf("status %d", x.Status))
}

// checkIntent is the suite checking itself: a scenario that expects 200 must
// have sent a request the document accepts, and one that expects 400 one
// that the document (or, for a token it did not issue, the service alone)
// refuses.
func (s *Suite) checkIntent(st *state, x *Exchange, want int) error {
	if want != http.StatusOK && want != http.StatusBadRequest {
		return nil
	}
	if (x.issued && s.requestConforms(x)) == (want == http.StatusOK) {
		return nil
	}
	// Not what the scenario claims: the whole check decides, and says why.
	vs := s.validator.CheckRequest(spec.Request{Method: x.Method, Path: "/plants", Header: x.reqHeader, Body: x.Body})
	valid := len(vs) == 0 && x.issued
	switch {
	case want == http.StatusOK && !valid:
		return &HarnessError{fmt.Errorf("%w: the scenario expects 200 for a request the document refuses: %s",
			ErrSuiteDefect, s.redact(strings.Join(check.Documented(vs).Details, "; ")))}
	case want == http.StatusBadRequest && valid:
		return &HarnessError{fmt.Errorf("%w: the scenario expects 400 for a request the document accepts", ErrSuiteDefect)}
	}
	return nil
}

// requestConforms says whether the document accepts a request the suite
// sent. A request with the user's credentials and the media type
// application/json, as most are, needs only its body judged, which
// BodyConforms does at a fraction of the cost of the whole check.
func (s *Suite) requestConforms(x *Exchange) bool {
	if x.reqHeader.Get("Content-Type") == "application/json" && x.reqHeader.Get("Authorization") == "Bearer "+s.cfg.Token &&
		strings.TrimSpace(s.cfg.Token) != "" {
		return s.validator.BodyConforms(x.Method, "/plants", x.Body)
	}
	return len(s.validator.CheckRequest(spec.Request{Method: x.Method, Path: "/plants", Header: x.reqHeader, Body: x.Body})) == 0
}

// refusesReusedIDs asks the target, once per run, whether it refuses a
// second plant with an id it has stored.
func (s *Suite) refusesReusedIDs(ctx context.Context) bool {
	s.reuseOnce.Do(func() {
		probe := &state{rng: stateOf(ctx).rng, ids: stateOf(ctx).ids}
		probe.req.set("id", json.RawMessage(strconv.FormatInt(probe.freshID(), 10)))
		probe.req.set("name", quote("plantcheck reuse probe"))
		for i := 0; i < 2; i++ {
			x, err := s.send(ctx, probe)
			if err != nil || x.Err != nil {
				return
			}
			if i == 1 {
				s.reuseSeen = x.Status == http.StatusBadRequest
			}
		}
	})
	return s.reuseSeen
}

// judged records a failure of rule when a check's judgement says the
// answer broke it.
func (s *Suite) judged(st *state, rule features.RuleID, x *Exchange, j check.Judgement) error {
	if j.OK() {
		return nil
	}
	return s.fail(st, rule, x, j.Expected, j.Actual, j.Details...)
}

// answered returns the scenario's state and its last answer.
func (s *Suite) answered(ctx context.Context) (*state, *Exchange, error) {
	st := stateOf(ctx)
	x, err := s.response(st)
	return st, x, err
}

func (s *Suite) theResponseIsAPlantRecord(ctx context.Context) error {
	st, x, err := s.answered(ctx)
	if err != nil {
		return err
	}
	return s.judged(st, "", x, check.PlantRecord(x.body, s.redact))
}

func (s *Suite) thePlantHasNoID(ctx context.Context) error {
	st, x, err := s.answered(ctx)
	if err != nil {
		return err
	}
	return s.judged(st, "", x, check.NoID(x.body, s.redact))
}

func (s *Suite) theResponseIsAnErrorRecord(ctx context.Context) error {
	st, x, err := s.answered(ctx)
	if err != nil {
		return err
	}
	return s.judged(st, features.ErrorRecord, x, check.ErrorRecord(x.body, s.redact))
}

func (s *Suite) theResponseConformsToTheDocument(ctx context.Context) error {
	st, x, err := s.answered(ctx)
	if err != nil {
		return err
	}
	return s.judged(st, features.ResponseDocumented, x, check.Documented(x.Violations))
}

func (s *Suite) theResponseArrivedInTime(ctx context.Context) error {
	_, err := s.response(stateOf(ctx))
	return err
}

func (s *Suite) theAnswerIsNoted(ctx context.Context) error {
	st := stateOf(ctx)
	x, err := s.response(st)
	if err != nil {
		return err
	}
	switch x.Status {
	case http.StatusOK:
		st.note = "accepted (200)"
	case http.StatusBadRequest:
		st.note = "refused (400)"
	default:
		st.note = fmt.Sprintf("answered %d", x.Status)
	}
	return nil
}
