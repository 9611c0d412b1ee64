package selftest

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/har"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// TestDisagreements: the check that a run agrees with its own recording
// judged again can fail: a rule the run passed that the recording's
// exchanges break is named, and one it failed that they keep; a rule the
// recording cannot show, or agrees on, is not.
func TestDisagreements(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "run.har")
	w, err := har.Create(file, "plantcheck", "test")
	if err != nil {
		t.Fatal(err)
	}
	// A refusal of a body without an id, as text: BODY-ID-REQUIRED kept,
	// ERROR-RECORD and RESPONSE-MEDIA broken.
	w.Add(har.NewEntry(har.Record{Started: time.Now(), Exchange: exchange.Exchange{
		Method: http.MethodPost, URL: "http://127.0.0.1:9/plants",
		Header: http.Header{"Authorization": {"Bearer t"}, "Content-Type": {"application/json"}}, Body: []byte(`{"name":"Fern"}`),
		Status: http.StatusBadRequest, RespHeader: http.Header{"Content-Type": {"text/plain"}}, RespBody: []byte("Bad Request\n"),
	}}, har.NewHider("", nil), 1<<20))
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ran := []verdict.Rule{
		{ID: rules.ResponseMedia, Outcome: verdict.Pass},  // contradicted
		{ID: rules.BodyIDRequired, Outcome: verdict.Fail}, // contradicted
		{ID: rules.ErrorRecord, Outcome: verdict.Fail},    // agreed
		{ID: rules.Create200, Outcome: verdict.Pass},      // not from traffic
	}
	got, err := disagreements(file, ran)
	if err != nil {
		t.Fatal(err)
	}
	if want := "RESPONSE-MEDIA: run pass, judge fail|BODY-ID-REQUIRED: run fail, judge pass"; strings.Join(got, "|") != want {
		t.Errorf("disagreements = %q, want %q", got, want)
	}
}
