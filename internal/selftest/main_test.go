package selftest

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain runs the package's tests with the collector set to run a
// quarter as often as by default: the mutant sweeps make whole runs by the
// hundred, whose garbage is short-lived, and at the default the collector
// takes about a seventh of their CPU (TestEveryMutantIsCaught, measured:
// 29.9 s user and system at GOGC=100, 25.7 s at 400, for a peak of 93
// against 188 MB). An environment's GOGC still wins.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}
