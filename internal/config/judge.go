package config

import (
	"flag"
	"net/url"
)

// MaxFile bounds the bytes of a HAR file read (judge --max-file): a larger
// one is refused. Package har reads it here.
const MaxFile = 256 << 20

// Judge is the configuration of plantcheck judge: recorded traffic judged
// as the proxy judges live traffic. Each setting is its flag's
// (DefineJudge).
type Judge struct {
	// Files are the HAR files, judged in order into one verdict.
	Files []string
	// Base is the service's base URL, parsed (nil: any host, no base
	// path); BaseText as given.
	Base                  *url.URL
	BaseText              string
	ReportDir             string
	Strict, StrictClients bool
	MaxJudge, MaxFile     int64
	// AuthStripped: the recorder stripped the Authorization headers.
	AuthStripped bool
}

// Validate checks the settings, and parses the base URL.
func (j *Judge) Validate() error {
	switch {
	case len(j.Files) == 0:
		return Errorf("no recording: give one or more HAR files")
	case j.MaxJudge <= 0:
		return Errorf("--max-judge must be positive")
	case j.MaxFile <= 0:
		return Errorf("--max-file must be positive")
	}
	if j.BaseText != "" {
		u, err := url.Parse(j.BaseText)
		switch {
		case err != nil || u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https":
			return Errorf("--base-url: give an http or https URL (https://plants.example.com/v1), or a base path (/v1)")
		case u.User != nil || u.RawQuery != "" || u.Fragment != "":
			return Errorf("--base-url: the URL must not carry credentials, a query or a fragment")
		}
		j.Base = u
	}
	return nil
}

// DefineJudge defines judge's flags on fs, into the Judge returned.
func DefineJudge(fs *flag.FlagSet) *Judge {
	j := &Judge{}
	fs.StringVar(&j.BaseText, "base-url", "", "the service's base URL (or base path, /v1): POST <base-url>/plants is judged, other exchanges counted apart (default: any host, POST /plants)")
	verdictFlags(fs, &j.ReportDir, &j.Strict, &j.StrictClients)
	fs.Int64Var(&j.MaxJudge, "max-judge", DefaultMaxJudge, "bytes of each body judged; a longer body is not judged")
	fs.Int64Var(&j.MaxFile, "max-file", MaxFile, "bytes of each file read at most; a larger file is refused")
	fs.BoolVar(&j.AuthStripped, "auth-stripped", false, "the recorder stripped the Authorization headers (Chrome's sanitized export): read a request without one as carrying a Bearer credential, and say so")
	return j
}
