package main

import (
	"context"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/proxy"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

const judgeHelp = "Certify a deployment, and its clients, from recorded traffic: HAR 1.2 files, as\n" +
	"browsers' developer tools, mitmproxy, k6, Playwright, and 'plantcheck run --har'\n" +
	"or 'plantcheck proxy --har' write them. Each exchange of POST /plants is judged\n" +
	"as 'plantcheck proxy' judges live traffic, by every rule traffic can show, into\n" +
	"the proxy's verdict and reports. Exchanges to other paths, bodies the recording\n" +
	"cut or left out, and Authorization headers it redacted are counted and said,\n" +
	"never judged as failures. Secrets in the recording are hidden in every output.\n\n" +
	"Exit status: 0 no server-side violation seen, 1 the service broke a MUST rule\n" +
	"(or, with --strict, a SHOULD rule; or, with --strict-clients, a client sent a\n" +
	"request that breaks the document), 2 could not run: a file that is not HAR or\n" +
	"is too large (--max-file), a recording with no exchange, or none of POST /plants."

func cmdJudge(_ context.Context, c cli, cfg *config.Judge, files []string) int {
	cfg.Files = files
	err := cfg.Validate()
	if err == nil {
		var v *verdict.Verdict
		if v, err = proxy.JudgeFiles(*cfg, c.stdout); err == nil {
			return v.ExitCode
		}
	}
	return c.fail("%v", err)
}
