package steps

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// statusIs reads the one judge's first broken judgement of the status of
// the last answer. A refusal for what the target stored is settled here:
// for a fixed id, inconclusive; for a name, judged on the request sent again
// under a fresh one. setup: a create the scenario needs first.
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
		rx, err := s.resendUnderAFreshName(ctx, st, x, st.req.label)
		if err != nil {
			return err
		}
		if rx != nil {
			if rx.Err == nil && rx.Status == http.StatusOK {
				st.Note, st.Noted = NoteNameReused+": sent again under a name not used before, and accepted", ErrNameReused
				return nil
			}
			answered := "nothing"
			if rx.Err == nil {
				answered = fmt.Sprintf("status %d", rx.Status)
			}
			details = append(details, "the target refuses a name it has stored; sent again under a name not used before, it answered "+answered)
			x = rx
		}
	}
	i := slices.IndexFunc(x.judged.Results, func(r judge.Result) bool { return r.Status != 0 && !r.OK() })
	if i < 0 {
		return nil
	}
	r := x.judged.Results[i]
	if setup {
		st.SetupFailed = true
		details = append(details, "this was the scenario's setup (a valid create, before the request it is about): "+
			string(st.Rule.ID)+" was not judged by this scenario")
	}
	return s.judged(st, r.Rule, x, r.Judgement, details...)
}

// unsure is why the judge left a refused valid create unjudged for what
// the target stored ("": it did not).
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

// resendUnderAFreshName sends a valid request refused for a name the
// target stored (uniqueness is "not shown") again under a fresh name, as
// the scenario's last exchange; nil when its body has no string name.
func (s *Suite) resendUnderAFreshName(ctx context.Context, st *state, x *Sent, label string) (*Sent, error) {
	body, ok := withNameSuffix(x.Body, " #"+strconv.FormatInt(st.freshID(), 36))
	if !ok {
		return nil, nil
	}
	again := st.req
	again.probe = true // its name is fresh: a refusal is judged
	again.setRaw(body)
	again.label = strings.TrimPrefix(label+"; ", "; ") + "sent again under a name not used before"
	rx, err := s.sendRequest(ctx, &again)
	if rx != nil {
		st.Exchanges = append(st.Exchanges, rx)
	}
	return rx, err
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
		if raw[0] != '"' {
			return nil, false
		}
		end := int(d.InputOffset()) - 1 // the closing quote
		out := make([]byte, 0, len(body)+len(suffix))
		out = append(append(append(out, body[:end]...), suffix...), body[end:]...)
		return out, true
	}
	return nil, false
}

// checkIntent is the suite checking itself: a scenario that expects 200 must
// have sent a request the document accepts, one that expects 400 one that
// it (or the service alone, for a token it did not issue) refuses.
func (s *Suite) checkIntent(st *state, x *Sent, want int) error {
	if want != http.StatusOK && want != http.StatusBadRequest {
		return nil
	}
	if (x.issued && x.judged.Valid) == (want == http.StatusOK) {
		return nil
	}
	if want == http.StatusOK {
		return &HarnessError{fmt.Errorf("%w: the scenario expects 200 for a request the document refuses: %s",
			ErrSuiteDefect, s.why(s.boundViolations(slices.Clone(x.judged.Violations))))}
	}
	return &HarnessError{fmt.Errorf("%w: the scenario expects 400 for a request the document accepts", ErrSuiteDefect)}
}

// refusesStored asks the target, once per run, whether it refuses a second
// plant with an id (sameID) or a name it has stored: the 4xx it refused the
// second of two fresh plants sharing only that with; 0 when it did not.
func (s *Suite) refusesStored(ctx context.Context, sameID bool) int {
	c := &s.storedNames
	if sameID {
		c = &s.storedIDs
	}
	c.once.Do(func() {
		st := stateOf(ctx)
		id, name := st.freshID(), "plantcheck probe "+strconv.FormatInt(st.freshID(), 36)
		for i := range 2 {
			r := request{probe: true, setup: true}
			if i == 1 {
				r.probeRefusal = "a probe of whether the target refuses what it has stored"
				if sameID {
					name += " (second)"
				} else {
					id = st.freshID()
				}
			}
			r.Set("id", json.RawMessage(strconv.FormatInt(id, 10)))
			r.Set("name", jsonString(name))
			x, err := s.sendRequest(ctx, &r)
			if err == nil { // judged with the scenario that asked
				st.mu.Lock()
				st.probes = append(st.probes, x)
				st.mu.Unlock()
			}
			if err != nil || x.Err != nil || i == 0 && x.Status != http.StatusOK || i == 1 && x.Status/100 != 4 {
				return
			}
			c.refuses = x.Status
		}
	})
	return c.refuses
}

func (s *Suite) why(vs []spec.Violation) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return s.Redact(strings.Join(out, "; "))
}

func (s *Suite) judged(st *state, rule rules.RuleID, x *Sent, j judge.Judgement, details ...string) error {
	if j.OK() {
		return nil
	}
	return s.fail(st, rule, x, j.Expected, j.Actual, append(slices.Clone(j.Details), details...)...)
}

// asks is the step that reads the judgement of the last answer by the first
// of ids it was judged by (none: the status step and the after-hook read
// the answer).
func (s *Suite) asks(ids ...rules.RuleID) func(context.Context) error {
	return func(ctx context.Context) error {
		st := stateOf(ctx)
		x, err := s.response(st)
		if err != nil {
			return err
		}
		for _, rule := range ids {
			if j, ok := x.JudgedBy(rule); ok {
				return s.judged(st, rule, x, j)
			}
		}
		return nil
	}
}

func (s *Suite) theAnswerIsNoted(ctx context.Context) error {
	st := stateOf(ctx)
	x, err := s.response(st)
	if err != nil {
		return err
	}
	st.Note = cmp.Or(map[int]string{http.StatusOK: "accepted (200)", http.StatusBadRequest: "refused (400)", http.StatusNotAcceptable: "not acceptable (406)"}[x.Status],
		fmt.Sprintf("answered %d", x.Status))
	return nil
}
