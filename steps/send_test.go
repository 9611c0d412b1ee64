package steps

import (
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/spec"
)

// TestReadBounded: a body is read whole up to the bound whatever length the
// answer declares (none, the true one, a smaller or a larger one), and past
// the bound it is cut and an error.
func TestReadBounded(t *testing.T) {
	const limit = 4096
	tests := []struct {
		name     string
		body     int
		declared int64
		tooLarge bool
	}{
		{"empty, no length", 0, -1, false},
		{"small, its length", 10, 10, false},
		{"no length", 3000, -1, false},
		{"a length too small", 3000, 5, false},
		{"a length too large", 30, 1 << 40, false},
		{"the bound exactly", limit, limit, false},
		{"one past the bound, its length", limit + 1, limit + 1, true},
		{"far past the bound, no length", 5 * limit, -1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := strings.Repeat("x", tt.body)
			got, err := readBounded(strings.NewReader(body), tt.declared, limit)
			if tt.tooLarge {
				if !errors.Is(err, judge.ErrBodyTooLarge) || len(got) != limit {
					t.Fatalf("got %d bytes, err %v; want the first %d and ErrBodyTooLarge", len(got), err, limit)
				}
				return
			}
			if err != nil || string(got) != body {
				t.Fatalf("got %d bytes, err %v; want the %d sent", len(got), err, tt.body)
			}
			if c := cap(got); c > max(tt.body, 0)+limit+512 {
				t.Errorf("a buffer of %d bytes for %d", c, tt.body)
			}
		})
	}
}

// TestRequestHeader: a request's header is built once, the scenario's own
// first: the user's --header never replaces what a scenario sets or leaves
// out on purpose, fills every other name (the suite's defaults too), and
// its cookies go before the scenario's in one Cookie header.
func TestRequestHeader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		user http.Header // --header
		set  func(r *request)
		auth string
		want http.Header
	}{
		{name: "defaults", auth: "Bearer t", want: http.Header{
			"Authorization": {"Bearer t"}, "Content-Type": {"application/json"}, "Accept": {"application/json"}, "User-Agent": {"plantcheck"}}},
		{name: "the scenario's own, and none", set: func(r *request) {
			r.setHeader("Content-Type", "text/plain")
			r.setHeader("Accept")
			r.setHeader("User-Agent", "")
			r.setHeader("Idempotency-Key", `"k"`)
		}, want: http.Header{"Content-Type": {"text/plain"}, "User-Agent": {""}, "Idempotency-Key": {`"k"`}}},
		{name: "--header fills a default and a name of its own", user: http.Header{"user-agent": {"gw/1"}, "X-Api-Key": {"key"}},
			want: http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}, "User-Agent": {"gw/1"}, "X-Api-Key": {"key"}}},
		{name: "--header never replaces the scenario's", user: http.Header{"User-Agent": {"gw/1"}, "Idempotency-Key": {"mine"}},
			set:  func(r *request) { r.setHeader("User-Agent", ""); r.setHeader("Idempotency-Key", `"k"`) },
			want: http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}, "User-Agent": {""}, "Idempotency-Key": {`"k"`}}},
		{name: "cookies: --header's, then the scenario's", user: http.Header{"Cookie": {"gw=1"}},
			set:  func(r *request) { r.setHeader("Cookie", "sid=2; b=3") },
			want: http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}, "User-Agent": {"plantcheck"}, "Cookie": {"gw=1; sid=2; b=3"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &Suite{cfg: Config{Headers: tc.user}}
			var r request
			if tc.set != nil {
				tc.set(&r)
			}
			if got := s.header(&r, tc.auth); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("header = %v, want %v", got, tc.want)
			}
		})
	}
}

// validator is the document's, which every suite of the tests checks by.
func validator() *spec.Validator {
	v, err := spec.Default()
	if err != nil {
		panic(err)
	}
	return v
}
