package spec_test

import (
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/plantcheck/plantcheck/internal/generate"
	"github.com/plantcheck/plantcheck/spec"
)

// TestBodyConformsAgreesWithCheckRequest proves that the cheap verdict gives
// the answer of the whole request check on every body the suite sends or
// could send: generated bodies of every kind over many seeds, and the
// awkward texts written out below.
func TestBodyConformsAgreesWithCheckRequest(t *testing.T) {
	v, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	header := http.Header{"Authorization": {"Bearer a-token"}, "Content-Type": {"application/json"}}
	full := func(body []byte) bool {
		return len(v.CheckRequest(spec.Request{Method: http.MethodPost, Path: "/plants", Header: header, Body: body})) == 0
	}

	written := []struct {
		body string
		want bool
	}{
		{`{"id":1,"name":"Fern"}`, true},
		{`{"id":1,"name":"Fern","tag":"green","extra":[1]}`, true},
		{`{"id":-9223372036854775808,"name":""}`, true},
		{`{"id":9223372036854775807,"name":"x"}`, true},
		{`{"id":1.0,"name":"Fern"}`, true},
		{` {"id":1,"name":"Fern"} `, true},
		{`{"id":9223372036854775808,"name":"Fern"}`, false},
		{`{"id":-9223372036854775809,"name":"Fern"}`, false},
		{`{"id":1e400,"name":"Fern"}`, false},
		{`{"id":9007199254740993.5,"name":"Fern"}`, false},
		{`{"id":1.5,"name":"Fern"}`, false},
		{`{"id":"1","name":"Fern"}`, false},
		{`{"id":1,"name":null}`, false},
		{`{"id":1,"name":"Fern","tag":null}`, false},
		{`{"name":"Fern"}`, false},
		{`{"id":1}`, false},
		{`{"id":1,"name":"Fern"} {}`, false},
		{`{"id":1,"name":"Fern"`, false},
		{"{\"id\":1,\"name\":\"F\xffern\"}", false},
		{`[{"id":1,"name":"Fern"}]`, false},
		{`null`, false},
		{`42`, false},
		{`""`, false},
		{`{}`, false},
		{``, false},
		{`   `, false},
	}
	for _, c := range written {
		if got := v.BodyConforms(http.MethodPost, "/plants", []byte(c.body)); got != c.want {
			t.Errorf("BodyConforms(%q) = %v, want %v", c.body, got, c.want)
		}
		if got := full([]byte(c.body)); got != c.want {
			t.Errorf("CheckRequest(%q) conforms = %v, want %v", c.body, got, c.want)
		}
	}

	shape, err := generate.FromDocument(spec.ModelOf(v), http.MethodPost, "/plants")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[bool]int{}
	for seed := range uint64(40) {
		g := &generate.Generator{Shape: shape, Rand: rand.New(rand.NewPCG(seed, seed)), IDProperty: "id"}
		cases := g.Invalid()
		for range 10 {
			cases = append(cases, g.Valid(generate.Typical), g.Valid(generate.Boundary))
		}
		for _, c := range cases {
			body := c.Body()
			got, want := v.BodyConforms(http.MethodPost, "/plants", body), full(body)
			if got != want {
				t.Errorf("seed %d, %s case %s: BodyConforms = %v, CheckRequest conforms = %v\n%s", seed, c.Kind, c.Class, got, want, body)
			}
			seen[want]++
		}
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Errorf("the generated bodies were not of both verdicts: %v", seen)
	}
}
