package har

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plantcheck/plantcheck/internal/exchange"
)

// ErrNotHAR: the file is not a HAR file (not JSON, or no log.entries).
var ErrNotHAR = errors.New("not a HAR file")

// ErrTooLarge: the file is larger than the bound read.
var ErrTooLarge = errors.New("the file is too large")

// Read reads the HAR file r, at most limit bytes of it (past it,
// ErrTooLarge), and calls fn with each entry in order, holding one
// entry at a time. An error says where the file stopped being HAR.
func Read(r io.Reader, limit int64, fn func(Entry) error) error {
	lr := &limited{r: r, left: limit}
	dec := json.NewDecoder(lr)
	// bad says where the file stopped being HAR, or that it was too large.
	bad := func(where string, err error) error {
		if lr.over {
			return fmt.Errorf("%w: more than %d bytes (the bound on a recording read)", ErrTooLarge, limit)
		}
		return fmt.Errorf("%w: %s%v", ErrNotHAR, where, err)
	}
	found := false
	var keys []string
	skip := func(where string) error {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return bad(where, err)
		}
		return nil
	}
	err := object(dec, "", bad, func(k string) error {
		keys = append(keys, k)
		if k != "log" {
			return skip("")
		}
		return object(dec, "log: ", bad, func(k string) error {
			if k != "entries" {
				return skip("log: ")
			}
			if err := delim(dec, '['); err != nil {
				return bad("log.entries: ", err)
			}
			found = true
			for i := 0; dec.More(); i++ {
				var e Entry
				if err := dec.Decode(&e); err != nil {
					return bad(fmt.Sprintf("entry %d: ", i+1), err)
				}
				if err := fn(e); err != nil {
					return err
				}
			}
			if err := delim(dec, ']'); err != nil {
				return bad("log.entries: ", err)
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	switch {
	case found:
		return nil
	case slices.Contains(keys, "rule") || slices.Contains(keys, "summary"):
		return fmt.Errorf("%w: it reads as plantcheck proxy's event log (--events), whose lines hold no whole exchanges to judge again; record with --har", ErrNotHAR)
	}
	return fmt.Errorf("%w: no log.entries", ErrNotHAR)
}

// delim reads the next token, which must be d.
func delim(dec *json.Decoder, d json.Delim) error {
	t, err := dec.Token()
	if err == io.EOF {
		return fmt.Errorf("the file ends where %q is expected", string(d))
	}
	if err != nil {
		return err
	}
	if t != d {
		return fmt.Errorf("%s where %q is expected (offset %d)", describe(t), string(d), dec.InputOffset())
	}
	return nil
}

func describe(t json.Token) string {
	switch t := t.(type) {
	case json.Delim:
		return strconv.Quote(string(t))
	case string:
		return "a string"
	case nil:
		return "null"
	}
	return "a value"
}

// object reads a JSON object, calling fn with each key for it to read the
// value; where says in bad's error where the object is.
func object(dec *json.Decoder, where string, bad func(string, error) error, fn func(key string) error) error {
	if err := delim(dec, '{'); err != nil {
		return bad(where, err)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return bad(where, err)
		}
		k, _ := key.(string)
		if err := fn(k); err != nil {
			return err
		}
	}
	if err := delim(dec, '}'); err != nil {
		return bad(where, err)
	}
	return nil
}

// limited reads at most left bytes, then fails, saying it went over.
type limited struct {
	r    io.Reader
	left int64
	over bool
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left <= 0 {
		l.over = true
		return 0, ErrTooLarge
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// Exchange reads the entry as an exchange, each body with why it is not
// whole; an error says why it cannot be read as one.
func (e Entry) Exchange() (Record, error) {
	x := Record{Exchange: exchange.Exchange{Method: e.Request.Method, Status: e.Response.Status}}
	u, err := url.Parse(e.Request.URL)
	if err != nil || !u.IsAbs() {
		return x, errors.New("its request URL is not an absolute URL")
	}
	x.URL, x.Comment = u.String(), e.Comment
	x.Started, _ = time.Parse(time.RFC3339Nano, e.StartedDateTime)
	if e.Time > 0 {
		x.Duration = time.Duration(e.Time * float64(time.Millisecond))
	}
	x.Header, x.Redacted = header(e.Request.Headers, x.Redacted)
	x.RespHeader, x.Redacted = header(e.Response.Headers, x.Redacted)
	rq, rs, p := e.Request, e.Response, &PostData{}
	if rq.PostData != nil {
		p = rq.PostData
	}
	x.Body, x.BodyTotal, x.BodyIncomplete = recorded("request body", p.Text, p.Encoding, p.Comment+rq.Comment, rq.BodySize,
		rq.BodySize == 0 || rq.BodySize < 0 && x.Header.Get("Content-Length") == "0")
	if c := rs.Content; x.Status >= 100 {
		x.RespBody, x.RespTotal, x.RespIncomplete = recorded("response body", c.Text, c.Encoding, c.Comment+rs.Comment, c.Size,
			c.Size == 0 && rs.BodySize <= 0 || c.Size < 0 && x.RespHeader.Get("Content-Length") == "0")
	}
	return x, nil
}

// header reads a list of headers, and notes the names of those the
// recording redacted.
func header(nvs []NameValue, redacted []string) (http.Header, []string) {
	h := http.Header{}
	for _, nv := range nvs {
		if nv.Name == "" || strings.HasPrefix(nv.Name, ":") {
			continue // HTTP/2's pseudo headers
		}
		k := http.CanonicalHeaderKey(nv.Name)
		h[k] = append(h[k], nv.Value)
		// "Bearer <redacted>" keeps what the rules read: not noted.
		if Redacted(nv.Value) {
			redacted = append(redacted, k)
		}
	}
	return h, redacted
}

// Redacted reports whether a value is what a recorder writes for a value
// it hid (<redacted>, REDACTED, ***; not plantcheck's <token> nor
// <credential>, which the rules read as a credential without a scheme).
func Redacted(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	switch v {
	case "<redacted>", "redacted", "[redacted]", "(redacted)", "<hidden>", "[hidden]",
		"hidden", "[filtered]", "<filtered>", "filtered", "<secret>", "[secret]", "<removed>", "[removed]":
		return true
	}
	return len(v) >= 3 && strings.Trim(v, "*") == ""
}

// cut reports whether a comment says the body was cut.
func cut(comment string) bool {
	c := strings.ToLower(comment)
	return strings.Contains(c, "truncat") || strings.Contains(c, "body cut") || strings.Contains(c, " cut ")
}

// decode reads a recorded text in its encoding.
func decode(text, encoding string) ([]byte, error) {
	switch strings.ToLower(encoding) {
	case "":
		return []byte(text), nil
	case "base64":
		b, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			b, err = base64.RawStdEncoding.DecodeString(text)
		}
		return b, err
	}
	return nil, fmt.Errorf("an encoding %q", encoding)
}

// recorded reads a body, text (nil: none; empty says it was empty) of
// size bytes, and why it is not whole ("" when it is).
func recorded(what string, text *string, encoding, comment string, size int64, empty bool) (body []byte, total int64, why string) {
	switch {
	case text != nil:
	case empty:
		return nil, 0, ""
	case size > 0:
		return nil, size, fmt.Sprintf("%s not in the recording (%d bytes sent)", what, size)
	default:
		return nil, -1, what + " not in the recording"
	}
	b, err := decode(*text, encoding)
	if err != nil {
		return nil, size, fmt.Sprintf("%s not read: the recording gives it in %v", what, err)
	}
	n := int64(len(b))
	switch {
	case size > n:
		return b, size, fmt.Sprintf("%s cut by the recording (%d of %d bytes)", what, n, size)
	case cut(comment):
		return b, n, what + " cut by the recording (its comment says so)"
	case size > 0 && size < n:
		// A recorder that decoded the bytes lossily, as U+FFFD.
		return b, size, fmt.Sprintf("%s not as sent: the recording holds %d bytes of a %d-byte body", what, n, size)
	}
	return b, n, ""
}
