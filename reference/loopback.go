package reference

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
)

// Loopback serves h on a random port of 127.0.0.1, with the limits of
// HTTPServer, until stop is called: the one way plantcheck starts a server
// of its own (the reference to certify, a mutant to catch, a test's target).
func Loopback(h http.Handler) (baseURL string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listen on loopback: %w", err)
	}
	hs := limited(h)
	go hs.Serve(ln)
	// The run it served is over: requests still held (a mutant that never
	// answers) are cut, not waited for.
	return "http://" + ln.Addr().String(), func() { hs.Close() }, nil
}

// RandomToken returns a random token of 2n characters (n >= 2) in
// base64url, the alphabet of most real tokens, with a '-' and a '_' in it,
// so that every near miss of a token (base64's other alphabet among them)
// can be made from it.
func RandomToken(n int) string { return TokenFrom(rand.Reader, n) }

// TokenFrom is RandomToken with its bytes read from r: a seeded generator
// gives the same token again (the self-test's rerun of one seed).
func TokenFrom(r io.Reader, n int) string {
	b := make([]byte, 2*n)
	io.ReadFull(r, b)
	s := []byte(base64.RawURLEncoding.EncodeToString(b))[:2*n]
	s[n/2], s[n] = '-', '_'
	return string(s)
}

// StartLoopback starts the reference with a random token of 80 characters
// (long enough for every credential near it a suite may derive, a change
// past bcrypt's 72 bytes included) on a loopback port, and returns its base
// URL and token.
func StartLoopback() (baseURL, token string, stop func(), err error) {
	token = RandomToken(40)
	srv, err := New(Config{Token: token})
	if err != nil {
		return "", "", nil, err
	}
	baseURL, stop, err = Loopback(srv)
	return baseURL, token, stop, err
}
