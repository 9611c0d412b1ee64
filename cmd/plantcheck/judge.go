package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/har"
	"github.com/plantcheck/plantcheck/internal/proxy"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

func cmdJudge(_ context.Context, c cli, args []string) int {
	fs := newFlagSet(c, "judge", "[flags] FILE.har...",
		"Certify a deployment, and its clients, from recorded traffic: HAR 1.2 files, as\n"+
			"browsers' developer tools, mitmproxy, k6, Playwright, and 'plantcheck run --har'\n"+
			"or 'plantcheck proxy --har' write them. Each exchange of POST /plants is judged\n"+
			"as 'plantcheck proxy' judges live traffic, by every rule traffic can show, into\n"+
			"the proxy's verdict and reports. Exchanges to other paths, bodies the recording\n"+
			"cut or left out, and Authorization headers it redacted are counted and said,\n"+
			"never judged as failures. Secrets in the recording are hidden in every output.\n\n"+
			"Exit status: 0 no server-side violation seen, 1 the service broke a MUST rule\n"+
			"(or, with --strict, a SHOULD rule; or, with --strict-clients, a client sent a\n"+
			"request that breaks the document), 2 could not run: a file that is not HAR or\n"+
			"is too large (--max-file), a recording with no exchange, or none of POST /plants.")
	flags := config.DefineJudge(fs)
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(c.stderr, "plantcheck judge: "+format+"\n", a...)
		return exitCannotRun
	}
	cfg, err := flags.Resolve(fs.Args())
	if err != nil {
		return fail("%v", err)
	}
	names := make([]string, len(cfg.Files))
	for i, f := range cfg.Files {
		names[i] = filepath.Base(f)
	}
	source := "recorded traffic"
	if cfg.Base != nil && cfg.Base.Host != "" {
		source = cfg.Base.Redacted()
	}
	source = evidence.Text(evidence.Cut(source+" (recorded in "+strings.Join(names, ", ")+")", 1<<10))
	rec, err := proxy.NewRecording(proxy.RecordingConfig{Base: cfg.Base, Source: source, MaxJudge: cfg.MaxJudge, AuthStripped: cfg.AuthStripped})
	if err != nil {
		return fail("%v", err)
	}
	for _, path := range cfg.Files {
		if err := judgeFile(rec, path, cfg.MaxFile); err != nil {
			return fail("%s: %v", evidence.Text(path), err)
		}
	}
	if rec.Exchanges() == 0 {
		return fail("%v: nothing to judge", proxy.ErrNothingRecorded)
	}
	v := rec.Verdict(proxy.Options{Strict: cfg.Strict, StrictClients: cfg.StrictClients})
	if err := v.WriteText(c.stdout, verdict.TextOptions{}); err != nil {
		return fail("write the verdict: %v", err)
	}
	if cfg.ReportDir != "" {
		if err := v.WriteFiles(cfg.ReportDir); err != nil {
			return fail("%v", err)
		}
	}
	return v.ExitCode
}

// judgeFile judges the exchanges of one HAR file.
func judgeFile(rec *proxy.Recording, path string, maxFile int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > maxFile {
		return fmt.Errorf("%w: %d bytes, more than %d (--max-file)", har.ErrTooLarge, fi.Size(), maxFile)
	}
	n := 0
	return har.Read(f, maxFile, func(e har.Entry) error {
		n++
		x, err := e.Exchange()
		if err != nil {
			return fmt.Errorf("%w: entry %d: %v", har.ErrNotHAR, n, err)
		}
		rec.Judge(x)
		return nil
	})
}

// openHAR creates the HAR file of --har ("": none); the function returned
// ends it, once, and says how many exchanges it holds.
func openHAR(path string) (*har.Writer, func() (int64, error), error) {
	if path == "" {
		return nil, func() (int64, error) { return 0, nil }, nil
	}
	w, err := har.Create(path, "plantcheck", buildinfo.Version())
	if err != nil {
		return nil, nil, err
	}
	return w, w.Close, nil
}
