package proxy

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
)

// The lean server's reader of request heads (leanserver.go). It reads only
// a strict subset of HTTP/1.1, the requests it can take as net/http would
// without any doubt, and says "not mine" of every other: the connection
// then goes to net/http, which reads the same bytes again from the start.
// So a request outside the subset is served exactly as before, and the
// subset needs no error handling of its own: a malformed request is never
// in it. FuzzLeanHead checks, whatever the bytes, that what this reader
// takes net/http takes too, with the same method, target, header and body.
//
// The subset: a request line "METHOD SP /target SP HTTP/1.1" with a method
// of capital letters (not CONNECT or PRI) and an origin-form target of
// visible ASCII that url.ParseRequestURI takes; then header fields of a
// token name, a colon right after it and a value of visible ASCII, tab or
// obs-text, each line ended by CR LF (no bare LF, no obs-fold); exactly one
// Host, non-empty and of plain host characters; at most one Content-Length
// of decimal digits, without leading zeros, and its body; and none of
// Transfer-Encoding, Trailer, Expect, Upgrade or Pragma, nor a Connection field but
// "close" or "keep-alive".

// leanHead is a request head the lean reader took.
type leanHead struct {
	method, target string
	url            *url.URL
	host           string
	header         http.Header
	contentLength  int64
	close          bool // Connection: close
	size           int  // bytes of the head, its empty line included
}

// headState is what the lean reader made of the bytes it was given.
type headState int

const (
	headMore  headState = iota // a request of the subset so far: more bytes are needed
	headTaken                  // a whole head of the subset
	headOther                  // not of the subset: net/http's
)

// maxMethod bounds a method's length in the subset.
const maxMethod = 16

// readLeanHead reads a request head at the start of b.
func readLeanHead(b []byte) (leanHead, headState) {
	var hd leanHead
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		// net/http would end a head at an empty line of a bare LF; the
		// subset has none, so such bytes are not of it, whole or not.
		if bytes.Contains(b, []byte("\n\n")) || !plausibleStart(b) {
			return hd, headOther
		}
		return hd, headMore
	}
	hd.size = end + 4
	// One string holds the whole head: the target, the names already in
	// canonical form and every value are pieces of it.
	s := string(b[:end+2])

	line, rest, _ := strings.Cut(s, "\r\n")
	var ok bool
	if hd.method, hd.target, hd.url, ok = readRequestLine(line); !ok {
		return hd, headOther
	}

	// The header fields: count them first, to size the map.
	n := strings.Count(rest, "\r\n")
	hd.header = make(http.Header, n)
	slab := make([]string, n)
	hosts, lengths := 0, 0
	for rest != "" {
		line, rest, _ = strings.Cut(rest, "\r\n")
		written, value, ok := readFieldLine(line)
		if !ok {
			return hd, headOther
		}
		name := canonicalName(written)
		switch name {
		case "Host":
			hosts++
			if value == "" || !plainHost(value) {
				return hd, headOther
			}
			hd.host = value
			continue // net/http keeps it in Request.Host, not in the header
		case "Content-Length":
			lengths++
			cl, ok := decimal(value)
			if !ok {
				return hd, headOther
			}
			hd.contentLength = cl
		case "Transfer-Encoding", "Trailer", "Expect", "Upgrade", "Pragma":
			return hd, headOther
		case "Connection":
			switch {
			case asciiEqualFold(value, "close"):
				hd.close = true
			case asciiEqualFold(value, "keep-alive"):
			default:
				return hd, headOther
			}
		}
		if vs := hd.header[name]; vs != nil {
			hd.header[name] = append(vs, value)
		} else {
			slab[0] = value
			hd.header[name] = slab[:1:1]
			slab = slab[1:]
		}
	}
	if hosts != 1 || lengths > 1 {
		return hd, headOther
	}
	return hd, headTaken
}

// plausibleStart reports whether b, an incomplete head, may still become
// one of the subset: every line so far, and the start of the line to come,
// is of the subset's shape. It keeps a connection from waiting for more
// bytes where net/http would have answered already (a malformed line).
func plausibleStart(b []byte) bool {
	for i, c := range b {
		if c == '\n' && (i == 0 || b[i-1] != '\r') {
			return false
		}
	}
	for n, rest := 0, string(b); rest != ""; n++ {
		line, after, whole := strings.Cut(rest, "\r\n")
		if !whole {
			line = strings.TrimSuffix(line, "\r")
		}
		if n == 0 && !plausibleRequestLine(line, whole) || n > 0 && !plausibleField(line, whole) {
			return false
		}
		rest = after
	}
	return true
}

// readRequestLine reads a request line of the subset (without its CR LF):
// "METHOD SP /target SP HTTP/1.1", the method of capital letters and not
// CONNECT or PRI, the target of visible ASCII and one url.ParseRequestURI
// takes, as net/http does.
func readRequestLine(line string) (method, target string, u *url.URL, ok bool) {
	method, rest, _ := strings.Cut(line, " ")
	target, version, _ := strings.Cut(rest, " ")
	if !capitals(method) || method == http.MethodConnect || method == "PRI" ||
		!strings.HasPrefix(target, "/") || !visible(target) || version != "HTTP/1.1" {
		return "", "", nil, false
	}
	u, err := url.ParseRequestURI(target)
	return method, target, u, err == nil
}

// plausibleRequestLine reports whether line is, or (not whole) begins, a
// request line of the subset.
func plausibleRequestLine(line string, whole bool) bool {
	if whole {
		_, _, _, ok := readRequestLine(line)
		return ok
	}
	method, rest, spaced := strings.Cut(line, " ")
	if !spaced {
		return len(method) <= maxMethod && (method == "" || capitals(method))
	}
	target, version, spaced := strings.Cut(rest, " ")
	switch {
	case !capitals(method), target != "" && (target[0] != '/' || !visible(target)):
		return false
	case !spaced:
		return true
	}
	return target != "" && strings.HasPrefix("HTTP/1.1", version)
}

// capitals reports whether m is a method of the subset's shape: 1 to
// maxMethod capital letters.
func capitals(m string) bool {
	if m == "" || len(m) > maxMethod {
		return false
	}
	for i := 0; i < len(m); i++ {
		if m[i] < 'A' || m[i] > 'Z' {
			return false
		}
	}
	return true
}

// visible reports whether t is made of visible ASCII only.
func visible(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i] <= ' ' || t[i] >= 0x7f {
			return false
		}
	}
	return true
}

// readFieldLine reads a header field line of the subset (without its CR LF): a
// token name, the colon right after it, and a value of visible ASCII, tab
// or obs-text, which it returns with the white space at its edges trimmed.
func readFieldLine(line string) (name, value string, ok bool) {
	name, value, colon := strings.Cut(line, ":")
	if !colon || !validFieldName(name) {
		return "", "", false
	}
	for i := 0; i < len(value); i++ {
		if c := value[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return "", "", false
		}
	}
	return name, trimOWS(value), true
}

// plausibleField reports whether line is, or (not whole) begins, a header
// field of the subset.
func plausibleField(line string, whole bool) bool {
	if _, _, ok := readFieldLine(line); ok {
		return true
	}
	return !whole && !strings.Contains(line, ":") && (line == "" || validFieldName(line))
}

// commonNames are the canonical names of the fields most requests carry:
// a name written otherwise is found here without an allocation.
var commonNames = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{
		"Accept", "Accept-Charset", "Accept-Encoding", "Accept-Language", "Authorization",
		"Cache-Control", "Connection", "Content-Length", "Content-Type", "Cookie", "Host",
		"Origin", "Referer", "User-Agent", "X-Api-Key", "X-Forwarded-For", "X-Request-Id",
		"Traceparent", "Tracestate",
	} {
		m[k] = k
	}
	return m
}()

// canonicalName is name as net/http keys it: its first letter and every
// letter after a hyphen in upper case, the others in lower case. name is
// a token.
func canonicalName(name string) string {
	canonical := true
	upper := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if (upper && c >= 'a' && c <= 'z') || (!upper && c >= 'A' && c <= 'Z') {
			canonical = false
			break
		}
		upper = c == '-'
	}
	if canonical {
		return name
	}
	var stack [64]byte
	buf := stack[:0]
	if len(name) > len(stack) {
		buf = make([]byte, 0, len(name))
	}
	upper = true
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case upper && c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		case !upper && c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		buf = append(buf, c)
		upper = c == '-'
	}
	if k, ok := commonNames[string(buf)]; ok {
		return k
	}
	return string(buf)
}

// trimOWS trims spaces and tabs from the edges of v.
func trimOWS(v string) string {
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t') {
		v = v[1:]
	}
	for len(v) > 0 && (v[len(v)-1] == ' ' || v[len(v)-1] == '\t') {
		v = v[:len(v)-1]
	}
	return v
}

// plainHost reports whether h is made of the characters of a host name, an
// IPv4 or bracketed IPv6 address, and a port: net/http takes every such
// value (and more).
func plainHost(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == ':' || c == '[' || c == ']') {
			return false
		}
	}
	return true
}

// decimal reads a Content-Length of the subset: 1 to 9 decimal digits,
// without leading zeros.
func decimal(v string) (int64, bool) {
	if v == "" || len(v) > 9 || (v[0] == '0' && len(v) > 1) {
		return 0, false
	}
	var n int64
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, false
		}
		n = n*10 + int64(v[i]-'0')
	}
	return n, true
}

// asciiEqualFold compares s and t without regard to ASCII case.
func asciiEqualFold(s, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := 0; i < len(s); i++ {
		a, b := s[i], t[i]
		if a >= 'A' && a <= 'Z' {
			a += 'a' - 'A'
		}
		if b >= 'A' && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}
