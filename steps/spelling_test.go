package steps

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/spec"
)

// TestSpellings: every presentation writes a request the document accepts
// and whose name and tag read as the very ones meant; every departure
// writes a body the document refuses, but for those RFC 8259 leaves to the
// reader; and every one that a feature names exists, and only those.
func TestSpellings(t *testing.T) {
	v, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	base := func() *request {
		r := &request{}
		r.Set("id", json.RawMessage("4294967297"))
		r.Set("name", json.RawMessage(`"Ficus lyrata 🌿"`))
		r.Set("tag", json.RawMessage(`"in\"door"`))
		return r
	}
	for name, apply := range presentations {
		t.Run("presented with "+name, func(t *testing.T) {
			r := base()
			apply(r)
			body := r.Body()
			if !v.BodyConforms(http.MethodPost, "/plants", body) {
				t.Fatalf("the document refuses %q", body)
			}
			sent := judge.ReadSent(body)
			if sent.Name != "Ficus lyrata 🌿" || sent.Tag != `in"door` || sent.Unjudged != "" {
				t.Errorf("%q reads as name %q tag %q (%s)", body, sent.Name, sent.Tag, sent.Unjudged)
			}
		})
	}
	readerLeft := []string{"a byte order mark before the object", "the name given twice, with two values",
		"an escaped lone surrogate in the name", "a byte that is not UTF-8 in the name"}
	for name, write := range departures {
		t.Run("written with "+name, func(t *testing.T) {
			body := write(base())
			if json.Valid(body) && !slices.Contains(readerLeft, name) {
				t.Errorf("%q is JSON", body)
			}
			left := slices.Contains(readerLeft, name)
			if conforms := v.BodyConforms(http.MethodPost, "/plants", body); conforms && !left {
				t.Errorf("the document accepts %q", body)
			}
			if left && judge.ReadSent(body).Unjudged == "" && json.Valid(body) {
				t.Errorf("the echo of %q would be judged", body)
			}
		})
	}

	// Every table entry is named by a feature, and every name a feature
	// uses has an entry.
	scs, err := features.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, sc := range scs {
		for _, step := range sc.Steps {
			for _, prefix := range []string{"the request is presented with ", "the body is written with ", "the request carries the issued token "} {
				if name, ok := strings.CutPrefix(step, prefix); ok {
					used[prefix+name] = true
				}
			}
		}
	}
	var names []string
	for name := range presentations {
		names = append(names, "the request is presented with "+name)
	}
	for name := range departures {
		names = append(names, "the body is written with "+name)
	}
	for _, nm := range nearMisses {
		names = append(names, "the request carries the issued token "+nm.name)
	}
	for _, n := range names {
		if !used[n] {
			t.Errorf("no feature uses %q", n)
		}
		delete(used, n)
	}
	for n := range used {
		t.Errorf("a feature uses %q, which no table has", n)
	}
}
