package judge

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/client"
	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// PlantRecord and NoID judge a body's bytes, as the judge judges the
// answer it has read.
func PlantRecord(body []byte, redact func(string) string) Judgement {
	obj, ok := object(body)
	return plantRecordOf(obj, ok, redact)
}

func NoID(body []byte, redact func(string) string) Judgement {
	obj, ok := object(body)
	j, _ := noID(&exam{Exchange: &exchange.Exchange{Status: http.StatusOK, RespBody: body}, redact: redact, respWhole: true, answer: obj, isObject: ok})
	return j
}

func TestRecords(t *testing.T) {
	redact := func(s string) string { return strings.ReplaceAll(s, "s3cret-token", "<redacted>") }
	tests := []struct {
		name   string
		judge  func([]byte, func(string) string) Judgement
		body   string
		actual string // a part of Actual; "" when the body keeps the rule
	}{
		{"a Plant record", PlantRecord, `{"name":"Fern","tag":"green"}`, ""},
		{"a Plant record without tag", PlantRecord, `{"name":""}`, ""},
		{"a Plant record with a null tag", PlantRecord, `{"name":"a","tag":null}`, "tag is the JSON value null"},
		{"a name that is a number", PlantRecord, `{"name":42}`, "name is the JSON value 42"},
		{"no name", PlantRecord, `{"tag":"x"}`, "name is missing"},
		{"trailing data is not a record", PlantRecord, `{"name":"a"}{"name":"b"}`, "not a JSON object"},
		{"an array", PlantRecord, `[{"name":"a"}]`, "not a JSON object"},
		{"the token in a field is hidden", PlantRecord, `{"name":{"t":"s3cret-token"}}`, `<redacted>`},
		{"no id", NoID, `{"name":"a"}`, ""},
		{"an id", NoID, `{"name":"a","id":7}`, "id is the JSON value 7"},
		{"an Error record", ErrorRecord, `{"error":400,"message":"no"}`, ""},
		{"an Error code written 4.0e2", ErrorRecord, `{"error":4.0e2,"message":""}`, ""},
		{"an Error code beyond int32", ErrorRecord, `{"error":2147483648,"message":"no"}`, "error is"},
		{"an Error code as a string", ErrorRecord, `{"error":"1","message":"no"}`, "error is"},
		{"an Error code with a fraction", ErrorRecord, `{"error":1.5,"message":"no"}`, "error is"},
		{"no message", ErrorRecord, `{"error":1}`, "message is missing"},
		{"a null message", ErrorRecord, `{"error":1,"message":null}`, "message is"},
		{"text", ErrorRecord, `Bad Request`, "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := tt.judge([]byte(tt.body), redact)
			if tt.actual == "" {
				if !j.OK() {
					t.Errorf("judged %q broken: %s", tt.body, j.Actual)
				}
				return
			}
			if j.OK() || !strings.Contains(j.Actual, tt.actual) || strings.Contains(j.Actual, "s3cret") {
				t.Errorf("Actual = %q, want it to say %q", j.Actual, tt.actual)
			}
		})
	}
}

func TestMediaTypeJSON(t *testing.T) {
	tests := []struct {
		cts    []string
		actual string
	}{
		{[]string{"application/json"}, ""},
		{[]string{"Application/JSON; Charset=UTF-8"}, ""},
		{[]string{"application/json; charset=utf-8"}, ""},
		{nil, "no Content-Type header"},
		{[]string{""}, "no Content-Type header"},
		{[]string{"text/json"}, `Content-Type "text/json"`},
		{[]string{"application/json-patch+json"}, "json-patch"},
		{[]string{"application/json, text/plain"}, "Content-Type"},
		// A singleton field repeated: a middleware's own after the
		// handler's, or the same one twice.
		{[]string{"application/json", "text/plain"}, `2 Content-Type fields ("application/json", "text/plain")`},
		{[]string{"application/json", "application/json"}, "2 Content-Type fields"},
		{[]string{"application/json", "a", "b", "c", "d"}, `5 Content-Type fields ("application/json", "a", "b", "c")`},
	}
	for _, tt := range tests {
		j := MediaTypeJSON(tt.cts, func(s string) string { return s })
		if (tt.actual == "") != j.OK() || !strings.Contains(j.Actual, tt.actual) {
			t.Errorf("MediaTypeJSON(%q) = %q, want %q", tt.cts, j.Actual, tt.actual)
		}
	}
	if j := MediaTypeJSON([]string{"application/json", "s3cret"}, func(s string) string { return strings.ReplaceAll(s, "s3cret", "<redacted>") }); strings.Contains(j.Actual, "s3cret") {
		t.Errorf("a repeated field is quoted unredacted: %q", j.Actual)
	}
}

func TestBrokenFraming(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		broken bool
		rule   rules.RuleID
	}{
		{"two lengths", fmt.Errorf("Post %q: %w", "http://x/plants", errors.New(`net/http: HTTP/1.x transport connection broken: http: message cannot contain multiple Content-Length headers; got ["12" "13"]`)), true, rules.ResponseDocumented},
		{"not a number", errors.New(`bad Content-Length "12, 13"`), true, rules.ResponseDocumented},
		{"reset", errors.New("read tcp: connection reset by peer"), false, rules.ResponseTimely},
		{"none", nil, false, rules.ResponseTimely},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, got := BrokenFraming(tt.err); got != tt.broken {
				t.Errorf("BrokenFraming = %v, want %v", got, tt.broken)
			}
			rule, j := Answered(tt.err, 200, time.Second, 1<<20)
			if rule != tt.rule || (tt.err != nil) == j.OK() {
				t.Errorf("Answered = %s %+v, want %s, failed %v", rule, j, tt.rule, tt.err != nil)
			}
		})
	}
}

func TestDocumented(t *testing.T) {
	if j := Documented(nil); !j.OK() {
		t.Errorf("no violations judged broken: %s", j.Actual)
	}
	j := Documented([]spec.Violation{{Message: "status 201 is not documented", SpecLine: 36}})
	if j.OK() || len(j.Details) != 1 || !strings.Contains(j.Details[0], "openapi.yaml line 36") {
		t.Errorf("Documented = %+v", j)
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestAnswered(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int // 0: no status line came
		rule   rules.RuleID
		actual string
	}{
		{"an answer", nil, 200, rules.ResponseTimely, ""},
		{"a body past the bound", fmt.Errorf("read: %w", ErrBodyTooLarge), 200, rules.ResponseDocumented, "a body longer than 1024 bytes"},
		{"a time-out", fmt.Errorf("get: %w", timeoutErr{}), 0, rules.ResponseTimely, "no complete answer within 2s"},
		{"an error of no known kind", errors.New("malformed HTTP response"), 0, rules.ResponseTimely, "no answer: malformed HTTP response"},
		{"a reset", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, 0, rules.ResponseTimely, "the connection was reset: read tcp: read: connection reset by peer"},
		{"a close", fmt.Errorf("post: %w", io.EOF), 0, rules.ResponseTimely, "the connection was closed with no answer: post: EOF"},
		{"a closed idle connection", errors.New(`Post "http://x/plants": http: server closed idle connection`), 0, rules.ResponseTimely, "the connection was closed with no answer"},
		{"a close met while the request was written", &url.Error{Op: "Post", URL: "http://x/plants", Err: &net.OpError{Op: "write", Net: "tcp", Err: net.ErrClosed}}, 0, rules.ResponseTimely, "the connection was closed with no answer: Post \"http://x/plants\": write tcp: use of closed network connection"},
		{"a close within the body", io.ErrUnexpectedEOF, 200, rules.ResponseTimely, "status 200, then the connection ended before the end of its body: unexpected EOF"},
	}
	for _, tt := range tests {
		rule, j := Answered(tt.err, tt.status, 2*time.Second, 1024)
		if rule != tt.rule || j.Actual != "" && !strings.Contains(j.Actual, tt.actual) || (tt.actual == "") != j.OK() {
			t.Errorf("%s: Answered = %s %q, want %s %q", tt.name, rule, j.Actual, tt.rule, tt.actual)
		}
		// A connection that ended is not a time limit.
		if client.FaultOf(tt.err) != client.NoFault && strings.Contains(j.Expected+j.Actual, "within") {
			t.Errorf("%s: Answered = %q, %q: a connection fault told as a time limit", tt.name, j.Expected, j.Actual)
		}
	}
}

// TestAdmitsJSON: an Accept admits application/json unless it plainly
// leaves it out; the most specific range that holds it decides.
func TestAdmitsJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		accept []string // nil: no Accept field
		want   bool
	}{
		{nil, true},
		{[]string{""}, true},
		{[]string{"application/json"}, true},
		{[]string{"Application/JSON"}, true},
		{[]string{"application/json;q=0.9"}, true},
		{[]string{"application/json; charset=utf-8"}, true},
		{[]string{"text/html, application/json"}, true},
		{[]string{"text/html", "application/json"}, true},
		{[]string{"application/*"}, true},
		{[]string{"*/*;q=0.1"}, true},
		{[]string{"text/html, */*;q=0.1"}, true},
		{[]string{"text/html;;"}, true}, // does not parse: not plainly without JSON
		{[]string{"text/html"}, false},
		{[]string{"text/html, application/xml"}, false},
		{[]string{"application/json;q=0"}, false},
		{[]string{"*/*, application/json;q=0"}, false},
		{[]string{"application/*;q=0, */*"}, false},
		{[]string{"text/*"}, false},
	} {
		h := http.Header{}
		if tc.accept != nil {
			h["Accept"] = tc.accept
		}
		if got := AdmitsJSON(h); got != tc.want {
			t.Errorf("Accept %q: admits JSON %v, want %v", tc.accept, got, tc.want)
		}
	}
}
