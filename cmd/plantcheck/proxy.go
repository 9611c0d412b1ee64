package main

import (
	"context"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/proxy"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

const proxyHelp = "Certify a deployment, and its clients, from the traffic that passes through:\n" +
	"a reverse proxy that forwards every exchange as it comes and judges each\n" +
	"exchange of POST /plants by every rule traffic can show. Point the clients (or\n" +
	"'plantcheck run --base-url') at --addr. On SIGINT or SIGTERM it stops accepting,\n" +
	"lets the exchanges in flight end, and prints the verdict; a second signal ends\n" +
	"it at once. Its own answers (the upstream cannot be reached, does not answer\n" +
	"within --timeout, or fails) are 502s marked with the header Plantcheck-Proxy.\n\n" +
	"Exit status: 0 no server-side violation seen, 1 the service broke a MUST rule\n" +
	"(or, with --strict, a SHOULD rule; or, with --strict-clients, a client sent a\n" +
	"request that breaks the document), 2 could not run, or had traffic and could\n" +
	"judge none of it (an upstream down the whole time)."

func cmdProxy(ctx context.Context, c cli, flags *config.ProxyFlags, _ []string) int {
	cfg, err := flags.Resolve(c.fs, c.env())
	if err == nil {
		var v *verdict.Verdict
		if v, err = proxy.Run(ctx, cfg, proxy.Streams{Stdout: c.stdout, Stderr: c.stderr, Getenv: c.getenv}); err == nil {
			return v.ExitCode
		}
	}
	return c.fail("%v", err)
}
