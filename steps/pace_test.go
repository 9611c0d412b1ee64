package steps

import (
	"net/http"
	"testing"
	"time"
)

func TestThrottleWait(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		status    int
		after     string
		attempt   int
		want      time.Duration
		throttled bool
	}{
		{"429 with seconds", 429, "3", 0, 3 * time.Second, true},
		{"429 with a date", 429, now.Add(90 * time.Second).Format(http.TimeFormat), 0, 90 * time.Second, true},
		{"429 with a date gone by", 429, now.Add(-time.Hour).Format(http.TimeFormat), 0, 0, true},
		{"429 without Retry-After, first", 429, "", 0, time.Second, true},
		{"429 without Retry-After, third", 429, "", 2, 4 * time.Second, true},
		{"429 with a bad Retry-After", 429, "soon", 1, 2 * time.Second, true},
		{"503 with seconds", 503, "2", 0, 2 * time.Second, true},
		{"503 without Retry-After is the service's", 503, "", 0, 0, false},
		{"a negative Retry-After is no Retry-After", 503, "-5", 0, 0, false},
		{"200 with Retry-After", 200, "5", 0, 0, false},
		{"400", 400, "", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.after != "" {
				h.Set("Retry-After", tt.after)
			}
			got, throttled := throttleWait(tt.status, h, tt.attempt, now)
			if got != tt.want || throttled != tt.throttled {
				t.Errorf("throttleWait = %s, %v; want %s, %v", got, throttled, tt.want, tt.throttled)
			}
		})
	}
}

func TestThrottlerBounds(t *testing.T) {
	bound := Throttle{MaxWait: 10 * time.Second, MaxRetries: 2, MaxTotal: 15 * time.Second}
	tests := []struct {
		name  string
		waits []time.Duration // one request's throttled answers, attempt 0, 1, ...
		ok    int             // how many are admitted
	}{
		{"within every bound", []time.Duration{time.Second, 2 * time.Second}, 2},
		{"a wait past MaxWait", []time.Duration{11 * time.Second}, 0},
		{"a third resend", []time.Duration{0, 0, 0}, 2},
		{"the total past MaxTotal", []time.Duration{8 * time.Second, 8 * time.Second}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := &throttler{bound: bound}
			admitted := 0
			for i, w := range tt.waits {
				if th.admit(http.StatusTooManyRequests, w, i) != nil {
					break
				}
				admitted++
			}
			if admitted != tt.ok {
				t.Errorf("admitted %d, want %d", admitted, tt.ok)
			}
			if st := th.stats(); (st.Exceeded != "") != (admitted < len(tt.waits)) || st.Answers[429] != min(admitted+1, len(tt.waits)) {
				t.Errorf("stats %+v", st)
			}
		})
	}
}
