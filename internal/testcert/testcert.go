// Package testcert makes certificates for tests of https on loopback: a
// certificate authority made for the test, a server certificate for
// 127.0.0.1 and a client certificate it signed, written as PEM files (as
// --ca-cert, --cert and --key name them), and the server's TLS
// configuration, which asks for a client certificate of that authority;
// Serve serves a handler with it.
package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Set is what New made.
type Set struct {
	// CAFile is the authority's certificate; CertFile and KeyFile the
	// client's certificate and key.
	CAFile, CertFile, KeyFile string
	// Server serves 127.0.0.1 and requires a client certificate the
	// authority signed.
	Server *tls.Config
}

// New makes a Set in dir; it fails t on any error.
func New(t testing.TB, dir string) *Set {
	t.Helper()
	caKey, caCert := make1(t, "plantcheck test authority", nil, nil, func(c *x509.Certificate) {
		c.IsCA, c.KeyUsage = true, x509.KeyUsageCertSign|x509.KeyUsageDigitalSignature
	})
	serverKey, serverCert := make1(t, "127.0.0.1", caCert, caKey, func(c *x509.Certificate) {
		c.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
		c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	})
	clientKey, clientCert := make1(t, "plantcheck test client", caCert, caKey, func(c *x509.Certificate) {
		c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	})
	s := &Set{CAFile: filepath.Join(dir, "ca.pem"), CertFile: filepath.Join(dir, "client.pem"), KeyFile: filepath.Join(dir, "client.key")}
	keyDER := must(x509.MarshalECPrivateKey(clientKey))(t)
	for file, block := range map[string]*pem.Block{
		s.CAFile:   {Type: "CERTIFICATE", Bytes: caCert.Raw},
		s.CertFile: {Type: "CERTIFICATE", Bytes: clientCert.Raw},
		s.KeyFile:  {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(file, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	s.Server = &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{serverCert.Raw}, PrivateKey: serverKey, Leaf: serverCert}},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    pool,
		MinVersion:   tls.VersionTLS12,
	}
	return s
}

// Serve serves h over https on a loopback port, with s.Server, until the
// test ends; it returns the base URL.
func (s *Set) Serve(t testing.TB, h http.Handler) string {
	t.Helper()
	ln := must(tls.Listen("tcp", "127.0.0.1:0", s.Server))(t)
	srv := &http.Server{Handler: h, ErrorLog: log.New(io.Discard, "", 0)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "https://" + ln.Addr().String()
}

// make1 makes a key and a certificate for name, signed by parent's key
// (itself when parent is nil), adjusted by set.
func make1(t testing.TB, name string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, set func(*x509.Certificate)) (*ecdsa.PrivateKey, *x509.Certificate) {
	t.Helper()
	key := must(ecdsa.GenerateKey(elliptic.P256(), rand.Reader))(t)
	tmpl := &x509.Certificate{
		SerialNumber: must(rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62)))(t),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, BasicConstraintsValid: true,
	}
	set(tmpl)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der := must(x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey))(t)
	return key, must(x509.ParseCertificate(der))(t)
}

// must is v, or a failure of the test on err: must(f())(t).
func must[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}
