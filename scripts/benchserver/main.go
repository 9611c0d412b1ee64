// Command benchserver serves, for scripts/throughput.sh, either the
// reference Plant Store server or a bare net/http + encoding/json handler of
// the same shape (bearer check, media type check, decode {id, name, tag},
// answer {name, tag}), so that their throughput can be compared.
package main

import (
	"crypto/subtle"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"mime"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"

	"github.com/plantcheck/plantcheck/reference"
)

func main() {
	impl := flag.String("impl", "reference", "reference or bare")
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	token := flag.String("token", "bench-token", "bearer token")
	flag.Parse()

	var h http.Handler
	switch *impl {
	case "reference":
		s, err := reference.New(reference.Config{Token: *token})
		if err != nil {
			log.Fatal(err)
		}
		h = s
	case "bare":
		h = bare(*token)
	default:
		log.Fatalf("unknown -impl %q", *impl)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintln(os.Stdout, ln.Addr().String())
	log.Fatal(http.Serve(ln, h))
}

// bare is the plainest handler of the same shape: the yardstick.
func bare(token string) http.Handler {
	want := []byte("Bearer " + token)
	var mu sync.Mutex
	ids := map[int64]bool{}
	fail := func(w http.ResponseWriter, code int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"error": code, "message": msg})
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /plants", func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			fail(w, 1, "bad credentials")
			return
		}
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			fail(w, 2, "bad media type")
			return
		}
		var in struct {
			ID   json.Number `json:"id"`
			Name *string     `json:"name"`
			Tag  *string     `json:"tag"`
		}
		d := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
		d.UseNumber()
		if err := d.Decode(&in); err != nil || in.Name == nil {
			fail(w, 3, "bad body")
			return
		}
		id, err := strconv.ParseInt(in.ID.String(), 10, 64)
		if err != nil {
			fail(w, 4, "bad id")
			return
		}
		mu.Lock()
		dup := ids[id]
		ids[id] = true
		mu.Unlock()
		if dup {
			fail(w, 5, "duplicate id")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(struct {
			Name string  `json:"name"`
			Tag  *string `json:"tag,omitempty"`
		}{*in.Name, in.Tag})
	})
	return mux
}
