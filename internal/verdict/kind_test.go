package verdict

import (
	"context"
	"fmt"
	"net/http"
	"syscall"
	"testing"

	"github.com/plantcheck/plantcheck/internal/exchange"
)

// TestKind: a failure's kind of answer comes from the exchange's status and
// Content-Type, set where the failure is made, never from its wording or its
// response line; with no answer, from what came instead.
func TestKind(t *testing.T) {
	t.Parallel()
	answer := func(status int, ct string) *exchange.Exchange {
		h := http.Header{}
		if ct != "" {
			h.Set("Content-Type", ct)
		}
		return &exchange.Exchange{Status: status, RespHeader: h}
	}
	for _, tc := range []struct {
		name string
		x    *exchange.Exchange
		want string
	}{
		{"a status and a media type", answer(201, "application/json"), "201 application/json"},
		{"parameters and case do not count", answer(201, "Application/JSON; charset=utf-8"), "201 application/json"},
		{"no Content-Type", answer(400, ""), "400 with no media type"},
		{"text", answer(400, "text/plain"), "400 text/plain"},
		{"a time limit", &exchange.Exchange{Err: fmt.Errorf("read: %w", context.DeadlineExceeded)}, "no answer (time limit)"},
		{"a reset", &exchange.Exchange{Err: fmt.Errorf("read: %w", syscall.ECONNRESET)}, "no answer (connection reset)"},
		{"another error", &exchange.Exchange{Err: fmt.Errorf("tls: bad certificate")}, "no answer (transport error)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var e Evidence
			e.AnswerOf(tc.x)
			e.Actual, e.Response = "status 500", "500 text/html, body …" // prose never decides the kind
			if got := e.Kind(); got != tc.want {
				t.Errorf("kind %q, want %q", got, tc.want)
			}
		})
	}
	if got := (Evidence{Response: "200 application/json, body …"}).Kind(); got != KindUntyped {
		t.Errorf("an answer with no typed status (an older summary.json): kind %q, want %q", got, KindUntyped)
	}
	if got := (Evidence{}).Kind(); got != "no exchange" {
		t.Errorf("a failure seen in no exchange: kind %q", got)
	}
}

// TestKindAnswered: the To-fix line says what came, in words that read:
// a request with no answer "got no answer", never "answered no answer".
func TestKindAnswered(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		k    kind
		want string
	}{
		{kind{status: 401, media: "application/json"}, "answered 401 application/json"},
		{kind{status: 400}, "answered 400 with no media type"},
		{kind{}, "got no answer"},
	} {
		if got := tc.k.answered(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.k, got, tc.want)
		}
	}
}
