package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/generate"
	"github.com/plantcheck/plantcheck/spec"
)

// DefaultExamples is how many valid bodies of each kind a generated
// scenario sends when Config.Examples is 0.
const DefaultExamples = 25

// shrinkBudget bounds the requests spent shrinking one failing case.
const shrinkBudget = 24

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
	for _, c := range st.cases {
		if s.tripped.Load() {
			break
		}
		x, err := s.sendCase(ctx, st, c)
		if err != nil {
			return err
		}
		st.caseX = append(st.caseX, x)
	}
	return nil
}

func (s *Suite) checkCase(c *generate.Case) error {
	if s.validator.BodyConforms(http.MethodPost, "/plants", c.Body()) == (c.Kind != generate.Invalid) {
		return nil
	}
	// Not what it claims: the whole check says why.
	h := http.Header{"Authorization": {"Bearer " + s.cfg.Token}, "Content-Type": {"application/json"}}
	vs := s.validator.CheckRequest(spec.Request{Method: http.MethodPost, Path: "/plants", Header: h, Body: c.Body()})
	if valid := len(vs) == 0; valid != (c.Kind != generate.Invalid) {
		return &HarnessError{fmt.Errorf("%w: a generated case (%s) is not what it claims: the document finds it valid=%v %s",
			ErrSuiteDefect, c.Class, valid, s.redact(strings.Join(violationLines(vs), "; ")))}
	}
	return nil
}

func (s *Suite) sendCase(ctx context.Context, st *state, c *generate.Case) (*Exchange, error) {
	st.raw, st.rawSet = c.Body(), true
	x, err := s.send(ctx, st)
	if err != nil {
		return nil, err
	}
	st.last = x
	st.exchanges = append(st.exchanges, x)
	return x, nil
}

// judge says how the target's answer to a case breaks a rule: "" when it
// does not. The answer must be 200 with a Plant record that echoes the
// case for a valid case, and 400 with an Error record for an invalid one.
func (s *Suite) judge(c *generate.Case, x *Exchange) (expected, actual string) {
	if x.Err != nil {
		return "a complete HTTP response within " + s.timeout.String(), "no answer: " + s.redact(x.Err.Error())
	}
	var obj map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(x.body))
	d.UseNumber()
	isObject := d.Decode(&obj) == nil && obj != nil
	if c.Kind == generate.Invalid {
		want := "status 400 with an Error record"
		if x.Status != http.StatusBadRequest {
			return want, fmt.Sprintf("status %d", x.Status)
		}
		if !isObject {
			return want, "a body that is not a JSON object"
		}
		return "", "" // the record's fields are the document check's to judge
	}
	want := "status 200 with a Plant record that echoes the plant sent"
	if x.Status != http.StatusOK {
		return want, fmt.Sprintf("status %d", x.Status)
	}
	if !isObject {
		return want, "a body that is not a JSON object"
	}
	for _, p := range s.shapes.plant.Properties {
		sent, wasSent := c.Get(p.Name)
		got, answered := obj[p.Name]
		switch {
		case wasSent && !answered:
			return want, fmt.Sprintf("%s is missing (sent %s)", p.Name, excerpt(sent))
		case !wasSent && answered:
			return want, fmt.Sprintf("%s is %s, but none was sent", p.Name, excerpt(got))
		case wasSent && !sameJSON(sent, got):
			return want, fmt.Sprintf("%s is %s, sent %s", p.Name, excerpt(got), excerpt(sent))
		}
	}
	return "", ""
}

// sameJSON compares two JSON values by meaning: strings by their text,
// whatever their escapes. An honest echo is most often the very bytes
// sent, which need no decoding.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return bytes.Equal(a, b)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}

// ruleFor maps a case to the rule of the catalog it exercises: an invalid
// case to the rule of its property and the way it breaks it, where the
// catalog has one, else to the scenario's own rule.
func ruleFor(c *generate.Case, own features.Rule) string {
	if c.Kind != generate.Invalid {
		return own.ID
	}
	var id string
	switch p := strings.ToUpper(c.Property); c.Breaks {
	case "object":
		id = "BODY-OBJECT"
	case "required":
		id = "BODY-" + p + "-REQUIRED"
	case "range":
		id = "BODY-" + p + "-INT64"
	case "fraction":
		id = "BODY-" + p + "-INTEGER"
	case "type":
		for _, suffix := range []string{"-STRING", "-INTEGER"} {
			if _, ok := features.Lookup("BODY-" + p + suffix); ok {
				id = "BODY-" + p + suffix
			}
		}
	}
	if _, ok := features.Lookup(id); !ok {
		return own.ID
	}
	return id
}

// eachIsAnsweredAsItShould judges every answer; the first failing case is
// shrunk to the smallest body that still fails, and reported with it.
func (s *Suite) eachIsAnsweredAsItShould(ctx context.Context) error {
	st := stateOf(ctx)
	var first *Failure
	failed := 0
	for i, x := range st.caseX {
		c := st.cases[i]
		expected, actual := s.judge(c, x)
		if expected == "" {
			continue
		}
		failed++
		if first != nil {
			continue
		}
		small, sx, tries := c, x, 0
		if x.Err == nil {
			small, tries = generate.Shrink(c, s.shapes.request, "id", shrinkBudget, func(cand *generate.Case) bool {
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
				if e, _ := s.judge(cand, cx); e != "" {
					sx = cx
					return true
				}
				return false
			})
			expected, actual = s.judge(small, sx)
		}
		details := []string{"generated case: " + c.Class}
		if tries > 0 {
			details = append(details, fmt.Sprintf("shrunk from %d to %d bytes in %d attempts (the request below is the smallest that still fails); the case as generated: %s",
				len(c.Body()), len(small.Body()), tries, excerpt(c.Body())))
		}
		first = s.fail(st, ruleFor(c, st.rule), sx, expected, actual, details...)
	}
	if first != nil {
		summary := fmt.Sprintf("%d of %d generated cases failed (seed %d reproduces them)", failed, len(st.caseX), s.cfg.Seed)
		first.Details = append(first.Details, summary)
		if first.Rule.ID != st.rule.ID {
			// The case counts toward the rule of the property it breaks,
			// and the scenario's own rule fails with it.
			s.fail(st, "", first.Exchange, "every generated case answered as its rule requires",
				fmt.Sprintf("%s; the first broke %s", summary, first.Rule.ID))
		}
		return first
	}
	if len(st.caseX) < len(st.cases) {
		return s.fail(st, "RESPONSE-TIMELY", st.last, "an answer to every request",
			fmt.Sprintf("%d of %d generated cases were not sent: the target stopped answering", len(st.cases)-len(st.caseX), len(st.cases)))
	}
	return nil
}
