// Command plantcheck-verify-bundle checks a Sigstore bundle over a report
// folder's conformance statement, with the signer's identity; plantcheck
// verify DIR --bundle FILE runs it (it looks beside itself, then on PATH).
// It is a binary of its own so that sigstore-go, which adds to every
// command's start-up and a quarter to the binary, stays out of plantcheck:
// docs/certifying.md.
//
//	plantcheck-verify-bundle --bundle FILE --trusted-root FILE \
//	    --certificate-identity ID --certificate-oidc-issuer ISSUER DIR
//
// Exit status: 0 the statement holds and is signed so, 1 it does not (each
// difference named), 2 it could not be checked.
package main

import (
	"os"

	"github.com/plantcheck/plantcheck/internal/sigverify"
)

func main() {
	os.Exit(sigverify.Main(os.Args[1:], os.Stdout, os.Stderr))
}
