package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/history"
)

const verifyHelp = "Check, offline, that the conformance statement a run, proxy or judge wrote into\n" +
	"its report folder (DIR/conformance.intoto.json, an in-toto Statement v1) and the\n" +
	"reports beside it agree: the sha256 of summary.json, junit.xml and report.html,\n" +
	"the verdict, the exit status and every rule's outcome. The suite and the\n" +
	"OpenAPI document it names must be the ones this plantcheck carries; when they\n" +
	"are not, it says which plantcheck version made the statement.\n\n" +
	"With --bundle, a Sigstore bundle (as actions/attest or cosign attest-blob\n" +
	"write it) must also sign that statement: verified against --trusted-root\n" +
	"(never fetched), by the signer --certificate-identity names, vouched for by\n" +
	"--certificate-oidc-issuer; the statement signed must have the same predicate\n" +
	"and the same sha256 of each report. It runs plantcheck-verify-bundle (beside\n" +
	"plantcheck, or on PATH), which holds sigstore-go. See docs/certifying.md.\n\n" +
	"Exit status: 0 the statement holds, 1 it does not (each difference is named),\n" +
	"2 it could not be checked (a file missing, not JSON, not a plantcheck statement,\n" +
	"not a bundle; a bundle without an identity to check it against)."

func cmdVerify(_ context.Context, c cli, cfg *config.Verify, dirs []string) int {
	if len(dirs) != 1 {
		return c.fail("give one report folder (%d given)\n%s", len(dirs), flagsHint(c.fs))
	}
	if err := cfg.Validate(); err != nil {
		return c.fail("%v\n%s", err, flagsHint(c.fs))
	}
	if cfg.Bundle != "" {
		return verifyBundle(c, dirs[0], cfg)
	}
	res, err := history.Verify(dirs[0])
	if err != nil {
		fmt.Fprintf(c.stderr, "plantcheck verify: %s\n", evidence.Text(err.Error()))
		if !errors.Is(err, history.ErrCannotCheck) {
			fmt.Fprintln(c.stderr, "plantcheck verify: could not check")
		}
		return exitCannotRun
	}
	res.WriteText(c.stdout)
	if _, err := os.Stat(filepath.Join(dirs[0], history.BundleName)); err == nil {
		// HOLDS says the reports agree with the statement, not who wrote it.
		fmt.Fprintf(c.stdout, "unsigned check: %s is there; check who signed the statement with --bundle, --trusted-root, --certificate-identity and --certificate-oidc-issuer (docs/certifying.md)\n", history.BundleName)
	}
	if !res.Holds() {
		return exitFailed
	}
	return exitOK
}

// verifyBundleBin holds sigstore-go, kept out of plantcheck's start-up.
const verifyBundleBin = "plantcheck-verify-bundle"

// verifyBundle runs plantcheck-verify-bundle (PLANTCHECK_VERIFY_BUNDLE,
// else beside plantcheck, else on PATH) on the folder, which checks it as
// verify does and the bundle too; its output and exit status are verify's.
func verifyBundle(c cli, dir string, cfg *config.Verify) int {
	isFile := func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && !fi.IsDir()
	}
	bin := c.getenv("PLANTCHECK_VERIFY_BUNDLE")
	beside := verifyBundleBin
	if runtime.GOOS == "windows" {
		beside += ".exe"
	}
	if self, err := os.Executable(); bin == "" && err == nil && isFile(filepath.Join(filepath.Dir(self), beside)) {
		bin = filepath.Join(filepath.Dir(self), beside)
	}
	if bin == "" {
		bin, _ = exec.LookPath(verifyBundleBin)
	}
	if bin == "" || !isFile(bin) {
		fmt.Fprintf(c.stderr, "plantcheck verify: --bundle needs %s %s (it holds sigstore-go, kept out of plantcheck), and it is neither beside plantcheck nor on PATH: the release archives carry it; from a clone, go install ./cmd/%s\n",
			verifyBundleBin, buildinfo.Version(), verifyBundleBin)
		return exitCannotRun
	}
	cmd := exec.Command(bin, append(cfg.Args(), "--", dir)...)
	cmd.Stdout, cmd.Stderr = c.stdout, c.stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &exit) && (exit.ExitCode() == exitFailed || exit.ExitCode() == exitCannotRun):
		return exit.ExitCode()
	}
	fmt.Fprintf(c.stderr, "plantcheck verify: %s: %s\n", verifyBundleBin, evidence.Text(err.Error()))
	return exitCannotRun
}
