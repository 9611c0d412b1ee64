package run

import (
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
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}
