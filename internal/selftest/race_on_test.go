//go:build race

package selftest

// raceEnabled: the tests run under the race detector, which makes every
// run of the suite some times slower.
const raceEnabled = true
