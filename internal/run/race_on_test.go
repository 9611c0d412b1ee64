//go:build race

package run

// raceEnabled: the tests run under the race detector, which makes a whole
// run several times slower (a run's long bodies most: encoding/json's
// every byte is instrumented).
const raceEnabled = true
