package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/spec/rules"
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
		{`^the response is a Plant record echoing the plant, or an Error record$`, s.thePlantOrAnErrorRecord},
	}
}

var statusMeaning = map[int]string{
	http.StatusOK:         "a Plant record",
	http.StatusBadRequest: "an Error record",
}

func (s *Suite) theResponseStatusIs(ctx context.Context, want int) error {
	return s.statusIs(ctx, want, false)
}

// statusIs judges the status of the scenario's last answer. A wrong status
// is the failure of the rule the status shows (statusRule): the scenario's
// own, unless its rule judges another aspect of the answer, or the step is
// a setup (a create the scenario needs before the request it is about).
func (s *Suite) statusIs(ctx context.Context, want int, setup bool) error {
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
		return st.skipFor(ErrInconclusive, "inconclusive: this scenario's id is fixed, the target refuses an id it has stored, "+
			"and an earlier run may have stored this one")
	}
	var details []string
	if want == http.StatusOK && x.Status == http.StatusBadRequest {
		rx, err := s.resendUnderAFreshName(ctx, &st.req, x, st)
		if err != nil {
			return err
		}
		if rx != nil && rx.Err == nil && rx.Status == http.StatusOK {
			st.last = rx
			st.exchanges = append(st.exchanges, rx)
			st.note, st.noted = NoteNameReused+": sent again under a name not used before, and accepted", ErrNameReused
			return nil
		}
		if rx != nil {
			details = append(details, fmt.Sprintf("the target refuses a name it has stored; sent again under a name not used before, it answered %s", statusOf(rx)))
		}
	}
	rule := statusRule(st.rule, x, want, setup)
	if setup {
		st.setupFailed = true
		details = append(details, "this was the scenario's setup (a valid create, before the request it is about): "+
			string(st.rule.ID)+" was not judged by this scenario")
	}
	f := s.fail(st, rule, x,
		fmt.Sprintf("status %d with %s", want, statusMeaning[want]),
		fmt.Sprintf("status %d", x.Status), details...)
	if !setup && rule != "" && judgesAnyAnswer[st.rule.ID] {
		// The scenario's rule judges an aspect every answer has (its
		// media type): it goes on to judge this one.
		return nil
	}
	return f
}

// statusNotOwn are the rules whose scenarios expect a status only to reach
// the aspect they judge: the echo of an accepted create, the Error record
// of a refusal, the media type of either. A wrong status there is the
// failure of the rule the status shows, never theirs; an open rule never
// fails at all.
var statusNotOwn = map[rules.RuleID]bool{
	rules.CreateName: true, rules.CreateTag: true, rules.CreateNoTag: true, rules.CreateNoID: true,
	rules.ErrorRecord: true, rules.ResponseMedia: true,
}

// judgesAnyAnswer are the rules of statusNotOwn whose aspect every answer
// has, whatever its status: their scenario judges it after a wrong status.
var judgesAnyAnswer = map[rules.RuleID]bool{rules.ResponseMedia: true}

// statusRule is the rule a wrong status fails ("": the scenario's own): a
// setup's create, or a 200 expected where the scenario's rule judges
// another aspect, is CREATE-200's (a valid create is accepted); a 400
// expected there is the rule the request's refusal exercises, as the one
// judge read it.
func statusRule(own rules.Rule, x *Sent, want int, setup bool) rules.RuleID {
	notOwn := setup || statusNotOwn[own.ID] || own.Level == rules.Open
	switch {
	case !notOwn:
		return ""
	case want == http.StatusOK:
		return rules.Create200
	case want == http.StatusBadRequest && len(x.judged.Refusal.Defects) > 0:
		return x.judged.Refusal.Defects[0].Rule
	}
	return ""
}

// NoteNameReused begins the note of a scenario whose valid request was
// refused for a name the target had stored, and accepted under another.
const NoteNameReused = "the target refuses a name it has stored (uniqueness of name: not shown)"

// statusOf says how an exchange ended, for a message.
func statusOf(x *Sent) string {
	if x.Err != nil {
		return "nothing"
	}
	return fmt.Sprintf("status %d", x.Status)
}

// resendUnderAFreshName sends a refused valid request again with its name
// made one no request has used, when the target refuses a name it has
// stored: a uniqueness the spec leaves open ("uniqueness of id or name: not
// shown"), which the suite's fixed names, and a second run, may meet. It
// returns nil when that is not why the request may have been refused: the
// request was not valid, or the target does not refuse a stored name. The
// rest of the request is sent as it was: its other members, spelling and
// framing, and its id (a refused request stored nothing).
func (s *Suite) resendUnderAFreshName(ctx context.Context, r *request, x *Sent, st *state) (*Sent, error) {
	if !x.issued || !s.requestConforms(x) || !s.refusesReusedNames(ctx) {
		return nil, nil
	}
	body, ok := withNameSuffix(x.Body, " #"+strconv.FormatInt(st.freshID(), 36))
	if !ok {
		return nil, nil
	}
	again := *r
	again.setRaw(body)
	again.label = strings.TrimPrefix(again.label+"; ", "; ") + "sent again under a name not used before"
	return s.sendRequest(ctx, &again)
}

// withNameSuffix writes a body with suffix added at the end of its name,
// inside the string as it was written (escapes, spacing and the members'
// order kept); false when the body has no top-level name that is a string.
func withNameSuffix(body []byte, suffix string) ([]byte, bool) {
	d := json.NewDecoder(bytes.NewReader(body))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, false
		}
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return nil, false
		}
		if t != "name" {
			continue
		}
		end := int(d.InputOffset()) - 1 // the closing quote
		if len(raw) == 0 || raw[0] != '"' || end < 0 || end >= len(body) || body[end] != '"' {
			return nil, false
		}
		out := make([]byte, 0, len(body)+len(suffix))
		out = append(append(append(out, body[:end]...), suffix...), body[end:]...)
		return out, true
	}
	return nil, false
}

// checkIntent is the suite checking itself: a scenario that expects 200 must
// have sent a request the document accepts, and one that expects 400 one
// that the document (or, for a token it did not issue, the service alone)
// refuses.
func (s *Suite) checkIntent(st *state, x *Sent, want int) error {
	if want != http.StatusOK && want != http.StatusBadRequest {
		return nil
	}
	if (x.issued && s.requestConforms(x)) == (want == http.StatusOK) {
		return nil
	}
	// Not what the scenario claims: the one judge's findings on the
	// request say why, bounded and made safe.
	if want == http.StatusOK {
		vs := s.boundViolations(slices.Clone(x.judged.Violations))
		why := make([]string, len(vs))
		for i, v := range vs {
			why[i] = v.String()
		}
		return &HarnessError{fmt.Errorf("%w: the scenario expects 200 for a request the document refuses: %s",
			ErrSuiteDefect, s.redact(strings.Join(why, "; ")))}
	}
	return &HarnessError{fmt.Errorf("%w: the scenario expects 400 for a request the document accepts", ErrSuiteDefect)}
}

// requestConforms says whether the document accepts a request the suite
// sent, as the one judge read it when the exchange ended.
func (s *Suite) requestConforms(x *Sent) bool {
	return x.judged.Valid // the one judge read it, answer or none
}

// refusesReusedIDs asks the target, once per run, whether it refuses a
// second plant with an id it has stored (under another name, so that a
// target that refuses a stored name does not answer for its ids).
func (s *Suite) refusesReusedIDs(ctx context.Context) bool {
	s.reuseOnce.Do(func() { s.reuseSeen = s.refusesASecond(ctx, true) })
	return s.reuseSeen
}

// refusesReusedNames asks the target, once per run, whether it refuses a
// second plant with a name it has stored (under another id).
func (s *Suite) refusesReusedNames(ctx context.Context) bool {
	s.nameOnce.Do(func() { s.nameSeen = s.refusesASecond(ctx, false) })
	return s.nameSeen
}

// refusesASecond sends two valid plants that share their id (sameID) or
// their name, each never sent before, and reports whether the target
// accepted the first and refused the second.
func (s *Suite) refusesASecond(ctx context.Context, sameID bool) bool {
	st := stateOf(ctx)
	probe := &state{rng: st.rng, ids: st.ids}
	id, name := probe.freshID(), "plantcheck probe "+strconv.FormatInt(probe.freshID(), 36)
	for i := 0; i < 2; i++ {
		if i == 1 && sameID {
			name += " (second)"
		}
		if i == 1 && !sameID {
			id = probe.freshID()
		}
		probe.req = request{}
		probe.req.set("id", json.RawMessage(strconv.FormatInt(id, 10)))
		probe.req.set("name", quote(name))
		x, err := s.send(ctx, probe)
		if err != nil || x.Err != nil || x.Status != []int{http.StatusOK, http.StatusBadRequest}[i] {
			return false
		}
	}
	return true
}

// judged records a failure of rule when a check's judgement says the
// answer broke it.
func (s *Suite) judged(st *state, rule rules.RuleID, x *Sent, j judge.Judgement) error {
	if j.OK() {
		return nil
	}
	return s.fail(st, rule, x, j.Expected, j.Actual, j.Details...)
}

// answered returns the scenario's state and its last answer.
func (s *Suite) answered(ctx context.Context) (*state, *Sent, error) {
	st := stateOf(ctx)
	x, err := s.response(st)
	return st, x, err
}

// theResponseIsAPlantRecord reads the one judge's Plant record of an
// accepted create (CREATE-200's), a failure of the scenario's own rule.
func (s *Suite) theResponseIsAPlantRecord(ctx context.Context) error {
	st, x, err := s.answered(ctx)
	if err != nil {
		return err
	}
	j, ok := x.judgedBy(rules.Create200)
	if !ok {
		// The judge reads a Plant record in the answer to a valid create
		// accepted only: the steps before this one said why not.
		j = judge.Judgement{Expected: "status 200 with a Plant record", Actual: fmt.Sprintf("status %d", x.Status)}
	}
	return s.judged(st, "", x, j)
}

func (s *Suite) thePlantHasNoID(ctx context.Context) error {
	st, x, err := s.answered(ctx)
	if err != nil {
		return err
	}
	// The one judge judges a Plant record for an id; another body is the
	// document's to fail (RESPONSE-DOCUMENTED, after the steps).
	return s.judged(st, "", x, x.result(rules.CreateNoID))
}

func (s *Suite) theResponseIsAnErrorRecord(ctx context.Context) error {
	st, x, err := s.answered(ctx)
	if err != nil {
		return err
	}
	return s.judgedRecord(st, x)
}

// sizeNotJudged is what a probe of a request's size expects: the size is
// the service's to limit, the answer's shape is the contract's.
const sizeNotJudged = "200 with a Plant record, or 400 with an Error record (the size itself is not judged: a service may refuse a large request, with 400 and an Error record)"

// thePlantOrAnErrorRecord judges the answer to a request that a service
// may accept or refuse: 200 with a Plant record (which, and whose echo,
// the after-hook judges, each a MUST), or 400 with an Error record. Any other
// answer fails RESPONSE-DOCUMENTED; to a request whose header is long, the
// one judge judges a refusal at HEADER-SIZE, a SHOULD (a header limit is
// the infrastructure's in front).
func (s *Suite) thePlantOrAnErrorRecord(ctx context.Context) error {
	st, x, err := s.answered(ctx)
	if err != nil {
		return err
	}
	if x.Status == http.StatusOK {
		return nil // the after-hook judges the record (RESPONSE-DOCUMENTED) and its echo
	}
	if x.Status != http.StatusBadRequest {
		if j, ok := x.judgedBy(rules.HeaderSize); ok {
			return s.judged(st, rules.HeaderSize, x, j)
		}
		return s.fail(st, rules.ResponseDocumented, x, sizeNotJudged, fmt.Sprintf("status %d", x.Status))
	}
	return s.judgedRecord(st, x)
}

// judgedRecord is the one judge's judgement of a refusal's Error record
// (ERROR-RECORD), or, for a valid request with a long header, of its
// shape at HEADER-SIZE's level, which the judge gives in its place.
func (s *Suite) judgedRecord(st *state, x *Sent) error {
	if j, ok := x.judgedBy(rules.HeaderSize); ok {
		return s.judged(st, rules.HeaderSize, x, j)
	}
	j, ok := x.judgedBy(rules.ErrorRecord)
	if !ok {
		// The judge reads an Error record in a refusal only.
		j = judge.Judgement{Expected: "status 400 with an Error record", Actual: fmt.Sprintf("status %d", x.Status)}
	}
	return s.judged(st, rules.ErrorRecord, x, j)
}

func (s *Suite) theResponseConformsToTheDocument(ctx context.Context) error {
	st, x, err := s.answered(ctx)
	if err != nil {
		return err
	}
	return s.judged(st, rules.ResponseDocumented, x, x.result(rules.ResponseDocumented))
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
