package mutants

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// The wrappers the mutants are built from: each changes what the reference
// sees of a request, or what it answers, in one way.

// onRequestRefused answers 400 with an Error record, as the reference
// would, to the JSON object requests that refuse says to refuse.
func onRequestRefused(refuse func(map[string]any) bool) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			var obj map[string]any
			d := json.NewDecoder(bytes.NewReader(body))
			d.UseNumber()
			if d.Decode(&obj) == nil && obj != nil && refuse(obj) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"error":42,"message":"This plant is not accepted here."}`)
				return
			}
			ref.ServeHTTP(w, withBody(r, body))
		})
	}
}

// onErrorCode changes the reference's answers that carry one Error code
// (its codes are listed in reference/errors.go: 1 is bad credentials, 6 a
// body that is not an object).
func onErrorCode(code int, change func(*response)) func(http.Handler, string) http.Handler {
	marker := []byte(fmt.Sprintf(`"error":%d,`, code))
	return onResponse(func(_ *http.Request, res *response) {
		if res.status == http.StatusBadRequest && bytes.HasPrefix(res.body, append([]byte("{"), marker...)) {
			change(res)
		}
	})
}

// delay answers after d, or never when the client gives up first.
func delay(d time.Duration) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
			case <-r.Context().Done():
				return
			}
			ref.ServeHTTP(w, r)
		})
	}
}

// onAuthorization rewrites the Authorization header (its value, or "" when
// absent) before the reference sees it.
func onAuthorization(change func(value, token string) string) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, token string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if v := change(r.Header.Get("Authorization"), token); v != "" {
				r.Header.Set("Authorization", v)
			}
			ref.ServeHTTP(w, r)
		})
	}
}

// onRawRequest rewrites the request body, whatever it holds.
func onRawRequest(change func([]byte) []byte) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			ref.ServeHTTP(w, withBody(r, change(body)))
		})
	}
}

// peekID reads the request body and returns it with its id, if any.
func peekID(r *http.Request) ([]byte, any) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var obj map[string]any
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if d.Decode(&obj) != nil {
		return body, nil
	}
	return body, obj["id"]
}

// withBody gives r the body b.
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
// reference sees it. Bodies that are not objects, or not valid JSON and
// UTF-8, pass unchanged, and so does a body that change leaves as it was:
// re-encoding it would repair what the reference refuses (data after the
// object, invalid UTF-8), a defect of its own.
func onJSONRequest(change func(map[string]any)) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var buf bytes.Buffer
			buf.ReadFrom(http.MaxBytesReader(w, r.Body, 1<<20))
			body := buf.Bytes()
			var obj map[string]any
			d := json.NewDecoder(bytes.NewReader(body))
			d.UseNumber()
			if json.Valid(body) && utf8.Valid(body) && d.Decode(&obj) == nil && obj != nil {
				before, _ := json.Marshal(obj)
				change(obj)
				if after, _ := json.Marshal(obj); !bytes.Equal(after, before) {
					body = after
				}
			}
			ref.ServeHTTP(w, withBody(r, body))
		})
	}
}

// onBodyAnswered lets the reference answer, then changes the answer, with
// the request body at hand.
func onBodyAnswered(change func(body []byte, res *response)) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, token string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			onResponse(func(_ *http.Request, res *response) { change(body, res) })(ref, token).ServeHTTP(w, withBody(r, body))
		})
	}
}

// onInvalidJSON reads a body that is not JSON as a lenient reader would:
// when repair makes JSON of it, the reference gets the repaired body.
// Valid JSON passes unchanged.
func onInvalidJSON(repair func([]byte) []byte) func(http.Handler, string) http.Handler {
	return onRawRequest(func(body []byte) []byte {
		if json.Valid(body) {
			return body
		}
		if fixed := repair(body); json.Valid(fixed) {
			return fixed
		}
		return body
	})
}

// acceptAuthorization lets a request through as if it carried the issued
// token when its one Authorization header has a value that accept takes.
func acceptAuthorization(accept func(value, token string) bool) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, token string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if v := r.Header.Values("Authorization"); len(v) == 1 && accept(v[0], token) {
				r.Header.Set("Authorization", "Bearer "+token)
			}
			ref.ServeHTTP(w, r)
		})
	}
}

// acceptBearer lets a request through as if it carried the issued token
// when its Authorization header is Bearer (in any case, as the reference
// takes it), a space and a credential that accept takes.
func acceptBearer(accept func(credential, token string) bool) func(http.Handler, string) http.Handler {
	return acceptAuthorization(func(value, token string) bool {
		scheme, credential, ok := strings.Cut(value, " ")
		return ok && strings.EqualFold(scheme, "Bearer") && accept(credential, token)
	})
}

// acceptContentType lets a request through as if it were declared
// application/json when its one Content-Type header is one accept takes.
func acceptContentType(accept func(string) bool) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if v := r.Header.Values("Content-Type"); len(v) == 1 && accept(v[0]) {
				r.Header.Set("Content-Type", "application/json")
			}
			ref.ServeHTTP(w, r)
		})
	}
}

// acceptsJSON reports whether an Accept header names application/json.
func acceptsJSON(h http.Header) bool {
	for _, v := range h.Values("Accept") {
		for _, mediaRange := range strings.Split(v, ",") {
			if mt, _, err := mime.ParseMediaType(mediaRange); err == nil && mt == "application/json" {
				return true
			}
		}
	}
	return false
}

// fixedLayout is compact JSON with id first, then name, then the tag.
var fixedLayout = regexp.MustCompile(`^\{"id":(-?\d+),"name":"((?:[^"\\]|\\.)*)"(?:,"tag":"((?:[^"\\]|\\.)*)")?\}$`)

// refusal is the Error record with which a mutant refuses a valid request.
func refusal(message string) []byte {
	b, _ := json.Marshal(struct {
		Error   int32  `json:"error"`
		Message string `json:"message"`
	}{42, message})
	return append(b, '\n')
}

// refuse turns an answer into a refusal: 400 and an Error record.
func refuse(res *response, message string) {
	res.status, res.body = http.StatusBadRequest, refusal(message)
	res.header.Set("Content-Type", "application/json")
}

// refuseWhen answers the requests refuse picks with 400 and an Error
// record of message, before the reference sees them.
func refuseWhen(refuse func(*http.Request) bool, message string) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if refuse(r) {
				writeRefusal(w, message)
				return
			}
			ref.ServeHTTP(w, r)
		})
	}
}

// writeRefusal answers with a refusal: 400 and an Error record.
func writeRefusal(w http.ResponseWriter, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	w.Write(refusal(message))
}

// plantRecord is the reference's Plant record (reference/server.go).
type plantRecord struct {
	Name string  `json:"name"`
	Tag  *string `json:"tag,omitempty"`
}

// encodePlant writes a Plant record as the reference does.
func encodePlant(name string, tag *string) []byte {
	b, _ := json.Marshal(plantRecord{Name: name, Tag: tag})
	return append(b, '\n')
}

// onPlantRecord rewrites the Plant record of the reference's 200 answers:
// write gets the name and the tag that were sent (tag nil when none was)
// and returns the body to answer with.
func onPlantRecord(write func(name string, tag *string) []byte) func(http.Handler, string) http.Handler {
	return onResponse(func(_ *http.Request, res *response) {
		var p plantRecord
		if res.status == http.StatusOK && json.Unmarshal(res.body, &p) == nil {
			res.body = write(p.Name, p.Tag)
		}
	})
}

// onPlantStrings passes the name and the tag, where one was sent, of the
// Plant record through change.
func onPlantStrings(change func(string) string) func(http.Handler, string) http.Handler {
	return onPlantRecord(func(name string, tag *string) []byte {
		if tag != nil {
			changed := change(*tag)
			tag = &changed
		}
		return encodePlant(change(name), tag)
	})
}

// typedScalar is s as an implicitly typed reader takes it: true, false and
// null are literals, text that strconv.ParseFloat reads as a finite number
// is that number, and anything else a string.
func typedScalar(s string) []byte {
	if s == "true" || s == "false" || s == "null" {
		return []byte(s)
	}
	var b []byte
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		b, _ = json.Marshal(f)
	} else {
		b, _ = json.Marshal(s)
	}
	return b
}
