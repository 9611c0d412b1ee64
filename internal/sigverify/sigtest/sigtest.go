// Package sigtest is a Sigstore made in the test, for the tests of
// plantcheck verify --bundle: sigstore-go's virtual Sigstore (a Fulcio
// authority, a Rekor log, a timestamp authority, each with keys made
// afresh) signs an in-toto statement and writes the Sigstore bundle and the
// trusted_root.json a verifier reads, as actions/attest and gh attestation
// trusted-root write them. Nothing reaches a network.
package sigtest

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"google.golang.org/protobuf/encoding/protojson"
)

// Issuer is GitHub Actions' OIDC issuer, which actions/attest's
// certificates name.
const Issuer = "https://token.actions.githubusercontent.com"

// Sigstore is a virtual Sigstore: its own authority, log and timestamp
// authority.
type Sigstore struct {
	vs *ca.VirtualSigstore
}

// New makes a Sigstore of fresh keys.
func New() (*Sigstore, error) {
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		return nil, err
	}
	return &Sigstore{vs: vs}, nil
}

// Options say how a bundle is made.
type Options struct {
	// NoTlog leaves the transparency log out: the signing time is then
	// vouched for by the timestamp authority alone, as GitHub's own
	// Sigstore instance (private repositories) signs.
	NoTlog bool
}

// Attest signs statement, an in-toto statement, as identity of issuer,
// and returns the Sigstore bundle (v0.3, JSON) of the DSSE envelope: a
// certificate of the authority, a log entry with its inclusion proof and
// promise, and a signed timestamp.
func (s *Sigstore) Attest(identity, issuer string, statement []byte, opt Options) ([]byte, error) {
	// The certificate is valid from now for 10 minutes; the log's time is
	// within it (as sigstore-go's own Attest does).
	integrated := time.Now().Add(5 * time.Minute)
	ent, err := s.vs.AttestAtTime(identity, issuer, statement, integrated, true)
	if err != nil {
		return nil, err
	}
	vc, err := ent.VerificationContent()
	if err != nil {
		return nil, err
	}
	cert := vc.Certificate()
	sc, err := ent.SignatureContent()
	if err != nil {
		return nil, err
	}
	// The DSSE envelope's JSON is the protobuf's: base64 payload and signatures.
	env, err := json.Marshal(sc.EnvelopeContent().RawEnvelope())
	if err != nil {
		return nil, err
	}
	pe := &protodsse.Envelope{}
	if err := protojson.Unmarshal(env, pe); err != nil {
		return nil, err
	}
	tss, err := ent.Timestamps()
	if err != nil {
		return nil, err
	}
	vm := &protobundle.VerificationMaterial{
		Content:                   &protobundle.VerificationMaterial_Certificate{Certificate: &protocommon.X509Certificate{RawBytes: cert.Raw}},
		TimestampVerificationData: &protobundle.TimestampVerificationData{},
	}
	for _, ts := range tss {
		vm.TimestampVerificationData.Rfc3161Timestamps = append(vm.TimestampVerificationData.Rfc3161Timestamps, &protocommon.RFC3161SignedTimestamp{SignedTimestamp: ts})
	}
	if !opt.NoTlog {
		entries, err := ent.TlogEntries()
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			tle, err := s.logEntry(e)
			if err != nil {
				return nil, err
			}
			vm.TlogEntries = append(vm.TlogEntries, tle)
		}
	}
	b := &protobundle.Bundle{
		MediaType:            "application/vnd.dev.sigstore.bundle.v0.3+json",
		VerificationMaterial: vm,
		Content:              &protobundle.Bundle_DsseEnvelope{DsseEnvelope: pe},
	}
	return protojson.Marshal(b)
}

// logEntry is the log entry as a bundle carries it: the virtual log's
// entry, with its kind and its inclusion promise (the log's signature over
// the entry, which sigstore-go's test entry keeps to itself).
func (s *Sigstore) logEntry(e *tlog.Entry) (*protorekor.TransparencyLogEntry, error) {
	tle := e.TransparencyLogEntry()
	logID, err := s.vs.RekorLogID()
	if err != nil {
		return nil, err
	}
	set, err := s.vs.RekorSignPayload(tlog.RekorPayload{
		Body:           base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
		IntegratedTime: tle.IntegratedTime,
		LogIndex:       tle.LogIndex,
		LogID:          logID,
	})
	if err != nil {
		return nil, err
	}
	if got := hex.EncodeToString(tle.GetLogId().GetKeyId()); got != logID {
		return nil, fmt.Errorf("the entry's log %s is not the log's %s", got, logID)
	}
	// The virtual log writes DSSE entries of Rekor's dsse type, v0.0.1.
	tle.KindVersion = &protorekor.KindVersion{Kind: "dsse", Version: "0.0.1"}
	tle.InclusionPromise = &protorekor.InclusionPromise{SignedEntryTimestamp: set}
	return tle, nil
}

// TrustedRoot is the trusted_root.json that vouches for this Sigstore's
// authority, log and timestamp authority. It names no certificate
// transparency log: the virtual authority's certificates carry no SCT.
func (s *Sigstore) TrustedRoot() ([]byte, error) {
	return s.trustedRoot(nil)
}

// TrustedRootWithCTLog is TrustedRoot naming the virtual Sigstore's
// certificate transparency log too: a bundle's certificate must then
// carry an SCT, which the virtual authority's never do.
func (s *Sigstore) TrustedRootWithCTLog() ([]byte, error) {
	ct, err := rawIDs(s.vs.CTLogs())
	if err != nil {
		return nil, err
	}
	return s.trustedRoot(ct)
}

func (s *Sigstore) trustedRoot(ct map[string]*root.TransparencyLog) ([]byte, error) {
	logs, err := rawIDs(s.vs.RekorLogs())
	if err != nil {
		return nil, err
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01,
		s.vs.FulcioCertificateAuthorities(), ct, s.vs.TimestampingAuthorities(), logs)
	if err != nil {
		return nil, err
	}
	return tr.MarshalJSON()
}

// rawIDs are the virtual Sigstore's logs with their IDs as the bytes a
// trusted_root.json carries: the virtual ones hold the hex text (which
// serves it as trusted material in memory), and written to JSON would name
// a log no entry is of.
func rawIDs(logs map[string]*root.TransparencyLog) (map[string]*root.TransparencyLog, error) {
	out := map[string]*root.TransparencyLog{}
	for id, l := range logs {
		raw, err := hex.DecodeString(id)
		if err != nil {
			return nil, err
		}
		c := *l
		c.ID = raw
		out[id] = &c
	}
	return out, nil
}

// Tamper changes one byte of the statement a bundle signs (one bit of the
// first character of its first key) and leaves the rest, signature and
// all, as it was.
func Tamper(bundle []byte) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(bundle, &m); err != nil {
		return nil, err
	}
	env, ok := m["dsseEnvelope"].(map[string]any)
	if !ok {
		return nil, errors.New("the bundle has no DSSE envelope")
	}
	text, _ := env["payload"].(string)
	payload, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return nil, err
	}
	i := bytes.IndexByte(payload, '"')
	if i < 0 || i+1 == len(payload) {
		return nil, errors.New("the signed statement has no string")
	}
	payload[i+1] ^= 1
	env["payload"] = base64.StdEncoding.EncodeToString(payload)
	return json.Marshal(m)
}
