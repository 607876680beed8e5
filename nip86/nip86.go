// Package nip86 is the hub's NIP-86 administration endpoint: JSON-RPC-like
// calls POSTed to the hub's URL with Content-Type application/nostr+json+rpc
// and a NIP-98 authorization signed by a hub admin or a paired device of
// one (spec/protocol.md, "Administration (NIP-86)"). Calls that change the
// hub become events in the log through the hub's rules (hub.Administer);
// every refusal is a JSON-RPC error saying why.
package nip86

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/ainb/hive/hub"
	"github.com/ainb/hive/nip98"
	"github.com/nbd-wtf/go-nostr"
)

// ContentType is the media type of NIP-86 requests and answers.
const ContentType = "application/nostr+json+rpc"

// MaxBodyBytes bounds a request body; a NIP-86 call is a few hundred bytes.
const MaxBodyBytes = 64 << 10

// bodyTimeout is how long a request's body may take to arrive.
const bodyTimeout = 10 * time.Second

// Hub is what the endpoint needs of the hub (*hub.Hub).
type Hub interface {
	AdminActing(pubkey string, at int64) (admin, refusal string)
	Members() []hub.Member
	Administer(ctx context.Context, auth *nostr.Event, body []byte) error
}

// Handler serves NIP-86 calls and their CORS preflight. Create it with New.
type Handler struct {
	hub  Hub
	urls []string
	now  func() time.Time
	log  *slog.Logger
	seen *seenSet
}

// New builds the endpoint for h, reached at urls (the hub's public ws(s)
// URLs: an authorization's u must be one of them, as http(s)).
func New(h Hub, urls []string, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.Default()
	}
	return &Handler{hub: h, urls: urls, now: time.Now, log: log, seen: &seenSet{ids: map[string]time.Time{}}}
}

// readOnly are the methods answered from the hub's state, without an event.
var readOnly = []string{"listallowedpubkeys", "supportedmethods"}

// SupportedMethods lists every method the endpoint answers, sorted.
func SupportedMethods() []string {
	ms := append(slices.Clone(readOnly), hub.AdminMethods()...)
	slices.Sort(ms)
	return ms
}

// allowedHeaders are the request headers a NIP-86 client sends.
const allowedHeaders = "Authorization, Content-Type, Accept"

// Preflight answers a CORS preflight (OPTIONS) for the hub's URL: any
// origin may POST a NIP-86 call (its authorization is what counts) and GET
// the NIP-11 document.
func Preflight(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	h.Set("Access-Control-Allow-Headers", allowedHeaders)
	h.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
}

// ServeHTTP answers OPTIONS with the preflight and POST with a call.
func (h *Handler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method == http.MethodOptions {
		Preflight(w)
		return
	}
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if req.Method != http.MethodPost {
		fail(w, http.StatusMethodNotAllowed, "invalid: NIP-86 calls are POSTed")
		return
	}
	result, status, refusal := h.call(w, req)
	if refusal != "" {
		fail(w, status, refusal)
		return
	}
	answer(w, http.StatusOK, map[string]any{"result": result})
}

// call judges and runs one request: content type, body, authorization,
// replay, admin, method. It returns the result, or the status and refusal.
func (h *Handler) call(w http.ResponseWriter, req *http.Request) (any, int, string) {
	mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if err != nil || mt != ContentType {
		return nil, http.StatusUnsupportedMediaType, "invalid: a NIP-86 call has Content-Type " + ContentType
	}
	// the body comes within bodyTimeout (a trickled one holds nothing longer)
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(nil, req.Body, MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, http.StatusRequestEntityTooLarge, "invalid: a NIP-86 call's body is at most 64 KiB"
		}
		return nil, http.StatusBadRequest, "invalid: reading the body: " + err.Error()
	}
	auth, err := nip98.Parse(req.Header.Get("Authorization"))
	if err != nil {
		return nil, http.StatusUnauthorized, "auth-required: " + err.Error()
	}
	now := h.now()
	if err := nip98.Check(auth, nip98.Want{URLs: h.urls, Method: http.MethodPost, Body: body, Now: now}); err != nil {
		return nil, http.StatusUnauthorized, "invalid: NIP-98: " + err.Error()
	}
	admin, refusal := h.hub.AdminActing(auth.PubKey, int64(auth.CreatedAt))
	if refusal != "" {
		return nil, http.StatusForbidden, refusal
	}
	if err := nip98.CheckSignature(auth); err != nil { // verified only for an admin's key: a stranger costs no verification
		return nil, http.StatusUnauthorized, "invalid: NIP-98: " + err.Error()
	}
	method, _, err := hub.ParseCall(body)
	if err != nil {
		return nil, http.StatusBadRequest, err.Error()
	}
	// A call that changes the hub is done once per authorization. Any other
	// (a read, a method hive does not do) is answered again: it changes
	// nothing, and two identical calls within a second are one event
	// (clients' NIP-98 events carry only u, method and payload), as
	// flotilla's concurrent calls are.
	if slices.Contains(hub.AdminMethods(), method) && !h.seen.add(auth.ID, now) {
		return nil, http.StatusUnauthorized, "restricted: this NIP-98 authorization was already used; sign a new one"
	}
	switch method {
	case "supportedmethods":
		return SupportedMethods(), 0, ""
	case "listallowedpubkeys":
		rows := []map[string]string{}
		for _, m := range h.hub.Members() {
			rows = append(rows, map[string]string{"pubkey": m.Pubkey, "reason": "hub " + m.Role})
		}
		return rows, 0, ""
	}
	if err := h.hub.Administer(req.Context(), auth, body); err != nil {
		return nil, http.StatusBadRequest, refusalOf(err)
	}
	h.log.Info("NIP-86 call done", "method", method, "admin", admin, "signer", auth.PubKey)
	return true, 0, ""
}

// refusalOf is err's message with a NIP-01 prefix.
func refusalOf(err error) string {
	msg := err.Error()
	for _, p := range []string{"invalid: ", "restricted: ", "duplicate: ", "blocked: ", "error: ", "rate-limited: "} {
		if len(msg) >= len(p) && msg[:len(p)] == p {
			return msg
		}
	}
	return "error: " + msg
}

func fail(w http.ResponseWriter, status int, msg string) {
	answer(w, status, map[string]any{"result": nil, "error": msg})
}

func answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// seenSet holds the ids of the authorizations used within the NIP-98
// window, so none serves twice; older ones are refused as stale anyway.
// Only authorizations that verified and were signed by an admin enter it.
type seenSet struct {
	mu  sync.Mutex
	ids map[string]time.Time
}

func (s *seenSet) add(id string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, at := range s.ids {
		if now.Sub(at) > 3*nip98.Window {
			delete(s.ids, k)
		}
	}
	if _, dup := s.ids[id]; dup {
		return false
	}
	s.ids[id] = now
	return true
}
