// Package sigverify checks a Sigstore bundle over a report folder's
// conformance statement, offline, with sigstore-go: that the bundle's DSSE
// envelope is signed by a certificate the trusted root vouches for (its
// chain, a transparency log entry or a signed timestamp of the signing
// time), that the certificate names the identity and the OIDC issuer
// given, and that the statement signed is the folder's: the same predicate
// (field by field) and the same sha256 for every report the folder's
// statement vouches for. actions/attest builds its own statement from the
// reports and the predicate, so its bytes are not the folder's file: the
// match is by subjects and predicate, never by bytes. Main, the program
// plantcheck verify --bundle runs (cmd/plantcheck-verify-bundle), calls it
// after history.Verify has checked the folder's statement against the
// reports beside it; plantcheck itself never imports this package, whose
// dependencies would slow every command's start-up.
package sigverify

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/history"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// Limits of what is read: actions/attest allows a predicate of 16 MB.
const (
	MaxBundle      = 32 << 20
	MaxTrustedRoot = 4 << 20
	// maxBundles bounds the bundles of one file (gh attestation download
	// writes every attestation of a subject, a JSON line each).
	maxBundles = 64
	// maxDifferences bounds the differences named of one signed predicate.
	maxDifferences = 20
)

// Signature is what the bundle check found: who signed, when, and each
// thing that differs; none: the bundle signs the folder's statement.
type Signature struct {
	Bundle string
	// Signer and Issuer are the identity and OIDC issuer the certificate
	// names; SignedAt the verified times of signing, how each was vouched
	// for ("transparency log", "timestamp authority").
	Signer, Issuer string
	SignedAt       []string
	Differences    []string
}

// Holds reports whether a bundle signs the folder's statement, by the
// identity given.
func (s *Signature) Holds() bool { return len(s.Differences) == 0 }

// Check checks the bundle cfg names against the conformance statement in
// dir: the bundle (one JSON object, or JSON lines of several) and the
// trusted root (one, or the JSON lines of gh attestation trusted-root) are
// files. An error (history.ErrCannotCheck) means it could not check: a file
// missing or unreadable, not a bundle, not a trusted root, a bad identity.
func Check(dir string, cfg config.Verify) (*Signature, error) {
	roots, err := readEach(cfg.TrustedRoot, MaxTrustedRoot, "trusted root", root.NewTrustedRootFromJSON)
	if err != nil {
		return nil, fmt.Errorf("%w: --trusted-root: %v", history.ErrCannotCheck, err)
	}
	bundles, err := readEach(cfg.Bundle, MaxBundle, "bundle", func(raw []byte) (*bundle.Bundle, error) {
		var b bundle.Bundle
		return &b, b.UnmarshalJSON(raw)
	})
	if err != nil {
		return nil, fmt.Errorf("%w: --bundle: %v", history.ErrCannotCheck, err)
	}
	id, err := verify.NewShortCertificateIdentity(cfg.Issuer, cfg.IssuerRegexp, cfg.Identity, cfg.IdentityRegexp)
	if err != nil {
		return nil, fmt.Errorf("%w: the identity: %v", history.ErrCannotCheck, err)
	}
	local, err := readFolder(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", history.ErrCannotCheck, err)
	}
	// The first bundle that holds is the one shown; when none does, each
	// bundle's differences are named.
	res := &Signature{Bundle: cfg.Bundle}
	for i, b := range bundles {
		s := checkOne(b, roots, id, local)
		s.Bundle = cfg.Bundle
		if s.Holds() {
			return s, nil
		}
		for _, d := range s.Differences {
			if len(bundles) > 1 {
				d = fmt.Sprintf("bundle %d of %d: %s", i+1, len(bundles), d)
			}
			res.Differences = append(res.Differences, d)
		}
		if len(bundles) == 1 {
			res.Signer, res.Issuer = s.Signer, s.Issuer
		}
	}
	return res, nil
}

// checkOne checks one bundle: its signature against each trusted root
// until one verifies it, the signer's identity, then what it signs.
func checkOne(b *bundle.Bundle, roots []*root.TrustedRoot, id verify.CertificateIdentity, local *folder) *Signature {
	s := &Signature{}
	res, err := verifyBundle(b, roots)
	if err != nil {
		s.Differences = append(s.Differences, "signature: it does not verify against the trusted root: "+err.Error())
		return s
	}
	if res.Signature == nil || res.Signature.Certificate == nil {
		s.Differences = append(s.Differences, "signature: signed by a key, not by a certificate naming an identity")
		return s
	}
	cert := res.Signature.Certificate
	s.Signer, s.Issuer = cert.SubjectAlternativeName, cert.Issuer
	for _, ts := range res.VerifiedTimestamps {
		how := cmp.Or(map[string]string{"Tlog": "transparency log", "TimestampAuthority": "timestamp authority"}[ts.Type], ts.Type)
		s.SignedAt = append(s.SignedAt, ts.Timestamp.UTC().Format(time.RFC3339)+" ("+how+")")
	}
	if err := id.Verify(*cert); err != nil {
		s.Differences = append(s.Differences, fmt.Sprintf("identity: signed by %s (issuer %s), not by the identity given: %v",
			quote(s.Signer), quote(s.Issuer), err))
		return s
	}
	env, err := b.Envelope()
	if err != nil {
		s.Differences = append(s.Differences, "signature: the bundle signs no DSSE envelope (an in-toto statement), but a blob")
		return s
	}
	if t := env.PayloadType; t != bundle.IntotoMediaType {
		s.Differences = append(s.Differences, fmt.Sprintf("statement: the envelope's payload is %s, not an in-toto statement (%s)", quote(t), bundle.IntotoMediaType))
		return s
	}
	payload, err := env.DecodeB64Payload()
	if err != nil {
		s.Differences = append(s.Differences, "statement: the envelope's payload is not base64: "+err.Error())
		return s
	}
	s.Differences = append(s.Differences, local.against(payload)...)
	return s
}

// verifyBundle verifies the bundle's signature against each trusted root
// until one holds (gh attestation trusted-root gives the public-good
// instance's and GitHub's own). The time of signing must be vouched for:
// by the transparency log when the bundle has entries (each then
// verified, as the public-good instance writes them), else by a signed
// timestamp (as GitHub's instance writes them); the certificate's SCTs
// when the root names certificate transparency logs. The identity is
// checked after, to name the signer when it is not the one given.
func verifyBundle(b *bundle.Bundle, roots []*root.TrustedRoot) (*verify.VerificationResult, error) {
	entries, err := b.TlogEntries()
	if err != nil {
		return nil, err
	}
	var errs []string
	for i, tr := range roots {
		var opts []verify.VerifierOption
		if len(entries) > 0 {
			opts = append(opts, verify.WithTransparencyLog(1), verify.WithObserverTimestamps(1))
		} else {
			opts = append(opts, verify.WithSignedTimestamps(1))
		}
		if len(tr.CTLogs()) > 0 {
			opts = append(opts, verify.WithSignedCertificateTimestamps(1))
		}
		v, err := verify.NewVerifier(tr, opts...)
		if err == nil {
			var res *verify.VerificationResult
			res, err = v.Verify(b, verify.NewPolicy(verify.WithoutArtifactUnsafe(), verify.WithoutIdentitiesUnsafe()))
			if err == nil {
				return res, nil
			}
		}
		msg := evidence.Cut(err.Error(), 1<<9)
		if len(roots) > 1 {
			msg = fmt.Sprintf("trusted root %d of %d: %s", i+1, len(roots), msg)
		}
		errs = append(errs, msg)
	}
	return nil, errors.New(strings.Join(errs, "; "))
}

// folder is what the report folder vouches for: its statement's predicate
// (as JSON) and the sha256 of each report, read from the files.
type folder struct {
	predicate any
	// subjects maps a subject's name to its sha256: each report's as the
	// file has it, the OpenAPI document's as the statement names it.
	subjects map[string]string
}

func readFolder(dir string) (*folder, error) {
	raw, err := history.ReadBounded(filepath.Join(dir, verdict.StatementJSON), history.MaxStatement)
	if err != nil {
		return nil, err
	}
	subjects, _, err := verdict.ReadStatement(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", verdict.StatementJSON, evidence.Cut(err.Error(), 1<<9))
	}
	predicate, err := predicateOf(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", verdict.StatementJSON, err)
	}
	f := &folder{predicate: predicate, subjects: map[string]string{verdict.OpenAPIName: subjects[verdict.OpenAPIName]}}
	for _, name := range verdict.Subjects {
		b, err := history.ReadBounded(filepath.Join(dir, name), history.MaxSummary)
		if err != nil {
			return nil, err
		}
		f.subjects[name] = verdict.SHA256Hex(b)
	}
	return f, nil
}

// against names each thing in which the signed statement differs from the
// folder: a report it does not vouch for or vouches for with another
// sha256, and each field of the predicate.
func (f *folder) against(payload []byte) []string {
	signed, _, err := verdict.ReadStatement(payload)
	if err != nil {
		return []string{"statement: the signed statement is no plantcheck conformance statement: " + evidence.Cut(err.Error(), 1<<9)}
	}
	var diffs []string
	for _, name := range append(slices.Clone(verdict.Subjects), verdict.OpenAPIName) {
		got, ok := signed[name]
		switch {
		case !ok && name == verdict.OpenAPIName:
			// actions/attest signs the files of the folder; the predicate
			// names the OpenAPI document's sha256, compared below.
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s: the signed statement does not vouch for it", name))
		case got != f.subjects[name]:
			diffs = append(diffs, fmt.Sprintf("%s: its sha256 is %s, the signed statement vouches for %s", name, history.Short(f.subjects[name]), history.Short(got)))
		}
	}
	predicate, err := predicateOf(payload)
	if err != nil {
		return append(diffs, "statement: the signed statement is not JSON: "+err.Error())
	}
	var paths []string
	diffJSON("predicate", predicate, f.predicate, &paths)
	if n := len(paths); n > maxDifferences {
		paths = append(paths[:maxDifferences], fmt.Sprintf("and %d more differences of the predicate", n-maxDifferences))
	}
	return append(diffs, paths...)
}

func predicateOf(statement []byte) (any, error) {
	var st struct {
		Predicate any `json:"predicate"`
	}
	err := json.Unmarshal(statement, &st)
	return st.Predicate, err
}

// diffJSON appends a line for each place where the signed JSON value and
// the folder's differ, by its path (predicate.rules[3].outcome).
func diffJSON(path string, signed, here any, out *[]string) {
	switch s := signed.(type) {
	case map[string]any:
		if h, ok := here.(map[string]any); ok {
			for _, k := range keys(s, h) {
				diffJSON(path+"."+k, s[k], h[k], out)
			}
			return
		}
	case []any:
		h, ok := here.([]any)
		if !ok {
			break
		}
		// A list of rules is compared rule by rule, by ID.
		if sIDs, hIDs := byID(s), byID(h); sIDs != nil && hIDs != nil {
			for _, id := range keys(sIDs, hIDs) {
				diffJSON(path+"["+id+"]", sIDs[id], hIDs[id], out)
			}
			return
		}
		if len(h) == len(s) {
			for i := range s {
				diffJSON(path+"["+strconv.Itoa(i)+"]", s[i], h[i], out)
			}
			return
		}
	}
	if !reflect.DeepEqual(signed, here) {
		*out = append(*out, fmt.Sprintf("%s: the signed statement says %s, %s says %s", path, jsonQuote(signed), verdict.StatementJSON, jsonQuote(here)))
	}
}

func keys(a, b map[string]any) []string {
	m := maps.Clone(a)
	maps.Copy(m, b)
	return slices.Sorted(maps.Keys(m))
}

// byID maps a list of objects to each by its "id", nil when one has none
// or two share one.
func byID(list []any) map[string]any {
	m := map[string]any{}
	for _, x := range list {
		o, ok := x.(map[string]any)
		if !ok {
			return nil
		}
		id, ok := o["id"].(string)
		if _, dup := m[id]; !ok || dup {
			return nil
		}
		m[id] = o
	}
	return m
}

// readEach reads a file of one JSON value or several (JSON lines), each
// parsed as a Sigstore what.
func readEach[T any](name string, max int64, what string, parse func([]byte) (T, error)) ([]T, error) {
	b, err := history.ReadBounded(name, max)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var raws []json.RawMessage
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: not JSON: %v", name, err)
		}
		if len(raws) == maxBundles {
			return nil, fmt.Errorf("%s: more than %d JSON values", name, maxBundles)
		}
		raws = append(raws, raw)
	}
	if len(raws) == 0 {
		return nil, fmt.Errorf("%s: empty", name)
	}
	out := make([]T, len(raws))
	for i, raw := range raws {
		if out[i], err = parse(raw); err != nil {
			which := "its JSON"
			if len(raws) > 1 {
				which = fmt.Sprintf("line %d", i+1)
			}
			return nil, fmt.Errorf("%s: %s: not a Sigstore %s: %s", name, which, what, evidence.Cut(err.Error(), 1<<9))
		}
	}
	return out, nil
}

func jsonQuote(x any) string {
	if x == nil {
		return "nothing"
	}
	b, _ := json.Marshal(x)
	return quote(string(b))
}

// quote is a value read from a file, bounded and escaped.
func quote(s string) string { return evidence.Text(evidence.Cut(s, 200)) }

// WriteText writes what the bundle check found: who signed and when, or
// each difference. plantcheck verify writes it before the folder's own
// verification.
func (s *Signature) WriteText(w io.Writer) {
	if !s.Holds() {
		for _, d := range s.Differences {
			fmt.Fprintf(w, "differs: %s\n", evidence.Text(d))
		}
		return
	}
	fmt.Fprintf(w, "signed: %s signs this statement's predicate and reports, by %s (issuer %s), at %s\n",
		evidence.Text(s.Bundle), quote(s.Signer), quote(s.Issuer), evidence.Text(strings.Join(s.SignedAt, ", ")))
}
