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

func (s *Suite) theResponseStatusIs(ctx context.Context, want int) error {
	return s.statusIs(ctx, want, false)
}

// statusIs reads the one judge's judgement of the status of the
// scenario's last answer: of each rule the answer's status shows (the
// refusal's rules, or the rule a valid request's acceptance counts
// toward), the first broken. A refusal the judge left unjudged because the
// target refuses what it stored is settled here: an id the scenario fixed
// is inconclusive; a name is sent again under one not used before, whose
// answer the judge judges in its turn. setup: the request is a create the
// scenario needs first, whose refusal leaves the scenario's rule unjudged.
func (s *Suite) statusIs(ctx context.Context, want int, setup bool) error {
	st := stateOf(ctx)
	x, err := s.response(st)
	if err != nil {
		return err
	}
	if err := s.checkIntent(st, x, want); err != nil {
		return err
	}
	var details []string
	switch unsure := x.unsure(); {
	case unsure == UnsureReusedID:
		return st.skipFor(ErrInconclusive, unsure)
	case unsure == NoteNameReused:
		rx, err := s.resendUnderAFreshName(ctx, &st.req, x, st)
		if err != nil {
			return err
		}
		if rx != nil {
			st.last = rx
			st.exchanges = append(st.exchanges, rx)
			if rx.Err == nil && rx.Status == http.StatusOK {
				st.note, st.noted = NoteNameReused+": sent again under a name not used before, and accepted", ErrNameReused
				return nil
			}
			details = append(details, fmt.Sprintf("the target refuses a name it has stored; sent again under a name not used before, it answered %s", statusOf(rx)))
			x = rx
		}
	}
	r, failed := x.statusFailed()
	if !failed {
		return nil
	}
	if setup {
		st.setupFailed = true
		details = append(details, "this was the scenario's setup (a valid create, before the request it is about): "+
			string(st.rule.ID)+" was not judged by this scenario")
	}
	return s.judged(st, r.Rule, x, r.Judgement, details...)
}

// statusFailed is the first of the one judge's judgements of an
// exchange's status that failed.
func (x *Sent) statusFailed() (judge.Result, bool) {
	for _, r := range x.judged.Results {
		if r.Status != 0 && !r.OK() {
			return r, true
		}
	}
	return judge.Result{}, false
}

// unsure is why the one judge left the status of a refused valid create
// unjudged ("": it did not): what the target stored may be why.
func (x *Sent) unsure() string {
	for _, u := range x.judged.Unjudged {
		if u == UnsureReusedID || u == NoteNameReused {
			return u
		}
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
	if !x.issued || !x.judged.Valid {
		return nil, nil
	}
	body, ok := withNameSuffix(x.Body, " #"+strconv.FormatInt(st.freshID(), 36))
	if !ok {
		return nil, nil
	}
	again := *r
	again.probe = true // its name is fresh: a refusal is judged
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
	if (x.issued && x.judged.Valid) == (want == http.StatusOK) {
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
			ErrSuiteDefect, s.Redact(strings.Join(why, "; ")))}
	}
	return &HarnessError{fmt.Errorf("%w: the scenario expects 400 for a request the document accepts", ErrSuiteDefect)}
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
		probe.req = request{probe: true, setup: true}
		if i == 1 {
			probe.req.probeRefusal = "a probe of whether the target refuses what it has stored"
		}
		probe.req.set("id", json.RawMessage(strconv.FormatInt(id, 10)))
		probe.req.set("name", jsonString(name))
		x, err := s.sendRequest(ctx, &probe.req)
		if err == nil {
			st.keep(x) // judged with the scenario that asked
		}
		if err != nil || x.Err != nil || x.Status != []int{http.StatusOK, http.StatusBadRequest}[i] {
			return false
		}
	}
	return true
}

// judged records a failure of rule when a check's judgement says the
// answer broke it.
func (s *Suite) judged(st *state, rule rules.RuleID, x *Sent, j judge.Judgement, details ...string) error {
	if j.OK() {
		return nil
	}
	return s.fail(st, rule, x, j.Expected, j.Actual, append(slices.Clone(j.Details), details...)...)
}

// ask reads the one judge's judgement of the scenario's last answer by the
// first of rules it judged it by: a failure of that rule when it failed,
// nothing when it passed or when the judge judged it by none of them (then
// the answer showed another rule's aspect, which the status step and the
// after-hook read).
func (s *Suite) ask(ctx context.Context, rules ...rules.RuleID) error {
	st := stateOf(ctx)
	x, err := s.response(st)
	if err != nil {
		return err
	}
	for _, rule := range rules {
		if j, ok := x.JudgedBy(rule); ok {
			return s.judged(st, rule, x, j)
		}
	}
	return nil
}

// theResponseIsAPlantRecord reads the one judge's judgement of an accepted
// create's Plant record (CREATE-200's).
func (s *Suite) theResponseIsAPlantRecord(ctx context.Context) error {
	return s.ask(ctx, rules.Create200)
}

func (s *Suite) thePlantHasNoID(ctx context.Context) error {
	return s.ask(ctx, rules.CreateNoID)
}

// theResponseIsAnErrorRecord reads the one judge's judgement of a
// refusal's Error record (ERROR-RECORD), or, for a valid request with a
// long header, of its shape at HEADER-SIZE's level, which the judge gives
// in its place.
func (s *Suite) theResponseIsAnErrorRecord(ctx context.Context) error {
	return s.ask(ctx, rules.HeaderSize, rules.ErrorRecord)
}

// thePlantOrAnErrorRecord reads the one judge on the answer to a request
// that a service may accept or refuse (a size the spec sets no limit on):
// 200 with a Plant record, or 400 with an Error record; any other answer
// is undocumented (RESPONSE-DOCUMENTED), or, to a request whose header is
// long, judged at HEADER-SIZE's level, a SHOULD.
func (s *Suite) thePlantOrAnErrorRecord(ctx context.Context) error {
	return s.ask(ctx, rules.HeaderSize, rules.ErrorRecord, rules.ResponseDocumented)
}

func (s *Suite) theResponseConformsToTheDocument(ctx context.Context) error {
	return s.ask(ctx, rules.ResponseDocumented)
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
	case http.StatusNotAcceptable:
		st.note = "not acceptable (406)"
	default:
		st.note = fmt.Sprintf("answered %d", x.Status)
	}
	return nil
}
