package run

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/reference"
	"github.com/plantcheck/plantcheck/spec/rules"
	"github.com/plantcheck/plantcheck/steps"
)

// TestGeneratedScenariosCatchBrokenValueHandling runs only the generated
// scenarios against servers that each mishandle one class of value: each
// fails, names the rule, and shows a shrunk example.
func TestGeneratedScenariosCatchBrokenValueHandling(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mutant string
		rule   rules.RuleID
	}{
		{"int32-id", "GEN-VALID"},
		{"loose-tag-type", "BODY-TAG-STRING"},
		{"ascii-names-only", "GEN-VALID"},
		{"tag-required", "GEN-VALID"},
	}
	for _, tt := range tests {
		t.Run(tt.mutant, func(t *testing.T) {
			t.Parallel()
			m, ok := mutants.Lookup(tt.mutant)
			if !ok {
				t.Fatalf("no mutant %s", tt.mutant)
			}
			url, token := startTarget(t, m.Wrap)
			rep, err := runWith(context.Background(), Config{BaseURL: url, Token: token, Tags: "@area-generated", Seed: 99}, Options{Output: io.Discard})
			if err != nil {
				t.Fatal(err)
			}
			var f *steps.Failure
			for _, s := range rep.Scenarios {
				for _, sf := range s.Failures {
					if sf.Rule.ID == tt.rule && f == nil {
						f = sf
					}
				}
			}
			if f == nil {
				t.Fatalf("no failure of %s; exit %d", tt.rule, rep.ExitCode())
			}
			details := strings.Join(f.Details, "\n")
			if !strings.Contains(details, "generated case: ") || !strings.Contains(details, "seed 99 reproduces them") {
				t.Errorf("failure lacks the case and the seed:\n%s", details)
			}
			if !strings.Contains(details, "shrunk from") {
				t.Errorf("no shrunk example:\n%s", details)
			}
			if f.Exchange == nil || !strings.Contains(f.Exchange.Curl(), "--data-binary") {
				t.Errorf("failure lacks its reproduction")
			}
			if rep.ExitCode() != 1 {
				t.Errorf("exit code %d, want 1", rep.ExitCode())
			}
		})
	}
}

// TestGeneratedPassTheReferenceForManySeeds runs the generated scenarios
// with many seeds against the reference server.
func TestGeneratedPassTheReferenceForManySeeds(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 20; seed++ {
		rep, err := runWith(context.Background(), withReference(t, Config{Tags: "@area-generated", Seed: seed, Examples: 40}), Options{Output: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		if rep.ExitCode() != 0 || rep.Counts.Passed != 3 {
			var out bytes.Buffer
			rep.WriteVerdict(&out)
			t.Fatalf("seed %d: %s", seed, out.String())
		}
	}
}

// recorder serves the reference and keeps every request body, in order.
func recorder(t *testing.T) (url, token string, bodies func() []string) {
	token = "t0ken-recorder"
	ref, err := reference.New(reference.Config{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Header.Get("Authorization")+" "+r.Header.Get("Content-Type")+" "+string(b))
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		ref.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, token, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// TestSameSeedSameRequests runs the whole suite twice with one seed, each
// time against a fresh server, and once with another: the same seed sends
// the same requests byte for byte, but for the fresh ids, which are drawn
// afresh in every run so that a rerun never meets an id its run stored
// (unless the run fixes their salt).
func TestSameSeedSameRequests(t *testing.T) {
	t.Parallel()
	freshIDs := regexp.MustCompile(`(:\s*)[-+]?(0x)?[0-9a-f]{3,}`)          // after any spelling of "id"
	freshNames := regexp.MustCompile(`(Catalog tag test )[0-9a-z]+`)        // a tag case's name is drawn afresh too
	formIDs := regexp.MustCompile(`((?:^| |&)id=|name="id"\r\n\r\n)[0-9]+`) // the id of a plant sent as a form
	masked := func(reqs []string) []string {
		out := make([]string, len(reqs))
		for i, r := range reqs {
			for _, re := range []*regexp.Regexp{freshIDs, freshNames, formIDs} {
				r = re.ReplaceAllString(r, `${1}N`)
			}
			out[i] = r
		}
		return out
	}
	run := func(seed uint64, salt ...uint64) []string {
		url, token, bodies := recorder(t)
		cfg := Config{BaseURL: url, Token: token, Seed: seed}
		opts := Options{Output: io.Discard}
		if len(salt) > 0 {
			opts.IDSalt = salt[0]
		}
		rep, err := runWith(context.Background(), cfg, opts)
		if err != nil {
			t.Fatal(err)
		}
		if rep.ExitCode() != 0 {
			t.Fatalf("seed %d: exit %d", seed, rep.ExitCode())
		}
		return bodies()
	}
	a, b, c := run(12345), run(12345), run(54321)
	// A fixed salt (the living documentation's examples) fixes the fresh
	// ids too: every byte comes again.
	d, e := run(12345, 7), run(12345, 7)
	slices.Sort(d)
	slices.Sort(e)
	if !slices.Equal(d, e) {
		t.Error("two runs with one seed and one id salt sent different requests")
	}
	if len(a) < 100 {
		t.Errorf("only %d requests", len(a))
	}
	// Scenarios run at once, so requests arrive in any order: compared as
	// sets.
	slices.Sort(a)
	slices.Sort(b)
	if slices.Equal(a, b) {
		t.Error("two runs with one seed sent the same fresh ids: a rerun would meet the ids its run stored")
	}
	a, b, c = masked(a), masked(b), masked(c)
	slices.Sort(a)
	slices.Sort(b)
	slices.Sort(c)
	if !slices.Equal(a, b) {
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("request %d differs with the same seed:\n%.300q\n%.300q", i, a[i], b[i])
			}
		}
		t.Fatalf("the same seed sent %d and %d requests", len(a), len(b))
	}
	if slices.Equal(a, c) {
		t.Error("two seeds sent the same requests")
	}
}
