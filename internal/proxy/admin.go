package proxy

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/tlsconf"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// readyDial bounds the connection readiness makes to the upstream.
const readyDial = 2 * time.Second

// Admin is the proxy's admin endpoints, on a listener of their own (so that
// no path of the service's is shadowed): GET /healthz, 200 while the proxy
// runs; GET /readyz, 200 while the upstream accepts a TCP connection, else
// 503 with a one-line reason; GET /metrics, Prometheus's exposition.
func (h *Handler) Admin() http.Handler {
	plain := func(w http.ResponseWriter, status int, text string) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		fmt.Fprintln(w, text)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		plain(w, http.StatusOK, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		addr := tlsconf.Addr(h.upstream)
		d := net.Dialer{Timeout: min(h.timeout, readyDial)}
		conn, err := d.DialContext(r.Context(), "tcp", addr)
		if err != nil {
			plain(w, http.StatusServiceUnavailable, fmt.Sprintf("the upstream %s does not accept connections: %s", addr, evidence.Text(evidence.Cut(err.Error(), exchange.ExcerptBytes))))
			return
		}
		conn.Close()
		plain(w, http.StatusOK, "ok")
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(h.metrics.registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	return mux
}

// metrics are what /metrics shows: the counts read from the tally when
// scraped (nothing on an exchange's path but the latency's observation),
// in a registry of the proxy's own (two proxies in one process share none).
type metrics struct {
	registry *prometheus.Registry
	added    prometheus.Histogram
}

var (
	descExchanges = prometheus.NewDesc("plantcheck_proxy_exchanges_total",
		"Exchanges that passed through the proxy (every method and path, every outcome).", nil, nil)
	descJudged = prometheus.NewDesc("plantcheck_proxy_judged_total",
		"Exchanges of POST /plants that were judged.", nil, nil)
	descViolations = prometheus.NewDesc("plantcheck_proxy_violations_total",
		"Failed judgements, by rule and side: server (the service broke the rule) or client (the request broke the document, counted under the rule its refusal calls for).",
		[]string{"rule", "side"}, nil)
	descOwn = prometheus.NewDesc("plantcheck_proxy_own_answers_total",
		"The proxy's own 502s (marked Plantcheck-Proxy), by kind: upstream-unreachable, upstream-timeout, upstream-failed.",
		[]string{"kind"}, nil)
	descGone = prometheus.NewDesc("plantcheck_proxy_clients_gone_total",
		"Exchanges whose client went away before the answer ended.", nil, nil)
)

func newMetrics(h *Handler) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		added: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "plantcheck_proxy_added_latency_seconds",
			Help: "Latency the proxy adds to an exchange answered by the upstream: from the request's arrival to its going upstream, plus from the upstream's answer header to the client's.",
			// From 50 µs to about 1.6 s.
			Buckets: prometheus.ExponentialBuckets(50e-6, 2, 16),
		}),
	}
	m.registry.MustRegister(m.added, tallyCollector{h.tally},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// tallyCollector shows the tally's counts when scraped.
type tallyCollector struct{ t *verdict.Tally }

func (c tallyCollector) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(c, ch) }

func (c tallyCollector) Collect(ch chan<- prometheus.Metric) {
	n := c.t.Counts()
	ch <- prometheus.MustNewConstMetric(descExchanges, prometheus.CounterValue, float64(n.Exchanges))
	ch <- prometheus.MustNewConstMetric(descJudged, prometheus.CounterValue, float64(n.Judged))
	ch <- prometheus.MustNewConstMetric(descGone, prometheus.CounterValue, float64(n.ClientGone))
	// Every kind of the proxy's own answer is shown from the start (a
	// counter that appears only once it is 1 cannot be alerted on).
	for _, k := range []string{OwnUnreachable, OwnTimeout, OwnFailed} {
		ch <- prometheus.MustNewConstMetric(descOwn, prometheus.CounterValue, float64(n.ProxyAnswers[k]), k)
	}
	for _, g := range c.t.Clients() {
		ch <- prometheus.MustNewConstMetric(descViolations, prometheus.CounterValue, float64(g.Requests), g.Label(), "client")
	}
	for _, r := range c.t.Rules() {
		if slices.Contains(judge.FromTraffic, r.ID) {
			ch <- prometheus.MustNewConstMetric(descViolations, prometheus.CounterValue, float64(r.Failures), string(r.ID), "server")
		}
	}
}
