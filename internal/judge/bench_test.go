package judge

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/spec"
)

// BenchmarkJudgeSize measures the judging of an accepted create by the size
// of its body: a short name, the size probes' bodies (a name of 16 KiB and
// of 1,040,000 characters, 1,000 members of 100 characters), each answered
// 200 with the exact echo, as the reference answers them.
func BenchmarkJudgeSize(b *testing.B) {
	v, err := spec.Default()
	if err != nil {
		b.Fatal(err)
	}
	members := func(n, size int) map[string]any {
		m := map[string]any{"id": 7, "name": "Monstera"}
		for i := range n {
			m[fmt.Sprintf("extra%04d", i)] = strings.Repeat("x", size)
		}
		return m
	}
	for _, tc := range []struct {
		name string
		sent map[string]any
	}{
		{"short", map[string]any{"id": 7, "name": "Monstera", "tag": "aroid"}},
		{"name-16KiB", map[string]any{"id": 7, "name": strings.Repeat("M", 16384)}},
		{"name-1040000", map[string]any{"id": 7, "name": strings.Repeat("M", 1040000)}},
		{"members-1000x100", members(1000, 100)},
	} {
		body, err := json.Marshal(tc.sent)
		if err != nil {
			b.Fatal(err)
		}
		answer := map[string]any{"name": tc.sent["name"]}
		if tag, ok := tc.sent["tag"]; ok {
			answer["tag"] = tag
		}
		resp, err := json.Marshal(answer)
		if err != nil {
			b.Fatal(err)
		}
		x := &exchange.Exchange{
			Header: http.Header{"Authorization": {"Bearer tok"}, "Content-Type": {"application/json"}}, Body: body,
			Status: http.StatusOK, RespHeader: http.Header{"Content-Type": {"application/json"}}, RespBody: resp,
		}
		if o := Judge(v, x, Sender{}, nil); !o.Valid || len(o.ResponseViolations) > 0 || len(o.Unjudged) > 0 {
			b.Fatalf("%s: %+v", tc.name, o)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body) + len(resp)))
			for b.Loop() {
				runtime.KeepAlive(Judge(v, x, Sender{}, nil))
			}
		})
	}
}
