// Command benchserver serves, for scripts/throughput.sh, either the
// reference Plant Store server or a bare net/http + encoding/json handler of
// the same shape (bearer check, media type check, decode {id, name, tag},
// keep the plant by id, answer {name, tag}), so that their throughput can be
// compared. -cpuprofile writes a CPU profile of the load.
package main

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"mime"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"sync"
	"syscall"

	"github.com/plantcheck/plantcheck/reference"
)

func main() {
	impl := flag.String("impl", "reference", "reference or bare")
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	token := flag.String("token", "bench-token", "bearer token")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to this file, ended by SIGINT or SIGTERM")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			log.Fatal(err)
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}

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
	srv := &http.Server{Handler: h}
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

// plant is what bare keeps of each plant created.
type plant struct {
	name string
	tag  *string
}

// bare is the plainest handler of the same shape and the same work: the
// yardstick. Like the reference, it keeps every plant created, keyed by id:
// a yardstick that kept only the ids would be spared the collector's
// marking of every stored name and tag (measured: 0.9 s of a 5 s load, the
// whole of the reference's lag), and would measure what the servers store
// rather than how they answer.
func bare(token string) http.Handler {
	want := []byte("Bearer " + token)
	var mu sync.Mutex
	plants := map[int64]plant{}
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
		_, dup := plants[id]
		if !dup {
			plants[id] = plant{*in.Name, in.Tag}
		}
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
