// Package tlsconf builds the TLS configuration with which plantcheck
// reaches an https service, from the files its flags name: certificate
// authorities to trust beside the system's (--ca-cert), and a client
// certificate with its key for a service that asks for one (--cert,
// --key); and the address a URL names. `plantcheck run` and `plantcheck
// proxy` share it.
package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
)

// Client returns the TLS configuration of a client: the system's
// certificate authorities and those of the PEM file caCert (none when ""),
// and the client certificate of the PEM files cert and key (both or
// neither). An error names the flag at fault.
func Client(caCert, cert, key string) (*tls.Config, error) {
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if caCert != "" {
		pem, err := os.ReadFile(caCert)
		if err != nil {
			return nil, fmt.Errorf("CA certificate: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s holds no PEM certificate", caCert)
		}
		conf.RootCAs = pool
	}
	switch {
	case cert != "" && key != "":
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("client certificate (--cert, --key): %w", err)
		}
		conf.Certificates = []tls.Certificate{pair}
	case cert != "" || key != "":
		return nil, errors.New("--cert and --key go together")
	}
	return conf, nil
}

// Addr is the address (host:port) a URL names: its port, or its scheme's
// (http, https, socks5) when it has none.
func Addr(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443", "socks5": "1080"}[u.Scheme])
}
