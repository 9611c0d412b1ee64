package proxy

import (
	"net/http"

	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are what /metrics shows, in Prometheus's text exposition, by
// github.com/prometheus/client_golang. The counts are read from the
// proxy's tally when scraped (nothing is counted twice, and nothing on an
// exchange's path but the latency's one observation); the registry is
// the proxy's own, so that two proxies in one process never share one.
type metrics struct {
	registry *prometheus.Registry
	// added is the latency the proxy adds to an exchange: from the
	// request's arrival to its going upstream, plus from the upstream's
	// header to the client's.
	added prometheus.Histogram
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

// ownKinds are every kind of the proxy's own answer, each shown from the
// start (a counter that appears only once it is 1 cannot be alerted on).
var ownKinds = []string{OwnUnreachable, OwnTimeout, OwnFailed}

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

func (c tallyCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descExchanges, descJudged, descViolations, descOwn, descGone} {
		ch <- d
	}
}

func (c tallyCollector) Collect(ch chan<- prometheus.Metric) {
	n := c.t.Counts()
	ch <- prometheus.MustNewConstMetric(descExchanges, prometheus.CounterValue, float64(n.Exchanges))
	ch <- prometheus.MustNewConstMetric(descJudged, prometheus.CounterValue, float64(n.Judged))
	ch <- prometheus.MustNewConstMetric(descGone, prometheus.CounterValue, float64(n.ClientGone))
	for _, k := range ownKinds {
		ch <- prometheus.MustNewConstMetric(descOwn, prometheus.CounterValue, float64(n.ProxyAnswers[k]), k)
	}
	for _, g := range c.t.Clients() {
		ch <- prometheus.MustNewConstMetric(descViolations, prometheus.CounterValue, float64(g.Requests), g.Label(), "client")
	}
	for _, r := range c.t.Rules() {
		if fromTraffic[r.ID] {
			ch <- prometheus.MustNewConstMetric(descViolations, prometheus.CounterValue, float64(r.Failures), string(r.ID), "server")
		}
	}
}

// metricsHandler serves the registry.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}
