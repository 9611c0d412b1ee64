package steps

import (
	"net/http"
	"testing"
)

// TestStepPatternsCompiledOncePerProcess: a second suite in the same
// process (selftest runs one per mutant) reuses the first one's compiled
// patterns, and every pattern is anchored at both ends, so that one step's
// text cannot match another's pattern by a part of it.
func TestStepPatternsCompiledOncePerProcess(t *testing.T) {
	newSuite := func() *Suite {
		s, err := New(Config{BaseURL: "http://127.0.0.1:1", Token: "t", Client: &http.Client{}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := newSuite(), newSuite()
	if len(a.steps) != len(b.steps) || len(a.steps) == 0 {
		t.Fatalf("the suites have %d and %d steps", len(a.steps), len(b.steps))
	}
	seen := map[string]bool{}
	for i := range a.steps {
		p := a.steps[i].re.String()
		if a.steps[i].re != b.steps[i].re {
			t.Errorf("pattern %s was compiled again for the second suite", p)
		}
		if seen[p] {
			t.Errorf("pattern %s is registered twice", p)
		}
		seen[p] = true
		if p[0] != '^' || p[len(p)-1] != '$' {
			t.Errorf("pattern %s is not anchored at both ends", p)
		}
	}
}
