package selftest

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain runs the package's tests with the collector set to run an
// eighth as often as by default: the mutant sweeps make whole runs by the
// hundred, whose garbage is short-lived (a heap of 20 to 40 MB live), and
// at the default the collector takes about a seventh of their CPU
// (TestEveryMutantIsCaught, measured: 29.9 s user and system at GOGC=100,
// 25.7 s at 400; then, on a busier machine, 164 collections taking about
// 6.4 s of CPU at 400 against 74 taking 3.9 s at 800, for a peak of 210
// against 350 MB). An environment's GOGC still wins.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(800)
	}
	os.Exit(m.Run())
}
