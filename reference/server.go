// Package reference is plantcheck's bundled Plant Store server: the plainest
// honest implementation of the specification, meant to be read top to bottom
// by anyone implementing it. POST /plants checks the bearer token, the media
// type and the NewPlant body, stores the plant and answers with a Plant
// record; every failure caused by the request is a 400 with an Error record,
// the one error response the document has. It deliberately knows nothing of
// plantcheck's validator: that the two agree is evidence, not an echo.
package reference

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"
)

// defaultMaxBodyBytes bounds a request body when Config.MaxBodyBytes is 0. A
// NewPlant record is a few dozen bytes; the document gives no limit.
const defaultMaxBodyBytes = 1 << 20

// Config configures a Server.
type Config struct {
	// Token is the bearer token clients must present. Required.
	Token string
	// MaxBodyBytes limits a request body; a longer one gets a 400. 0 means
	// 1 MiB.
	MaxBodyBytes int64
	// Logger receives one line per request: method, path, status, duration
	// and bytes written, never a header or a body. nil means no log.
	Logger *slog.Logger
	// Store keeps the plants. nil means NewMemoryStore().
	Store Store
}

// Server is the reference Plant Store. It is an http.Handler.
type Server struct {
	tokenDigest [sha256.Size]byte
	maxBody     int64
	log         *slog.Logger
	store       Store
	mux         *http.ServeMux
}

// New returns a Server for cfg. It fails when cfg has no token or a negative
// body limit.
func New(cfg Config) (*Server, error) {
	if cfg.Token == "" {
		return nil, errors.New("reference: a bearer token is required")
	}
	if cfg.MaxBodyBytes < 0 {
		return nil, errors.New("reference: the body limit must not be negative")
	}
	s := &Server{
		tokenDigest: sha256.Sum256([]byte(cfg.Token)),
		maxBody:     cmp.Or(cfg.MaxBodyBytes, defaultMaxBodyBytes),
		log:         cmp.Or(cfg.Logger, slog.New(slog.DiscardHandler)),
		store:       cmp.Or[Store](cfg.Store, NewMemoryStore()),
		mux:         http.NewServeMux(),
	}
	s.mux.HandleFunc("POST /plants", s.createPlant)
	// The mux would answer these itself, in plain text; the document's
	// media type is JSON throughout, so they get Error records too.
	s.mux.HandleFunc("/plants", methodNotAllowed)
	s.mux.HandleFunc("/", notFound)
	return s, nil
}

// ServeHTTP answers one request and logs it.
//
// A chunked request's connection is closed after the answer. net/http frames
// a request that carries both Content-Length and Transfer-Encoding by its
// Transfer-Encoding, as RFC 9112 section 6.1 allows, and hides both fields, so
// the handler sees a chunked request; but it keeps the connection open, where
// the section requires a close, lest bytes a proxy in front framed by
// Content-Length be read here as a second request (request smuggling,
// section 11.2). Closing after every chunked request keeps that MUST at the
// cost of one comparison on the others.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.TransferEncoding != nil {
		w.Header().Set("Connection", "close")
	}
	if !s.log.Enabled(r.Context(), slog.LevelInfo) {
		s.mux.ServeHTTP(w, r)
		return
	}
	start := time.Now()
	rec := &recorder{ResponseWriter: w}
	s.mux.ServeHTTP(rec, r)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
		slog.String("method", r.Method),
		slog.String("path", r.URL.Path),
		slog.Int("status", rec.status),
		slog.Duration("duration", time.Since(start)),
		slog.Int64("bytes", rec.bytes),
	)
}

// createPlant is POST /plants. The checks run in the order a reader meets
// them in the specification: authentication, media type, body, store.
func (s *Server) createPlant(w http.ResponseWriter, r *http.Request) {
	if err := s.authenticate(r.Header); err != nil {
		writeError(w, err)
		return
	}
	if err := checkMediaType(r.Header); err != nil {
		writeError(w, err)
		return
	}
	body, err := readBody(w, r, s.maxBody)
	if err != nil {
		writeError(w, err)
		return
	}
	p, err := decodeNewPlant(body)
	if err != nil {
		writeError(w, err)
		return
	}
	if err := s.store.Add(r.Context(), p); err != nil {
		if errors.Is(err, ErrDuplicateID) {
			writeError(w, fail(errDuplicateID, `A plant with this "id" is already stored; each plant needs its own id.`))
			return
		}
		// The store's own failure: logged for the operator, never shown.
		s.log.LogAttrs(r.Context(), slog.LevelError, "store plant", slog.String("error", err.Error()))
		writeError(w, fail(errInternal, "The plant could not be stored; try again later."))
		return
	}
	// The Plant record: the name and, where one was sent, the tag. No id.
	writeJSON(w, http.StatusOK, plantRecord{Name: p.Name, Tag: p.Tag})
}

// plantRecord is the document's Plant schema. Tag is omitted only when nil,
// so an empty tag that was sent comes back.
type plantRecord struct {
	Name string  `json:"name"`
	Tag  *string `json:"tag,omitempty"`
}

// authenticate accepts exactly one Authorization header holding the scheme
// Bearer (in any case, as RFC 7235 makes schemes case-insensitive), one
// space, and the configured token.
func (s *Server) authenticate(h http.Header) *requestError {
	values := h.Values("Authorization")
	switch len(values) {
	case 0:
		return fail(errAuthentication, "The request has no Authorization header; it must carry one with Bearer and the access token.")
	case 1:
	default:
		return fail(errAuthentication, "The request has more than one Authorization header; it must carry exactly one.")
	}
	scheme, credential, _ := strings.Cut(values[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return fail(errAuthentication, "The Authorization header must use the Bearer scheme.")
	}
	if credential == "" {
		return fail(errAuthentication, "The Authorization header carries the Bearer scheme but no token.")
	}
	// Comparing digests takes the same time whatever the credential's
	// length, so timing tells an attacker neither the token nor its length.
	digest := sha256.Sum256([]byte(credential))
	if subtle.ConstantTimeCompare(digest[:], s.tokenDigest[:]) != 1 {
		return fail(errAuthentication, "The bearer token is not valid.")
	}
	return nil
}

// checkMediaType accepts application/json, with any parameters: RFC 8259
// defines none for it, and a charset has no effect on a JSON reader.
func checkMediaType(h http.Header) *requestError {
	values := h.Values("Content-Type")
	if len(values) == 0 {
		return fail(errMediaType, "The request has no Content-Type header; the body must be sent as application/json.")
	}
	if len(values) > 1 {
		return fail(errMediaType, "The request has more than one Content-Type header; it must carry exactly one, application/json.")
	}
	mediaType, _, err := mime.ParseMediaType(values[0])
	if err != nil || mediaType != "application/json" {
		return fail(errMediaType, "The request body must be sent as application/json.")
	}
	return nil
}

// readBody reads the whole body, at most limit bytes, into a buffer sized
// by the length the request declares (never past the limit).
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, *requestError) {
	buf := bytes.NewBuffer(make([]byte, 0, min(max(r.ContentLength, 0), limit)+bytes.MinRead))
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
	body := buf.Bytes()
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, fail(errBodyTooLarge, "The request body is too large.")
	case err != nil:
		return nil, fail(errBodyUnreadable, "The request body could not be read.")
	}
	return body, nil
}

// methodNotAllowed answers any method but POST on /plants.
func methodNotAllowed(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Allow", http.MethodPost)
	writeError(w, fail(errMethodNotAllowed, "The method is not allowed on /plants; the only operation is POST /plants."))
}

// notFound answers any path but /plants.
func notFound(w http.ResponseWriter, _ *http.Request) {
	writeError(w, fail(errNotFound, "There is no such path; the only operation is POST /plants."))
}

// recorder remembers the status and size of a response, for the log.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(p)
	r.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
