package mutants

import (
	"fmt"
	"net/http"
	"reflect"
	"testing"
)

// TestStateKeptBeforeAuth: each mutant that keeps state keyed by the
// request before it checks the credential answers the request that shows
// its defect, sent after an accepted create, with 200 where the reference
// refuses it; a request its state does not know it refuses as the
// reference does, and ordinary traffic it answers as the reference does.
func TestStateKeptBeforeAuth(t *testing.T) {
	const created = `{"id":%d,"name":"Fern","tag":"green"}`
	noAuth := func(string) string { return "" }
	foreign := func(string) string { return "Bearer not-the-token" }
	tests := []struct {
		mutant, name string
		key          string // the Idempotency-Key of both requests ("": none)
		then         request
		want         int // the mutant's status; the reference's is 400
	}{
		{"replay-cache-before-auth", "replay, no credentials", "", request{auth: noAuth, body: created}, http.StatusOK},
		{"replay-cache-before-auth", "replay, a foreign token", "", request{auth: foreign, body: created}, http.StatusOK},
		{"replay-cache-before-auth", "another body", "", request{auth: noAuth, body: `{"id":%d,"name":"Fern"}`}, http.StatusBadRequest},
		{"idempotency-before-auth", "same key, no credentials", `"k1"`, request{auth: noAuth, body: created}, http.StatusOK},
		{"idempotency-before-auth", "no key, no credentials", "", request{auth: noAuth, body: created}, http.StatusBadRequest},
		{"dedup-id-before-auth", "same id, another name", "", request{auth: noAuth, body: `{"id":%d,"name":"Moss"}`}, http.StatusOK},
		{"dedup-id-before-auth", "another id", "", request{auth: noAuth, body: `{"id":1%d,"name":"Fern"}`}, http.StatusBadRequest},
		{"dedup-name-before-auth", "same name, another id", "", request{auth: foreign, body: `{"id":1%d,"name":"Fern"}`}, http.StatusOK},
		{"dedup-name-before-auth", "same name, no id", "", request{auth: noAuth, body: `{"name":"Fern","x":%d}`}, http.StatusBadRequest},
	}
	for i, tt := range tests {
		t.Run(tt.mutant+"/"+tt.name, func(t *testing.T) {
			m, ok := Lookup(tt.mutant)
			if !ok {
				t.Fatalf("no mutant %s", tt.mutant)
			}
			token := tokenFor(m)
			id := 5000 + i
			first := request{body: fmt.Sprintf(created, id), key: tt.key}
			then := tt.then
			then.body, then.key = fmt.Sprintf(then.body, id), tt.key
			var got [2]answer
			for j, mm := range []*Mutant{nil, &m} {
				srv := serve(t, mm, token)
				if a := send(t, srv, token, first); a.status != http.StatusOK {
					t.Fatalf("the create is answered %d: %s", a.status, a.body)
				}
				got[j] = send(t, srv, token, then)
			}
			if got[0].status != http.StatusBadRequest || got[1].status != tt.want {
				t.Errorf("reference %d, mutant %d; want 400 and %d\nmutant: %s", got[0].status, got[1].status, tt.want, got[1].body)
			}
			if tt.want == http.StatusBadRequest && !reflect.DeepEqual(got[0], got[1]) {
				t.Errorf("mutant answers %d %q, reference %d %q", got[1].status, got[1].body, got[0].status, got[0].body)
			}
		})
	}
}
