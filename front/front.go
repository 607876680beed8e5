// Package front is the hub's one HTTP handler, in the style of khatru's
// handlers.go: websocket upgrades and NIP-11 go to the relay, /pair to the
// pairing endpoint, /metrics to the metrics handler when one is given,
// /hook/<id> to the workflows' webhooks, POST and OPTIONS to the NIP-86
// administration endpoint, and every other GET to
// the web app (or, without it, the relay's line of text).
// Every response carries the security headers of headers.go.
package front

import (
	"fmt"
	"io/fs"
	"net/http"
	"strings"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/relay"
	"github.com/ainb/hive/webhook"
)

// MetricsPath is where the metrics handler is mounted when Config.Metrics is set.
const MetricsPath = "/metrics"

// Config names the parts the handler routes to.
type Config struct {
	Relay   http.Handler // websocket upgrades and NIP-11 (required)
	Pair    http.Handler // the pairing endpoint at client.PairPath; nil: 404
	App     fs.FS        // the built web app (index.html at its root); nil: off
	Metrics http.Handler // Prometheus text at MetricsPath; nil: 404 there
	Admin   http.Handler // NIP-86 calls (POST) and CORS preflights (OPTIONS); nil: off
	Hooks   http.Handler // webhook deliveries at webhook.Path (webhook.Handler); nil: 404
	TLS     bool         // the listener serves TLS (the page's websocket is wss)
}

// Handler is the hub's HTTP surface. Create it with New.
type Handler struct {
	cfg Config
	app *assets
}

// New builds the handler; it reads and compresses the app's files once.
func New(cfg Config) (*Handler, error) {
	if cfg.Relay == nil {
		return nil, fmt.Errorf("front: no relay handler")
	}
	h := &Handler{cfg: cfg}
	if cfg.App != nil {
		a, err := loadAssets(cfg.App)
		if err != nil {
			return nil, fmt.Errorf("front: web app: %w", err)
		}
		h.app = a
	}
	return h, nil
}

// ServeHTTP routes req; see the package comment.
func (h *Handler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	setSecurityHeaders(w.Header(), req, h.cfg.TLS)
	switch {
	case req.URL.Path == client.PairPath:
		h.serveOr404(w, req, h.cfg.Pair)
	case strings.HasPrefix(req.URL.Path, webhook.Path) && req.Header.Get("Upgrade") == "":
		h.serveOr404(w, req, h.cfg.Hooks)
	case req.Header.Get("Upgrade") != "":
		h.cfg.Relay.ServeHTTP(w, req)
	case h.cfg.Admin != nil && (req.Method == http.MethodPost || req.Method == http.MethodOptions):
		h.cfg.Admin.ServeHTTP(w, req)
	case relay.WantsInfo(req):
		h.cfg.Relay.ServeHTTP(w, req)
	case req.URL.Path == MetricsPath:
		h.serveOr404(w, req, h.cfg.Metrics)
	case h.app != nil:
		h.app.serve(w, req)
	default:
		h.cfg.Relay.ServeHTTP(w, req)
	}
}

func (h *Handler) serveOr404(w http.ResponseWriter, req *http.Request, next http.Handler) {
	if next == nil {
		http.NotFound(w, req)
		return
	}
	next.ServeHTTP(w, req)
}
