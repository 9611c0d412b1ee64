package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/history"
	"github.com/plantcheck/plantcheck/internal/sigverify/sigtest"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// asVerifyBundle makes the test binary plantcheck-verify-bundle (its
// main is sigverify.Main) when the environment sets it to 1.
const asVerifyBundle = "PLANTCHECK_TEST_AS_VERIFY_BUNDLE"

// verifyBundleStandIn is a script that runs this test binary as
// plantcheck-verify-bundle: what PLANTCHECK_VERIFY_BUNDLE names.
func verifyBundleStandIn(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "plantcheck-verify-bundle")
	script := "#!/bin/sh\n" + asVerifyBundle + "=1 exec '" + self + "' \"$@\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestVerifyBundle: a run's statement, signed by a Sigstore made in the
// test, verifies with --bundle and the signer's identity; the wrong
// identity, one byte of the statement signed or of the folder's, and a
// signature from a Sigstore the trusted root does not name give exit 1,
// each named; a bundle with no identity to check it against, or files that
// cannot be read, give exit 2.
func TestVerifyBundle(t *testing.T) {
	t.Parallel()
	const workflow = "https://github.com/acme/plant-store/.github/workflows/conformance.yml@refs/heads/main"
	reports, _ := referenceReports(t) // read only: each case changes a copy
	statement, err := os.ReadFile(filepath.Join(reports, verdict.StatementJSON))
	if err != nil {
		t.Fatal(err)
	}
	ss, err := sigtest.New()
	if err != nil {
		t.Fatal(err)
	}
	other, err := sigtest.New()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PLANTCHECK_VERIFY_BUNDLE": verifyBundleStandIn(t)}
	files := t.TempDir()
	put := func(name string, b []byte, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(files, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tr, err := ss.TrustedRoot()
	root := put("trusted_root.json", tr, err)
	signed, err := ss.Attest(workflow, sigtest.Issuer, statement, sigtest.Options{})
	good := put("good.sigstore.json", signed, err)
	tampered, err := sigtest.Tamper(signed)
	bad := put("tampered.sigstore.json", tampered, err)
	b, err := other.Attest(workflow, sigtest.Issuer, statement, sigtest.Options{})
	stranger := put("stranger.sigstore.json", b, err)
	b, err = ss.Attest("https://github.com/mallory/fork/.github/workflows/c.yml@refs/heads/main", sigtest.Issuer, statement, sigtest.Options{})
	mallory := put("mallory.sigstore.json", b, err)

	// signer are the flags of the bundle's signer and its trusted root.
	signer := func(bundle string) []string {
		return []string{"--bundle", bundle, "--trusted-root", root, "--certificate-identity", workflow, "--certificate-oidc-issuer", sigtest.Issuer}
	}
	// seedByte changes one byte of the folder's statement: its seed, 7, is 8.
	seedByte := func(t *testing.T, dir string) {
		path := filepath.Join(dir, verdict.StatementJSON)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.Index(b, []byte(`"seed"`))
		j := bytes.IndexByte(b[i+len(`"seed"`):], '7')
		if i < 0 || j < 0 {
			t.Fatalf("no seed 7 in %s", b)
		}
		b[i+len(`"seed"`)+j] = '8'
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		args     []string
		change   func(t *testing.T, dir string)
		wantCode int
		want     []string // what the output must name
	}{
		{"signed by the identity given", signer(good), nil, 0,
			[]string{"signed: ", "by " + workflow + " (issuer " + sigtest.Issuer + ")", "(transparency log)", "HOLDS"}},
		{"the identity by a regular expression", []string{"--bundle", good, "--trusted-root", root,
			"--certificate-identity-regexp", `^https://github\.com/acme/`, "--certificate-oidc-issuer", sigtest.Issuer}, nil, 0, []string{"signed: ", "HOLDS"}},
		{"signed by another identity", signer(mallory), nil, 1,
			[]string{"differs: identity: signed by https://github.com/mallory/fork/", "DOES NOT HOLD", "1 difference"}},
		{"one byte of the statement signed", signer(bad), nil, 1,
			[]string{"differs: signature: it does not verify", "DOES NOT HOLD"}},
		{"one byte of the folder's statement", signer(good), seedByte, 1,
			[]string{`differs: predicate.seed: the signed statement says "7", conformance.intoto.json says "8"`, `seed: summary.json says "7", the statement "8"`, "2 differences"}},
		{"signed by a Sigstore the trusted root does not name", signer(stranger), nil, 1,
			[]string{"differs: signature: it does not verify against the trusted root", "DOES NOT HOLD"}},
		{"a bundle in the folder, and no --bundle", nil, func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, history.BundleName), signed, 0o644); err != nil {
				t.Fatal(err)
			}
		}, 0, []string{"HOLDS", "unsigned check: conformance.sigstore.json is there"}},
		{"no bundle file", signer(filepath.Join(files, "missing.json")), nil, 2, []string{"could not check", "--bundle: ", "missing.json"}},
		{"a bundle and no identity", []string{"--bundle", good, "--trusted-root", root, "--certificate-oidc-issuer", sigtest.Issuer}, nil, 2,
			[]string{"--bundle needs the signer's identity", "proves nothing"}},
		{"a bundle and no issuer", []string{"--bundle", good, "--trusted-root", root, "--certificate-identity", workflow}, nil, 2,
			[]string{"--bundle needs the OIDC issuer"}},
		{"a bundle and no trusted root", []string{"--bundle", good, "--certificate-identity", workflow, "--certificate-oidc-issuer", sigtest.Issuer}, nil, 2,
			[]string{"--bundle needs --trusted-root"}},
		{"an identity and no bundle", []string{"--certificate-identity", workflow}, nil, 2,
			[]string{"--certificate-identity is given without --bundle"}},
		{"an identity twice", append(signer(good), "--certificate-identity-regexp", "."), nil, 2,
			[]string{"give --certificate-identity or --certificate-identity-regexp, not both"}},
		{"a regular expression that is none", []string{"--bundle", good, "--trusted-root", root,
			"--certificate-identity-regexp", "(", "--certificate-oidc-issuer", sigtest.Issuer}, nil, 2,
			[]string{"--certificate-identity-regexp: not a regular expression"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := copyDir(t, reports)
			if tt.change != nil {
				tt.change(t, dir)
			}
			code, stdout, stderr := invoke(t, env, append([]string{"verify", dir}, tt.args...)...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, stdout, stderr)
			}
			for _, s := range tt.want {
				if !strings.Contains(stdout+stderr, s) {
					t.Errorf("output lacks %q:\n%s%s", s, stdout, stderr)
				}
			}
		})
	}
}

// TestVerifyBundleWithoutItsProgram: --bundle with no
// plantcheck-verify-bundle to run is exit 2, saying how to get it.
func TestVerifyBundleWithoutItsProgram(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PLANTCHECK_VERIFY_BUNDLE": filepath.Join(t.TempDir(), "missing")}
	code, _, stderr := invoke(t, env, "verify", t.TempDir(), "--bundle", "b.json", "--trusted-root", "r.json",
		"--certificate-identity", "me", "--certificate-oidc-issuer", "https://issuer.example")
	if code != 2 || !strings.Contains(stderr, "--bundle needs plantcheck-verify-bundle ") || !strings.Contains(stderr, "go install ./cmd/plantcheck-verify-bundle") {
		t.Errorf("exit %d, want 2 saying how to get plantcheck-verify-bundle: %s", code, stderr)
	}
}
