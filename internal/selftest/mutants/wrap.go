package mutants

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// The wrappers the mutants are built from: each changes what the reference
// sees of a request, or what it answers, in one way.

type wrapper = func(ref http.Handler, token string) http.Handler

// handle is the wrapper that serves every request with f. A wrapper that
// keeps state across requests declares it in its own func(ref, token), so
// that each server built from a mutant starts afresh.
func handle(f func(ref http.Handler, token string, w http.ResponseWriter, r *http.Request)) wrapper {
	return func(ref http.Handler, token string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { f(ref, token, w, r) })
	}
}

// object is the JSON object b begins with, numbers as json.Number (nil when
// it begins with no object).
func object(b []byte) map[string]any {
	var obj map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&obj) != nil {
		return nil
	}
	return obj
}

// onErrorCode changes the reference's answers that carry one Error code
// (its codes are listed in reference/errors.go: 1 is bad credentials, 6 a
// body that is not an object).
func onErrorCode(code int, change func(*response)) wrapper {
	marker := []byte(fmt.Sprintf(`{"error":%d,`, code))
	return onResponse(func(_ *http.Request, res *response) {
		if res.status == http.StatusBadRequest && bytes.HasPrefix(res.body, marker) {
			change(res)
		}
	})
}

// delay answers after d, or never when the client gives up first.
func delay(d time.Duration) wrapper {
	return handle(func(ref http.Handler, _ string, w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(d): // a timer no longer referenced is collected (Go 1.23)
			ref.ServeHTTP(w, r)
		case <-r.Context().Done():
		}
	})
}

// onAuthorization lets a request through as if it carried the issued token
// when accept takes the value of its Authorization header ("" when absent).
func onAuthorization(accept func(value, token string) bool) wrapper {
	return handle(func(ref http.Handler, token string, w http.ResponseWriter, r *http.Request) {
		v := r.Header.Get("Authorization")
		if accept(v, token) {
			v = "Bearer " + token
		}
		if v != "" {
			r.Header.Set("Authorization", v)
		}
		ref.ServeHTTP(w, r)
	})
}

func onRawRequest(change func([]byte) []byte) wrapper {
	return handle(func(ref http.Handler, _ string, w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		ref.ServeHTTP(w, withBody(r, change(body)))
	})
}

// asPlant hands the reference, for a body pick picks, a plant of a fresh id
// and the name instead: a store's refusal of an id it keeps never hides the
// defect.
func asPlant(pick func(body []byte) bool, name string) wrapper {
	return onRawRequest(func(body []byte) []byte {
		if pick(body) {
			return []byte(fmt.Sprintf(`{"id":%d,"name":%q}`, freshID(), name))
		}
		return body
	})
}

func withBody(r *http.Request, b []byte) *http.Request {
	r.Body = http.NoBody
	if len(b) > 0 {
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	r.ContentLength = int64(len(b))
	return r
}

// freshID is an id no scenario will have used.
func freshID() int64 { return time.Now().UnixNano() + idCounter.Add(1) }

var idCounter atomic.Int64

// response is a recorded response, open to change before it is sent.
type response struct {
	status int
	header http.Header
	body   []byte
}

func onResponse(change func(*http.Request, *response)) wrapper {
	return handle(func(ref http.Handler, _ string, w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		ref.ServeHTTP(rec, r)
		res := &response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
		change(r, res)
		if len(res.header.Values("Content-Length")) < 2 { // two lengths are content-length-twice's defect
			res.header.Set("Content-Length", strconv.Itoa(len(res.body)))
		}
		maps.Copy(w.Header(), res.header)
		w.WriteHeader(res.status)
		w.Write(res.body)
	})
}

func onStatus(status int, change func(*response)) wrapper {
	return onResponse(func(_ *http.Request, res *response) {
		if res.status == status {
			change(res)
		}
	})
}

func onJSONResponse(status int, change func(map[string]any)) wrapper {
	return onStatus(status, func(res *response) {
		if obj := object(res.body); obj != nil {
			change(obj)
			res.body, _ = json.Marshal(obj)
		}
	})
}

// onJSONRequest changes the JSON object of the request body before the
// reference sees it. Bodies that are not objects, or not valid JSON and
// UTF-8, pass unchanged, and so does a body that change leaves as it was:
// re-encoding it would repair what the reference refuses (data after the
// object, invalid UTF-8), a defect of its own.
func onJSONRequest(change func(map[string]any)) wrapper {
	return handle(func(ref http.Handler, _ string, w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		buf.ReadFrom(http.MaxBytesReader(w, r.Body, 1<<20))
		body := buf.Bytes()
		if obj := object(body); json.Valid(body) && utf8.Valid(body) && obj != nil {
			before, _ := json.Marshal(obj)
			change(obj)
			if after, _ := json.Marshal(obj); !bytes.Equal(after, before) {
				body = after
			}
		}
		ref.ServeHTTP(w, withBody(r, body))
	})
}

// onBodyAnswered lets the reference answer, then changes the answer, with
// the request body at hand.
func onBodyAnswered(change func(body []byte, res *response)) wrapper {
	return handle(func(ref http.Handler, token string, w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		onResponse(func(_ *http.Request, res *response) { change(body, res) })(ref, token).ServeHTTP(w, withBody(r, body))
	})
}

// onInvalidJSON reads a body that is not JSON as a lenient reader would:
// when repair makes JSON of it, the reference gets the repaired body.
// Valid JSON passes unchanged.
func onInvalidJSON(repair func([]byte) []byte) wrapper {
	return onRawRequest(func(body []byte) []byte {
		if fixed := repair(body); !json.Valid(body) && json.Valid(fixed) {
			return fixed
		}
		return body
	})
}

// acceptAuthorization lets a request through as if it carried the issued
// token when its one Authorization header has a value that accept takes.
func acceptAuthorization(accept func(value, token string) bool) wrapper {
	return handle(func(ref http.Handler, token string, w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Values("Authorization"); len(v) == 1 && accept(v[0], token) {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		ref.ServeHTTP(w, r)
	})
}

// acceptContentType lets a request through as if it were declared
// application/json when its one Content-Type header is one accept takes.
func acceptContentType(accept func(string) bool) wrapper {
	return handle(func(ref http.Handler, _ string, w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Values("Content-Type"); len(v) == 1 && accept(v[0]) {
			r.Header.Set("Content-Type", "application/json")
		}
		ref.ServeHTTP(w, r)
	})
}

func respond(w http.ResponseWriter, status int, contentType, body string) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// refusal is the Error record with which a mutant refuses a valid request.
func refusal(message string) string {
	b, _ := json.Marshal(struct {
		Error   int32  `json:"error"`
		Message string `json:"message"`
	}{42, message})
	return string(b) + "\n"
}

// answerWhen answers the requests pick picks with status, contentType and
// body, before the reference sees them.
func answerWhen(pick func(*http.Request) bool, status int, contentType, body string) wrapper {
	return handle(func(ref http.Handler, _ string, w http.ResponseWriter, r *http.Request) {
		if pick(r) {
			respond(w, status, contentType, body)
			return
		}
		ref.ServeHTTP(w, r)
	})
}

// refuseWhen answers the requests pick picks with 400 and an Error record
// of message, before the reference sees them.
func refuseWhen(pick func(*http.Request) bool, message string) wrapper {
	return answerWhen(pick, http.StatusBadRequest, "application/json", refusal(message))
}

// answerBody answers a request whose body, read up to bound bytes, pick
// picks with status, contentType and reply; any other goes on to the
// reference with the body read.
func answerBody(bound int64, pick func(body []byte) bool, status int, contentType, reply string) wrapper {
	return handle(func(ref http.Handler, _ string, w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(io.LimitReader(r.Body, bound))
		if pick(b) {
			respond(w, status, contentType, reply)
			return
		}
		ref.ServeHTTP(w, withBody(r, b))
	})
}

// onRequestRefused answers 400 with an Error record, as the reference
// would, to the JSON object requests that refuse says to refuse.
func onRequestRefused(refuse func(map[string]any) bool) wrapper {
	return answerBody(1<<20, func(b []byte) bool {
		obj := object(b)
		return obj != nil && refuse(obj)
	}, http.StatusBadRequest, "application/json", `{"error":42,"message":"This plant is not accepted here."}`)
}

// plantRecord is the reference's Plant record (reference/server.go).
type plantRecord struct {
	Name string  `json:"name"`
	Tag  *string `json:"tag,omitempty"`
}

// onPlantRecord rewrites the Plant record of the reference's 200 answers:
// write gets the name and the tag that were sent (tag nil when none was)
// and returns the body to answer with.
func onPlantRecord(write func(name string, tag *string) []byte) wrapper {
	return onStatus(http.StatusOK, func(res *response) {
		var p plantRecord
		if json.Unmarshal(res.body, &p) == nil {
			res.body = write(p.Name, p.Tag)
		}
	})
}

// onEcho writes the Plant record as the reference does, with the name, and
// the tag where one was sent, passed through their changes (nil: kept).
func onEcho(name, tag func(string) string) wrapper {
	return onPlantRecord(func(n string, t *string) []byte {
		if name != nil {
			n = name(n)
		}
		if t != nil && tag != nil {
			changed := tag(*t)
			t = &changed
		}
		b, _ := json.Marshal(plantRecord{Name: n, Tag: t})
		return append(b, '\n')
	})
}

func runes(lo, hi rune, to func(rune) rune) func(string) string {
	return func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= lo && r <= hi {
				return to(r)
			}
			return r
		}, s)
	}
}
