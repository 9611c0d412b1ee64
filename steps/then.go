package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/spec"
)

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
			ErrSuiteDefect, s.redact(strings.Join(violationLines(vs), "; ")))}
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
		probe := &state{rng: stateOf(ctx).rng}
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

// object decodes the response body as a JSON object.
func (s *Suite) object(st *state, x *Exchange, record string) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(x.body))
	d.UseNumber()
	if err := d.Decode(&obj); err != nil || obj == nil {
		return nil, s.fail(st, "", x, record+": a JSON object", "a body that is not a JSON object")
	}
	return obj, nil
}

func (s *Suite) plant(ctx context.Context) (*state, *Exchange, map[string]json.RawMessage, error) {
	st := stateOf(ctx)
	x, err := s.response(st)
	if err != nil {
		return st, nil, nil, err
	}
	obj, err := s.object(st, x, "a Plant record")
	return st, x, obj, err
}

// stringField reads a property that must be a JSON string.
func stringField(obj map[string]json.RawMessage, name string) (string, bool) {
	raw, ok := obj[name]
	if !ok {
		return "", false
	}
	var v string
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

func (s *Suite) theResponseIsAPlantRecord(ctx context.Context) error {
	st, x, obj, err := s.plant(ctx)
	if err != nil {
		return err
	}
	const want = "a Plant record: an object with name (a string) and, optionally, tag (a string)"
	if _, ok := stringField(obj, "name"); !ok {
		return s.fail(st, "", x, want, "name is "+s.describeField(obj, "name"))
	}
	if _, present := obj["tag"]; present {
		if _, ok := stringField(obj, "tag"); !ok {
			return s.fail(st, "", x, want, "tag is "+s.describeField(obj, "tag"))
		}
	}
	return nil
}

// describeField says what a property holds, for a message: redacted before
// it is cut.
func (s *Suite) describeField(obj map[string]json.RawMessage, name string) string {
	raw, ok := obj[name]
	if !ok {
		return "missing"
	}
	return "the JSON value " + excerpt(s.red.Bytes(raw))
}

func (s *Suite) thePlantHasNoID(ctx context.Context) error {
	st, x, obj, err := s.plant(ctx)
	if err != nil {
		return err
	}
	if _, present := obj["id"]; present {
		return s.fail(st, "", x, "no id property", "id is "+s.describeField(obj, "id"))
	}
	return nil
}

func (s *Suite) theResponseIsAnErrorRecord(ctx context.Context) error {
	st := stateOf(ctx)
	x, err := s.response(st)
	if err != nil {
		return err
	}
	const want = "an Error record: an object with error (an int32 integer) and message (a string)"
	var obj map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(x.body))
	d.UseNumber()
	if err := d.Decode(&obj); err != nil || obj == nil {
		return s.fail(st, features.ErrorRecord, x, want, "a body that is not a JSON object")
	}
	if !isInt32(obj["error"]) {
		return s.fail(st, features.ErrorRecord, x, want, "error is "+s.describeField(obj, "error"))
	}
	if _, ok := stringField(obj, "message"); !ok {
		return s.fail(st, features.ErrorRecord, x, want, "message is "+s.describeField(obj, "message"))
	}
	return nil
}

// isInt32 reports whether a raw JSON value is an integer within int32. A
// zero fraction (400.0) is an integer in JSON Schema 2020-12.
func isInt32(raw json.RawMessage) bool {
	t := strings.TrimSpace(string(raw))
	if t == "" || !(t[0] == '-' || t[0] >= '0' && t[0] <= '9') {
		return false
	}
	if _, err := strconv.ParseInt(t, 10, 32); err == nil {
		return true
	}
	f, err := strconv.ParseFloat(t, 64)
	return err == nil && f == math.Trunc(f) && f >= math.MinInt32 && f <= math.MaxInt32
}

func (s *Suite) theResponseMediaTypeIsJSON(ctx context.Context) error {
	st := stateOf(ctx)
	x, err := s.response(st)
	if err != nil {
		return err
	}
	ct := x.header.Get("Content-Type")
	if mediaType(ct) != "application/json" {
		if ct == "" {
			ct = "no Content-Type header"
		}
		return s.fail(st, "", x, "Content-Type application/json (parameters allowed)", "Content-Type "+ct)
	}
	return nil
}

func (s *Suite) theResponseConformsToTheDocument(ctx context.Context) error {
	st := stateOf(ctx)
	x, err := s.response(st)
	if err != nil {
		return err
	}
	if len(x.Violations) > 0 {
		return s.fail(st, features.ResponseDocumented, x,
			"a response the document describes: 200 with a Plant record or 400 with an Error record, as application/json",
			fmt.Sprintf("a response the document does not describe (%d violation(s))", len(x.Violations)),
			violationLines(x.Violations)...)
	}
	return nil
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
