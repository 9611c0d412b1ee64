// Package mutants holds deliberately broken Plant Store servers: each is the
// reference server with exactly one defect against one rule of the spec. The
// suite proves it can fail by failing every one of them, and by naming the
// rule each breaks.
//
// A mutant wraps the reference handler and changes the request it sees or
// the response it gives, so the reference itself stays the plainest honest
// implementation.
package mutants

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"
)

// Mutant is one broken server.
type Mutant struct {
	// Name is a short stable identifier.
	Name string
	// Defect says what is wrong, in a sentence.
	Defect string
	// Rules are the rules a suite must name when it catches the defect (any
	// one of them will do).
	Rules []string
	// Slow marks a mutant that answers late: run it with a short timeout.
	Slow bool
	// Wrap builds the broken handler around the reference's.
	Wrap func(ref http.Handler, token string) http.Handler
}

// All is every mutant, in a stable order.
var All = []Mutant{
	{
		Name: "status-201", Defect: "answers a valid create with 201 instead of 200",
		Rules: []string{"CREATE-200", "RESPONSE-DOCUMENTED"},
		Wrap: onResponse(func(r *http.Request, res *response) {
			if res.status == http.StatusOK {
				res.status = http.StatusCreated
			}
		}),
	},
	{
		Name: "drop-tag", Defect: "leaves the tag out of the Plant record",
		Rules: []string{"CREATE-TAG"},
		Wrap:  onJSONResponse(http.StatusOK, func(obj map[string]any) { delete(obj, "tag") }),
	},
	{
		Name: "accept-missing-id", Defect: "accepts a body without an id",
		Rules: []string{"BODY-ID-REQUIRED"},
		Wrap: onJSONRequest(func(obj map[string]any) {
			if _, ok := obj["id"]; !ok {
				obj["id"] = json.Number(strconv.FormatInt(time.Now().UnixNano(), 10))
			}
		}),
	},
	{
		Name: "ignore-token", Defect: "accepts any request, whatever its credentials",
		Rules: []string{"AUTH-MISSING", "AUTH-SCHEME", "AUTH-EMPTY", "AUTH-UNKNOWN"},
		Wrap: func(ref http.Handler, token string) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				r.Header.Set("Authorization", "Bearer "+token)
				ref.ServeHTTP(w, r)
			})
		},
	},
	{
		Name: "error-without-message", Defect: "leaves message out of the Error record",
		Rules: []string{"ERROR-RECORD", "RESPONSE-DOCUMENTED"},
		Wrap:  onJSONResponse(http.StatusBadRequest, func(obj map[string]any) { delete(obj, "message") }),
	},
	{
		Name: "slow", Defect: "answers every request after two seconds",
		Rules: []string{"RESPONSE-TIMELY"}, Slow: true,
		Wrap: func(ref http.Handler, _ string) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-time.After(2 * time.Second):
				case <-r.Context().Done():
					return
				}
				ref.ServeHTTP(w, r)
			})
		},
	},
}

// response is a recorded response, open to change before it is sent.
type response struct {
	status int
	header http.Header
	body   []byte
}

// onResponse lets the reference answer, then changes the answer.
func onResponse(change func(*http.Request, *response)) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			ref.ServeHTTP(rec, r)
			res := &response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
			change(r, res)
			for k, v := range res.header {
				w.Header()[k] = v
			}
			w.Header().Set("Content-Length", strconv.Itoa(len(res.body)))
			w.WriteHeader(res.status)
			w.Write(res.body)
		})
	}
}

// onJSONResponse changes the JSON object of responses with one status.
func onJSONResponse(status int, change func(map[string]any)) func(http.Handler, string) http.Handler {
	return onResponse(func(_ *http.Request, res *response) {
		if res.status != status {
			return
		}
		var obj map[string]any
		d := json.NewDecoder(bytes.NewReader(res.body))
		d.UseNumber()
		if d.Decode(&obj) != nil {
			return
		}
		change(obj)
		res.body, _ = json.Marshal(obj)
	})
}

// onJSONRequest changes the JSON object of the request body before the
// reference sees it; bodies that are not objects pass unchanged.
func onJSONRequest(change func(map[string]any)) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var buf bytes.Buffer
			buf.ReadFrom(http.MaxBytesReader(w, r.Body, 1<<20))
			body := buf.Bytes()
			var obj map[string]any
			d := json.NewDecoder(bytes.NewReader(body))
			d.UseNumber()
			if d.Decode(&obj) == nil && obj != nil {
				change(obj)
				body, _ = json.Marshal(obj)
			}
			r.Body = http.NoBody
			if len(body) > 0 {
				r.Body = readCloser{bytes.NewReader(body)}
			}
			r.ContentLength = int64(len(body))
			ref.ServeHTTP(w, r)
		})
	}
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }
