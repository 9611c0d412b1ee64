package reference

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// BenchmarkCreate measures the create handler through ServeHTTP, without
// the network: a valid create with a fresh id, and the commonest rejections.
func BenchmarkCreate(b *testing.B) {
	cases := []struct {
		name   string
		header http.Header
		body   func(i int) []byte
		status int
	}{
		{"valid", goodHeaders, func(i int) []byte {
			return []byte(`{"id":` + strconv.Itoa(i) + `,"name":"Monstera deliciosa","tag":"indoor"}`)
		}, http.StatusOK},
		{"invalid-body", goodHeaders, func(int) []byte { return []byte(`{"id":"1","name":7}`) }, http.StatusBadRequest},
		{"wrong-token", headers("Bearer not-the-token", "application/json"), func(i int) []byte {
			return []byte(`{"id":` + strconv.Itoa(i) + `,"name":"Fern"}`)
		}, http.StatusBadRequest},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			s := newServer(b, Config{})
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				body := c.body(i)
				r := httptest.NewRequest(http.MethodPost, "/plants", bytes.NewReader(body))
				r.Header = c.header
				w := httptest.NewRecorder()
				s.ServeHTTP(w, r)
				if w.Code != c.status {
					b.Fatalf("status %d, want %d: %s", w.Code, c.status, w.Body)
				}
			}
		})
	}
}
