package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ainb/hive/relay"
)

// ErrNotAccepted is every refusal a sender hears: an unknown hook, a bad
// signature, a stale timestamp, a disabled workflow, all alike (401), so
// that no answer tells a stranger which hooks exist.
var ErrNotAccepted = errors.New("not accepted")

// Result is a stored delivery.
type Result struct {
	Delivery  string // the delivery event's id
	Run       string // the id of the run it starts (its claim's)
	Duplicate bool   // the delivery id was stored before: this is that event
}

// Hub stores verified deliveries (*hub.Hub).
type Hub interface {
	// Deliver verifies a request to hook and stores it once per delivery
	// id; ErrNotAccepted for anything it does not store.
	Deliver(ctx context.Context, hook string, h http.Header, body []byte) (Result, error)
}

// Limits bound what anyone may ask of the endpoint. Zero values take the
// defaults (spec/workflows.md, "Webhooks").
type Limits struct {
	Window  time.Duration // default 1 min
	PerAddr int           // requests from one source address per window (default 60)
	PerHook int           // requests to one hook id per window (default 120)
	Busy    int           // requests being handled at once (default 32)
}

func (l *Limits) defaults() {
	if l.Window <= 0 {
		l.Window = time.Minute
	}
	if l.PerAddr <= 0 {
		l.PerAddr = 60
	}
	if l.PerHook <= 0 {
		l.PerHook = 120
	}
	if l.Busy <= 0 {
		l.Busy = 32
	}
}

// bodyTimeout is how long a request's body may take to arrive.
const bodyTimeout = 10 * time.Second

// Handler serves POST /hook/<id>. Create it with NewHandler.
type Handler struct {
	hub   Hub
	lim   Limits
	log   *slog.Logger
	busy  chan struct{}
	mu    sync.Mutex
	addrs counter
	hooks counter
}

// NewHandler serves hub's hooks within lim.
func NewHandler(hub Hub, lim Limits, log *slog.Logger) *Handler {
	lim.defaults()
	if log == nil {
		log = slog.Default()
	}
	return &Handler{hub: hub, lim: lim, log: log, busy: make(chan struct{}, lim.Busy),
		addrs: counter{}, hooks: counter{}}
}

// ServeHTTP answers: 202 {"delivery", "run"} once the delivery is stored;
// 200 {"duplicate": true, "delivery", "run"} for a delivery id stored
// before; 401 {"error": "not accepted"} for any refusal; 405 for another
// method; 413 for a body over MaxBody; 429 past a rate limit; 503 when
// the log did not take it (retry).
func (h *Handler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	id := strings.TrimPrefix(req.URL.Path, Path)
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		answer(w, http.StatusMethodNotAllowed, map[string]any{"error": "POST a signed delivery to this URL"})
		return
	}
	if wait := h.charge(relay.AddrKey(req.RemoteAddr), id, time.Now()); wait > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
		answer(w, http.StatusTooManyRequests, map[string]any{"error": "too many requests: retry later"})
		return
	}
	select {
	case h.busy <- struct{}{}:
		defer func() { <-h.busy }()
	default:
		w.Header().Set("Retry-After", "1")
		answer(w, http.StatusTooManyRequests, map[string]any{"error": "too many requests: retry later"})
		return
	}
	if req.ContentLength > MaxBody {
		answer(w, http.StatusRequestEntityTooLarge, map[string]any{"error": "the body is over 64 KiB"})
		return
	}
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, MaxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		answer(w, http.StatusRequestEntityTooLarge, map[string]any{"error": "the body is over 64 KiB"})
		return
	case err != nil:
		answer(w, http.StatusBadRequest, map[string]any{"error": "the body did not arrive"})
		return
	}
	if !ValidHookID(id) {
		answer(w, http.StatusUnauthorized, map[string]any{"error": ErrNotAccepted.Error()})
		return
	}
	res, err := h.hub.Deliver(req.Context(), id, req.Header, body)
	switch {
	case errors.Is(err, ErrNotAccepted):
		answer(w, http.StatusUnauthorized, map[string]any{"error": ErrNotAccepted.Error()})
	case err != nil:
		h.log.Warn("webhook delivery not stored", "hook", id, "err", err)
		answer(w, http.StatusServiceUnavailable, map[string]any{"error": "the hub could not store the delivery: retry"})
	case res.Duplicate:
		answer(w, http.StatusOK, map[string]any{"duplicate": true, "delivery": res.Delivery, "run": res.Run})
	default:
		answer(w, http.StatusAccepted, map[string]any{"delivery": res.Delivery, "run": res.Run})
	}
}

func answer(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// charge counts one request from addr to hook; past either limit it
// returns how long until the window ends.
func (h *Handler) charge(addr, hook string, now time.Time) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	if wait := h.addrs.charge(addr, now, h.lim.Window, h.lim.PerAddr); wait > 0 {
		return wait
	}
	return h.hooks.charge(hook, now, h.lim.Window, h.lim.PerHook)
}

// counter counts requests per key in fixed windows.
type counter map[string]*window

type window struct {
	start time.Time
	n     int
}

// maxKeys bounds a counter: past it, windows that ended are dropped, and
// if none has, every key starts again (an attacker spreading over many
// keys gets no more than the keys' limits).
const maxKeys = 10000

func (c counter) charge(key string, now time.Time, span time.Duration, max int) time.Duration {
	w := c[key]
	if w == nil || now.Sub(w.start) >= span {
		if w == nil && len(c) >= maxKeys {
			c.prune(now, span)
		}
		w = &window{start: now}
		c[key] = w
	}
	w.n++
	if w.n > max {
		return w.start.Add(span).Sub(now)
	}
	return 0
}

func (c counter) prune(now time.Time, span time.Duration) {
	for k, w := range c {
		if now.Sub(w.start) >= span {
			delete(c, k)
		}
	}
	if len(c) >= maxKeys {
		clear(c)
	}
}
