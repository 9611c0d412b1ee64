package config

import "net/url"

// MaxFile bounds the bytes of a HAR file read (judge --max-file): a larger
// one is refused. Package har reads it here.
const MaxFile = 256 << 20

// Judge is the configuration of plantcheck judge: recorded traffic judged
// as the proxy judges live traffic. Each setting is its flag's
// (Settings).
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
	if len(j.Files) == 0 {
		return Errorf("no recording: give one or more HAR files")
	}
	if err := checkRanges("judge", j); err != nil {
		return err
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
