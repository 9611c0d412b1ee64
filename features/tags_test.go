package features

import (
	"strings"
	"testing"
)

func TestParseTags(t *testing.T) {
	scs, err := Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	count := func(level string) int {
		n := 0
		for _, s := range scs {
			for _, tag := range s.Tags {
				if tag == level {
					n++
				}
			}
		}
		return n
	}
	tests := []struct {
		expr    string
		want    int    // scenarios selected
		wantErr string // part of the error, when one is wanted
	}{
		{expr: "", want: len(scs)},
		{expr: "@must", want: count("@must")},
		{expr: "must", want: count("@must")}, // godog drops every "@"
		{expr: "@must,@should", want: count("@must") + count("@should")},
		{expr: "@must && ~@AUTH-NEAR-MISS", want: count("@must") - count("@AUTH-NEAR-MISS")},
		{expr: " @AUTH-UNKNOWN ", want: count("@AUTH-UNKNOWN")},
		{expr: "@must && @open", want: 0},
		{expr: "@must &&", wantErr: "an empty term"},
		{expr: ",@must", wantErr: "an empty term"},
		{expr: "@must || @open", wantErr: `"||" is not or here`},
		{expr: "(@must)", wantErr: "is not a tag"},
		{expr: "@must and not @open", wantErr: "is not a tag"},
		{expr: "@slow", wantErr: "no scenario has the tag @slow"},
		{expr: "~@AUTH-MISING", wantErr: "no scenario has the tag @AUTH-MISING"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			f, err := ParseTags(tt.expr)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := len(f.Select(scs)); got != tt.want {
				t.Errorf("selects %d scenarios, want %d", got, tt.want)
			}
		})
	}
}
