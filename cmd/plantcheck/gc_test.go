package main

import (
	"runtime/debug"
	"testing"

	"github.com/plantcheck/plantcheck/internal/run"
)

// TestTuneGC: a command that runs the suite many times over raises the
// collector's target, unless the user set GOGC, which wins.
func TestTuneGC(t *testing.T) {
	const before = 77 // a target no one sets, to see whether it moved
	defer debug.SetGCPercent(debug.SetGCPercent(before))
	tests := []struct {
		name string
		gogc string
		want int
	}{
		{"unset", "", run.GCPercent},
		{"set by the user", "100", before},
		{"collector off by the user", "off", before},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetGCPercent(before)
			tuneGC(func(k string) string {
				if k == "GOGC" {
					return tt.gogc
				}
				return ""
			})
			if got := debug.SetGCPercent(before); got != tt.want {
				t.Errorf("GC percent = %d, want %d", got, tt.want)
			}
		})
	}
}
