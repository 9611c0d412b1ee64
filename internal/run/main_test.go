package run

import (
	"flag"
	"os"
	"runtime/debug"
	"testing"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// Short names the tests use: the report files (verdict's) and the
// configuration's defaults.
const (
	SummaryJSON        = verdict.SummaryJSON
	SummaryMD          = verdict.SummaryMD
	ReportHTML         = verdict.ReportHTML
	BadgeSVG           = verdict.BadgeSVG
	JUnitXML           = verdict.JUnitXML
	DefaultTimeout     = config.DefaultTimeout
	DefaultConcurrency = config.DefaultConcurrency
)

// TestMain runs the package's tests with the collector set to run a
// quarter as often as by default, as internal/selftest's do: the tests make
// whole runs by the dozen, whose garbage is short-lived. An environment's
// GOGC still wins.
//
// It also runs up to 4 parallel tests at once, not GOMAXPROCS (2 here),
// unless -parallel is given: several of them spend most of their time
// waiting on a server that makes them wait (a rate limit, a dripping body,
// a listen backlog's retransmission), and a waiting test need not hold a
// core's slot. Measured here, non-race: 42.9 s wall at 2, 28.8 s at 4,
// for the same CPU.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	flag.Parse()
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		flag.Set("test.parallel", "4")
	}
	code := m.Run()
	removeShared()
	os.Exit(code)
}
