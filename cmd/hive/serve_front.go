package main

import (
	"net/http"

	"github.com/ainb/hive/front"
	"github.com/ainb/hive/web"
)

// metricsOnMain is the --metrics value that serves /metrics on the hub's own
// listener instead of an address of its own.
const metricsOnMain = "main"

// frontHandler is the hub's one HTTP handler: the relay, the pairing
// endpoint, NIP-86 administration, the workflows' webhooks, the web chat unless --web=false, /metrics
// with --metrics main.
func frontHandler(f serveFlags, rl, pair, admin, hooks http.Handler, m *hubMetrics, tls bool) (http.Handler, error) {
	cfg := front.Config{Relay: rl, Pair: pair, Admin: admin, Hooks: hooks, TLS: tls}
	if f.web {
		cfg.App = web.Dist()
	}
	if f.metrics == metricsOnMain {
		cfg.Metrics = m.handler()
	}
	return front.New(cfg)
}
