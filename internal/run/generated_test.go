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
		if rep.ExitCode() != 0 || rep.Model().Counts.Passed != 3 {
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

// freshTags select scenarios that send fresh ids in JSON, in every
// spelling (@CREATE-200), and in forms (@MEDIA-REQUEST), and the hostile
// tags, each with a fresh name (@BODY-TAG-ANY).
const freshTags = "@CREATE-200,@MEDIA-REQUEST,@BODY-TAG-ANY"

// TestSameSeedSameRequests: the same seed sends the same requests byte for
// byte, but for the fresh ids and names, which are drawn afresh in every run so that
// a rerun never meets an id its run stored (unless the run fixes their
// salt, as the living documentation's examples do).
//
// The whole suite runs three times, each against a fresh server: twice
// with one seed and one id salt, which send every byte again, and once
// with another seed, which sends other requests. The salt seeds the ids'
// stream only (steps.Suite's idSalt), so the fresh ids are shown on two
// runs of one area, with one seed and no salt: their ids differ, and
// nothing else.
func TestSameSeedSameRequests(t *testing.T) {
	t.Parallel()
	freshIDs := regexp.MustCompile(`(:\s*)[-+]?(0x)?[0-9a-f]{3,}`)            // after any spelling of "id"
	freshNames := regexp.MustCompile(`(Catalog tag test | #|\+%23)[0-9a-z]+`) // a tag case's name, and a fresh name's end, are drawn afresh too
	formIDs := regexp.MustCompile(`((?:^| |&)id=|name="id"\r\n\r\n)[0-9]+`)   // the id of a plant sent as a form
	fresh := []*regexp.Regexp{freshIDs, freshNames, formIDs}
	masked := func(reqs []string) []string {
		out := make([]string, len(reqs))
		for i, r := range reqs {
			for _, re := range fresh {
				r = re.ReplaceAllString(r, `${1}N`)
			}
			out[i] = r
		}
		// Scenarios run at once, so requests arrive in any order:
		// compared as sets.
		slices.Sort(out)
		return out
	}
	run := func(tags string, seed, salt uint64) []string {
		url, token, bodies := recorder(t)
		rep, err := runWith(context.Background(), Config{BaseURL: url, Token: token, Seed: seed, Tags: tags}, Options{Output: io.Discard, IDSalt: salt})
		if err != nil {
			t.Fatal(err)
		}
		if rep.ExitCode() != 0 {
			t.Fatalf("seed %d: exit %d", seed, rep.ExitCode())
		}
		got := bodies()
		slices.Sort(got)
		return got
	}
	a, b, c := run("", 12345, 7), run("", 12345, 7), run("", 54321, 7)
	if len(a) < 100 {
		t.Errorf("only %d requests", len(a))
	}
	if !slices.Equal(a, b) {
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("request %d differs with the same seed and id salt:\n%.300q\n%.300q", i, a[i], b[i])
			}
		}
		t.Fatalf("the same seed and id salt sent %d and %d requests", len(a), len(b))
	}
	if slices.Equal(masked(a), masked(c)) {
		t.Error("two seeds sent the same requests")
	}
	// No salt: each run draws its own.
	d, e := run(freshTags, 12345, 0), run(freshTags, 12345, 0)
	t.Logf("%d requests in a whole run, %d of %s", len(a), len(d), freshTags)
	for _, re := range fresh {
		if !slices.ContainsFunc(d, re.MatchString) {
			t.Errorf("no request of %s has a fresh value %s masks", freshTags, re)
		}
	}
	if slices.Equal(d, e) {
		t.Error("two runs with one seed sent the same fresh ids: a rerun would meet the ids its run stored")
	}
	if d, e := masked(d), masked(e); !slices.Equal(d, e) {
		for i := range min(len(d), len(e)) {
			if d[i] != e[i] {
				t.Fatalf("request %d differs with the same seed but for its fresh ids:\n%.300q\n%.300q", i, d[i], e[i])
			}
		}
		t.Fatalf("the same seed sent %d and %d requests", len(d), len(e))
	}
}
